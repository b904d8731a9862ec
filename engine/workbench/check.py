"""`lexlogic check`: every problem of a pack, each as `file:line: message` (exit 2 in the CLI).

Reads the files (logic/), parses and compiles the ASP with clingo (bridges/), then cross-checks what a
legal engineer gets wrong: rules without an annotation (id, label, source), enum constants that are not
values of the fact, unknown predicates, outcomes and facts named in tests, properties and templates,
JSON-Logic operators outside the allow-list, impossible dates, undefined or unused parameters, a stale
RULES.md, a remedy pointing at nothing. Near-miss names get a "did you mean".
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import compile_loaded, gated
from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.errors import did_you_mean
from lexlogic.logic.facts import Allegation, check_value
from lexlogic.logic.pack import FactType, PackError, RulePack, load_pack
from lexlogic.logic.ruletests import PropertySpec, RuleTest, load_properties, load_tests
from lexlogic.logic.templates import slots
from lexlogic.logic.weights import WeightsError, load_weights

_DATE_LIKE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
_ASP_ATOM = re.compile(r"\b([a-z_][A-Za-z0-9_]*)\(([a-z][A-Za-z0-9_]*)\)")


def _find_line(path: Path | str, start: int, needle: str) -> int:
    """The first line at or after `start` that contains `needle` (else `start`)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return start
    for i in range(max(start, 1) - 1, len(lines)):
        if needle in lines[i]:
            return i + 1
    return start


def _bad_date(text: str) -> str | None:
    """Why a date-looking string is not a date (None when it is one)."""
    try:
        date.fromisoformat(text)
    except ValueError as exc:
        return str(exc)
    return None


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _operator_problems(logic: Any, file: str, line: int, what: str) -> list[PackError]:
    """Operators outside the allow-list, located at their own line, with the list and a near miss."""
    out: list[PackError] = []
    allowed = sorted(jsonlogic_policy.ALLOWED_OPERATORS)
    for op in sorted(jsonlogic_policy.operators_used(logic)):
        if op in jsonlogic_policy.ALLOWED_OPERATORS:
            continue
        hint = " (blocked: it calls methods of the data)" if op == "method" else did_you_mean(op, allowed)
        out.append(
            PackError(
                file,
                _find_line(file, line, f"{op}:") if file else line,
                f"{what}: unknown or forbidden JSON-Logic operator '{op}'{hint}; allowed: {', '.join(allowed)}",
            )
        )
    if not out:
        try:
            jsonlogic_policy.validate(logic, what)
        except jsonlogic_policy.JsonLogicPolicyError as exc:
            out.append(PackError(file, line, str(exc)))
    return out


def _asp_syntax(exc: PackError, pack: RulePack) -> PackError:
    """clingo reports a missing period at the next token (often the end of the file): point at the
    statement that lacks it instead."""
    if "syntax error" not in exc.message:
        return exc
    try:
        lines = Path(exc.file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return exc
    at_eof = "EOF" in exc.message or (exc.line or 0) > len(lines)
    start = len(lines) if at_eof else (exc.line or 1) - 1
    # the last code line before the reported token that does not end a statement
    for i in range(start, 0, -1):
        code = lines[i - 1].split("%")[0].strip()
        if not code:
            continue
        if not code.endswith(".") and (":-" in code or re.match(r"^[a-z_][A-Za-z0-9_(), ]*$", code)):
            return PackError(exc.file, i, f"{exc.message} — missing period at the end of this statement?")
        break
    return exc


def _period_disagreements(pack: Any, meta: Any) -> list[PackError]:
    """A dated rule must lie within the period of each dated source it cites (it cannot apply before its
    source is in force, nor after it is repealed)."""
    if meta.valid_from is None and meta.valid_to is None:
        return []
    out = []
    for sid in meta.sources:
        src = pack.manifest.sources.get(sid)
        if src is None or (src.valid_from is None and src.valid_to is None):
            continue
        early = src.valid_from is not None and (meta.valid_from is None or meta.valid_from < src.valid_from)
        late = src.valid_to is not None and (meta.valid_to is None or meta.valid_to > src.valid_to)
        if early or late:
            out.append(
                PackError(
                    meta.file,
                    meta.line,
                    f"rule {meta.id} is in force {meta.valid_from or '…'} → {meta.valid_to or '…'} but its source "
                    f"{sid} only {src.valid_from or '…'} → {src.valid_to or '…'}: the periods disagree",
                )
            )
    return out


def check_pack(root: Path) -> list[PackError]:
    """Every problem of the pack at ``root``, each once, in the order a reader fixes them: facts and
    computations, the rules' predicates and annotations, then the manifest (remedy, versions, target,
    checks, outcomes), then the pack's other files."""
    try:
        pack = gated(load_pack(root))  # the pack as the engine loads it: dated rules gated
    except PackError as exc:
        return [exc]
    try:
        program = compile_loaded(pack)
    except PackError as exc:
        return [_asp_syntax(exc, pack)]
    manifest = root / "pack.yaml"
    known = _known_atoms(pack, program)
    outputs = {c.output for c in pack.computations}
    outcome_names = {n for n, a in known if a == 0} | outputs
    problems = _fact_problems(pack, root / pack.manifest.files.facts)
    problems += _computation_problems(pack, manifest)
    problems += _unknown_predicate_problems(program, known)
    problems += _unlabelled_conclusion_problems(pack, program)
    problems += _enum_constant_problems(pack, root)
    problems += _annotation_problems(program, pack)
    problems += _remedy_problems(pack, manifest, outputs)
    problems += _versions_problems(pack, manifest, known)
    problems += _target_and_check_problems(pack, manifest, known, outcome_names)
    problems += _outcome_problems(pack, manifest, known, outcome_names)
    problems += _other_file_problems(pack, manifest, known, outcome_names)
    unique: dict[tuple[str, int | None, str], PackError] = {}
    for p in problems:
        unique.setdefault((p.file, p.line, p.message), p)
    return list(unique.values())


def _mline(manifest: Path, needle: str) -> int:
    """The manifest's first line holding ``needle``."""
    return _find_line(manifest, 1, needle)


def _known_atoms(pack: RulePack, program: CompiledProgram) -> set[tuple[str, int]]:
    """What may appear in rule bodies: what a rule concludes, a declared fact, a computed boolean."""
    known: set[tuple[str, int]] = set(program.defined)
    for name, spec in pack.facts.items():
        if spec.type is FactType.BOOL:
            known.add((name, 0))
        elif spec.type is FactType.ENUM:
            known.add((name, 1))
    known |= {(c.output, 0) for c in pack.computations if c.type is FactType.BOOL}
    return known


def _fact_problems(pack: RulePack, facts_file: Path) -> list[PackError]:
    """facts.yaml: value labels of values the fact does not have; a default without a burden of proof."""
    problems: list[PackError] = []
    for name, spec in pack.facts.items():
        line = _find_line(facts_file, 1, f"{name}:")
        for value in spec.value_labels or {}:
            if value not in (spec.values or []):
                problems.append(
                    PackError(
                        facts_file,
                        line,
                        f"fact '{name}': value_labels names '{value}', not one of its values"
                        f"{did_you_mean(value, spec.values or [])}",
                    )
                )
        if spec.default is not None and spec.burden is None:
            problems.append(PackError(facts_file, line, f"fact '{name}' has a default but no burden of proof"))
    return problems


def _computation_problems(pack: RulePack, manifest: Path) -> list[PackError]:
    """Each computation: allowed operators, real dates, values read that exist before it, legal sources."""
    problems: list[PackError] = []
    outputs: set[str] = set()
    value_names = set(pack.facts) | {c.output for c in pack.computations} | set(pack.parameters)
    for comp in pack.computations:
        comp_file, line = comp.file or str(manifest), comp.line or 0
        problems += _operator_problems(comp.logic, comp_file, line, f"computation {comp.id}")
        for text in _strings(comp.logic):
            if _DATE_LIKE.match(text) and (why := _bad_date(text)):
                problems.append(
                    PackError(
                        comp_file,
                        _find_line(comp_file, line, text),
                        f"computation {comp.id}: impossible date '{text}' ({why})",
                    )
                )
        for var in sorted(jsonlogic_policy.variables_used(comp.logic) | set(comp.inputs)):
            if var not in pack.facts and var not in outputs and var not in pack.parameters:
                problems.append(
                    PackError(
                        comp_file,
                        _find_line(comp_file, line, var),
                        f"computation {comp.id} reads unknown value '{var}' "
                        f"(not a fact, a parameter, nor the output of an earlier computation)"
                        f"{did_you_mean(var, value_names)}",
                    )
                )
        problems += _source_problems(pack, comp_file, comp.line, f"computation {comp.id}", comp.sources)
        outputs.add(comp.output)
    return problems


def _source_problems(pack: RulePack, file: str, line: int | None, what: str, sources: list[str]) -> list[PackError]:
    """A rule or computation cites at least one source, and only sources the manifest declares."""
    if not sources:
        return [PackError(file, line, f"{what} has no legal source")]
    known = pack.manifest.sources
    return [
        PackError(file, line, f"{what} cites unknown source '{sid}'{did_you_mean(sid, known)}")
        for sid in sources
        if sid not in known
    ]


def _unknown_predicate_problems(program: CompiledProgram, known: set[tuple[str, int]]) -> list[PackError]:
    """A predicate a rule body uses that nothing defines: a typo clingo would silently read as false."""
    problems: list[PackError] = []
    for (name, arity), (file, line) in sorted(program.used.items(), key=lambda kv: kv[1]):
        if (name, arity) not in known and not name.startswith("__"):
            near = did_you_mean(name, {n for n, a in known if a == arity})
            problems.append(
                PackError(
                    file,
                    line,
                    f"unknown predicate {name}/{arity}: no rule concludes it and "
                    f"it is not a declared fact or computed boolean{near}",
                )
            )
    return problems


def _unlabelled_conclusion_problems(pack: RulePack, program: CompiledProgram) -> list[PackError]:
    """Every concluded atom has a label: a proof or why-not tree shows it (« aucun élément n'établit : … »)."""
    labelled = set(pack.manifest.outcomes) | set(pack.facts) | {c.output for c in pack.computations}
    problems: list[PackError] = []
    for (name, _arity), rules in sorted(program.by_head.items()):
        if name in labelled or name.startswith("__") or not rules:
            continue
        first = min(rules, key=lambda r: (r.file, r.line))
        problems.append(
            PackError(
                first.file,
                first.line,
                f"'{name}' is concluded here but has no label: add it to pack.yaml outcomes "
                f"(proofs and why-not trees would show its identifier)",
            )
        )
    return problems


def _enum_constant_problems(pack: RulePack, root: Path) -> list[PackError]:
    """Enum constants: kind(misspelled_value) is a dead rule, not a typo clingo sees."""
    enums = {n: f.values or [] for n, f in pack.facts.items() if f.type is FactType.ENUM}
    problems: list[PackError] = []
    for rel, asp_text in pack.asp_sources.items():
        for i, asp_line in enumerate(asp_text.splitlines(), start=1):
            for fact, const in _ASP_ATOM.findall(asp_line.split("%")[0]):
                if fact in enums and const not in enums[fact]:
                    problems.append(
                        PackError(
                            root / rel,
                            i,
                            f"'{const}' is not a value of enum fact '{fact}' ({', '.join(enums[fact])})"
                            f"{did_you_mean(const, enums[fact])}: the rule can never fire",
                        )
                    )
    return problems


def _annotation_problems(program: CompiledProgram, pack: RulePack) -> list[PackError]:
    """Every rule (constraints aside) carries `%@ {id, label, sources}`; ids are unique, labels not empty."""
    problems: list[PackError] = []
    seen_ids: dict[str, tuple[str, int]] = {}
    for rule in program.rules:
        meta = rule.meta
        if meta is None:
            if not rule.is_constraint:
                problems.append(
                    PackError(
                        rule.file,
                        rule.line,
                        'rule without annotation: add `%@ {id: ..., label: "...", sources: [...]}` on the line above',
                    )
                )
            continue
        if meta.id in seen_ids and seen_ids[meta.id] != (meta.file, meta.line):
            problems.append(PackError(meta.file, meta.line, f"duplicate rule id '{meta.id}'"))
        seen_ids[meta.id] = (meta.file, meta.line)
        if not meta.label.strip():
            problems.append(PackError(meta.file, meta.line, f"rule {meta.id} has an empty label"))
        problems += _source_problems(pack, meta.file, meta.line, f"rule {meta.id}", meta.sources)
        problems += _period_disagreements(pack, meta)
    return problems


def _remedy_problems(pack: RulePack, manifest: Path, outputs: set[str]) -> list[PackError]:
    """The remedy names a real outcome, computed bounds, and only the slots its sentences can fill."""
    remedy = pack.manifest.remedy
    if remedy is None:
        return []
    problems: list[PackError] = []
    at = _mline(manifest, "remedy:")
    if remedy.outcome not in {c.outcome for c in pack.manifest.checks} and remedy.outcome not in pack.manifest.outcomes:
        problems.append(
            PackError(
                manifest,
                at,
                f"remedy: outcome '{remedy.outcome}' is neither a check's outcome nor a declared outcome"
                f"{did_you_mean(remedy.outcome, list(pack.manifest.outcomes))}",
            )
        )
    for name in (remedy.low, remedy.high):
        if name not in outputs:
            problems.append(
                PackError(
                    manifest,
                    _find_line(manifest, at, name),
                    f"remedy: '{name}' is not the output of a computation{did_you_mean(name, outputs)}",
                )
            )
    for field, template, allowed in (
        ("sentence", remedy.sentence, {"low", "high"}),
        ("missing_sentence", remedy.missing_sentence, {"missing"}),
        ("exact_sentence", remedy.exact_sentence, {"amount"}),
    ):
        for slot in slots(template or ""):
            if slot not in allowed and slot not in pack.parameters:
                problems.append(
                    PackError(
                        manifest,
                        _find_line(manifest, at, "{" + slot + "}"),
                        f"remedy {field}: unknown slot '{{{slot}}}' (allowed: {', '.join(sorted(allowed))} or a parameter)",
                    )
                )
    return problems


def _versions_problems(pack: RulePack, manifest: Path, known: set[tuple[str, int]]) -> list[PackError]:
    """Versions of the law: a declared date fact; each text cites a known source and a concluded outcome."""
    v = pack.manifest.versions
    if v is None:
        return []
    problems: list[PackError] = []
    if v.date_fact not in pack.facts:
        problems.append(
            PackError(
                manifest,
                _mline(manifest, "date_fact"),
                f"versions: unknown date fact '{v.date_fact}'{did_you_mean(v.date_fact, pack.facts)}",
            )
        )
    for vtext in v.texts:
        line = _mline(manifest, vtext.outcome)
        if vtext.source not in pack.manifest.sources:
            problems.append(PackError(manifest, line, f"versions: unknown source '{vtext.source}'"))
        if (vtext.outcome, 0) not in known:
            problems.append(PackError(manifest, line, f"versions: nothing concludes '{vtext.outcome}'"))
    return problems


def _target_and_check_problems(
    pack: RulePack, manifest: Path, known: set[tuple[str, int]], outcome_names: set[str]
) -> list[PackError]:
    """Something concludes the target and each check's outcome; a check is re-opened only by real facts."""
    problems: list[PackError] = []
    target = pack.manifest.target
    if target not in outcome_names:
        problems.append(
            PackError(
                manifest,
                _mline(manifest, "target:"),
                f"target '{target}': nothing concludes it{did_you_mean(target, outcome_names)}",
            )
        )
    remedy_outcome = pack.manifest.remedy.outcome if pack.manifest.remedy else None
    for check in pack.manifest.checks:
        line = _mline(manifest, f"id: {check.id},")
        if check.outcome != remedy_outcome and (check.outcome, 0) not in known:
            problems.append(
                PackError(
                    manifest,
                    line,
                    f"check '{check.id}': nothing concludes '{check.outcome}'{did_you_mean(check.outcome, outcome_names)}",
                )
            )
        for fact in check.reopened_by:
            if fact not in pack.facts:
                problems.append(
                    PackError(
                        manifest,
                        line,
                        f"check '{check.id}': reopened_by names unknown fact '{fact}'{did_you_mean(fact, pack.facts)}",
                    )
                )
    return problems


def _outcome_problems(
    pack: RulePack, manifest: Path, known: set[tuple[str, int]], outcome_names: set[str]
) -> list[PackError]:
    """Each declared outcome is concluded by something, and its sentences' slots are values of the case."""
    value_names = set(pack.facts) | {c.output for c in pack.computations} | set(pack.parameters)
    template_values = value_names | {"reason"}
    remedy_outcome = pack.manifest.remedy.outcome if pack.manifest.remedy else None
    problems: list[PackError] = []
    for atom, ospec in pack.manifest.outcomes.items():
        line = _mline(manifest, f"{atom}:")
        if atom != remedy_outcome and (atom, 0) not in known:
            problems.append(
                PackError(manifest, line, f"outcome '{atom}': nothing concludes it{did_you_mean(atom, outcome_names)}")
            )
        for template in (ospec.affirmative, ospec.negative, ospec.question):
            for slot in slots(template or ""):
                if slot not in template_values:
                    problems.append(
                        PackError(
                            manifest,
                            _find_line(manifest, line, "{" + slot + "}"),
                            f"outcome '{atom}': template slot '{{{slot}}}' is not a fact, value or parameter"
                            f"{did_you_mean(slot, template_values)}",
                        )
                    )
    return problems


def _other_file_problems(
    pack: RulePack, manifest: Path, known: set[tuple[str, int]], outcome_names: set[str]
) -> list[PackError]:
    """The pack's other files: parameters, rule tests, properties, RULES.md, soft rules, the claim→fact map
    (claims.yaml, issue 16) and perception's readers (extraction.yaml, issue 18)."""
    from lexlogic.engine.claims.fact_map import map_problems
    from lexlogic.logic.extraction import extraction_problems

    problems = _parameter_problems(pack, manifest)
    problems += _test_problems(pack, outcome_names)
    problems += _property_problems(pack, outcome_names)
    problems += _rules_md_problems(pack)
    problems += _soft_rule_problems(pack, {n for n, a in known if a == 0})
    problems += map_problems(pack)
    problems += [PackError(f, line, msg) for f, line, msg in extraction_problems(pack.root, pack.facts)]
    problems += _calibration_problems(pack, manifest)
    return problems


def _calibration_problems(pack: RulePack, manifest: Path) -> list[PackError]:
    """The reader's calibration (issue 29): the file pack.yaml points at exists and parses, and it shifts
    only facts the pack has (a renamed fact would silently keep its old shift)."""
    from lexlogic.engine.perception.calibration import load
    from lexlogic.logic.errors import LexlogicError

    pointer = pack.manifest.files.calibration
    path = pack.root / (pointer or "calibration/reader.yaml")
    if pointer and not path.is_file():
        return [
            PackError(manifest, _mline(manifest, "calibration:"), f"files.calibration: {pointer} is not in the pack")
        ]
    try:
        calibration = load(pack.root, pointer)
    except LexlogicError as exc:
        return [PackError(path, None, str(exc).removeprefix(f"{path}: "))]
    if calibration is None:
        return []
    return [
        PackError(path, _find_line(path, 1, f"{fact}:"), f"calibration shifts unknown fact {fact!r}")
        for fact in calibration.by_fact
        if fact not in pack.facts
    ]


def _soft_rule_problems(pack: RulePack, atoms: set[str]) -> list[PackError]:
    """weights.yaml's Alexy soft rules: a condition that names no yes/no atom of the pack is a balancing
    the model silently ignores (its factor is constant), so the judge's sliders would move nothing."""
    if not pack.manifest.files.weights:
        return []
    path = pack.root / pack.manifest.files.weights
    try:
        weights = load_weights(path)
    except WeightsError as exc:
        return [PackError(path, None, str(exc).removeprefix(f"{path}: "))]
    out: list[PackError] = []
    for rule in weights.soft_rules:
        if rule.condition_atom in atoms:
            continue
        line = _find_line(path, _find_line(path, 1, f"id: {rule.id}"), "condition:")
        out.append(
            PackError(
                path,
                line,
                f"soft rule {rule.id}: condition '{rule.condition_atom}' names nothing (not a yes/no fact, "
                f"a rule's conclusion nor a computed yes/no value): the balancing would weigh nothing"
                f"{did_you_mean(rule.condition_atom, atoms)}",
            )
        )
    return out


def _parameter_problems(pack: RulePack, manifest: Path) -> list[PackError]:
    out: list[PackError] = []
    referenced: set[str] = set()
    for spec in pack.manifest.outcomes.values():  # templates may print a parameter
        for template in (spec.affirmative, spec.negative, spec.question):
            referenced |= set(slots(template or ""))
    if pack.manifest.remedy is not None:
        remedy = pack.manifest.remedy
        for template in (remedy.sentence, remedy.missing_sentence, remedy.exact_sentence):
            referenced |= set(slots(template or ""))
    for file, line, name in pack.parameter_refs:
        referenced.add(name)
        if name not in pack.parameters:
            out.append(
                PackError(
                    file,
                    _find_line(file, line, name) if line else line,
                    f"undefined parameter '{name}'{did_you_mean(name, pack.parameters)}",
                )
            )
    for name, p in pack.parameters.items():
        if name not in referenced:
            out.append(
                PackError(
                    p.file,
                    _find_line(p.file, 1, f" {name}:"),
                    f"parameter '{name}' is never used (no computation, label or property refers to it)",
                )
            )
        for period in p.values:
            ref = period.reference or p.reference
            if ref not in pack.manifest.sources:
                out.append(
                    PackError(
                        p.file,
                        period.line or p.line,
                        f"parameter '{name}': unknown source '{ref}'{did_you_mean(ref, pack.manifest.sources)}",
                    )
                )
        if p.date_fact and p.date_fact not in pack.facts and pack.computation_for(p.date_fact) is None:
            out.append(PackError(p.file, p.line, f"parameter '{name}': unknown date fact '{p.date_fact}'"))
    if (
        pack.parameters
        and not any(p.constant for p in pack.parameters.values())
        or any(not p.constant for p in pack.parameters.values())
    ):
        fact = pack.parameters_date_fact or (pack.manifest.versions.date_fact if pack.manifest.versions else None)
        if fact is None and any(not p.constant and not p.date_fact for p in pack.parameters.values()):
            first = next(p for p in pack.parameters.values() if not p.constant)
            out.append(
                PackError(
                    first.file,
                    1,
                    "dated parameters need the date that selects their period: `date_fact:` at the top of the file",
                )
            )
        elif fact is not None and fact not in pack.facts and pack.computation_for(fact) is None:
            out.append(
                PackError(
                    next(iter(pack.parameters.values())).file,
                    1,
                    f"unknown date fact '{fact}'{did_you_mean(fact, pack.facts)}",
                )
            )
    return out


def _test_problems(pack: RulePack, outcome_names: set[str]) -> list[PackError]:
    """The pack's rule tests (tests/*.yaml): each names only facts, values, outcomes and rule ids the pack has."""
    out: list[PackError] = []
    tests_dir = pack.root / pack.manifest.files.tests
    rule_ids: set[str] = set()
    for text in pack.asp_sources.values():
        rule_ids |= set(re.findall(r"%@\s*\{\s*id:\s*([A-Za-z0-9_]+)", text))
    for path in sorted(tests_dir.glob("*.yaml")) if tests_dir.exists() else []:
        try:
            tests: list[RuleTest] = load_tests(path)
        except PackError as exc:
            out.append(exc)
            continue
        for test in tests:
            out += _test_fact_problems(pack, path, test)
            out += _test_name_problems(pack, path, test, outcome_names, rule_ids)
    return out


def _test_fact_problems(pack: RulePack, path: Path, test: RuleTest) -> list[PackError]:
    """A rule test's facts and answers: declared facts, with values of their type."""
    out: list[PackError] = []
    for fname, value in [*test.facts.items(), *test.answers.items()]:
        line = _find_line(path, test.line, f"{fname}:")
        if fname not in pack.facts:
            out.append(
                PackError(path, line, f"test '{test.name}': unknown fact '{fname}'{did_you_mean(fname, pack.facts)}")
            )
        elif value is not None:
            try:
                _check_test_value(pack.facts[fname], value)
            except ValueError as exc:
                out.append(PackError(path, line, f"test '{test.name}': fact '{fname}': {exc}"))
    return out


def _test_name_problems(
    pack: RulePack, path: Path, test: RuleTest, outcome_names: set[str], rule_ids: set[str]
) -> list[PackError]:
    """A rule test's expectations: known outcomes, values, missing facts and rule ids; damages only with a remedy."""
    values = set(pack.facts) | {c.output for c in pack.computations} | set(pack.parameters)
    outcomes = set(pack.manifest.outcomes) | {c.outcome for c in pack.manifest.checks} | {pack.manifest.target}
    computation_ids = {c.id for c in pack.computations}
    out: list[PackError] = []

    def problem(needle: str, message: str) -> None:
        out.append(PackError(path, _find_line(path, test.line, needle), f"test '{test.name}': {message}"))

    for atom in [*test.expect, *test.absent, *test.missing, *test.rule_in_proof]:
        if atom not in outcomes and atom not in outcome_names:
            problem(f"{atom}:", f"unknown outcome '{atom}'{did_you_mean(atom, outcomes | outcome_names)}")
    for name in test.values:
        if name not in values:
            problem(f"{name}:", f"unknown value '{name}'{did_you_mean(name, values)}")
    for f in (f for facts in test.missing.values() for f in facts):
        if f not in pack.facts:
            problem(f, f"missing names unknown fact '{f}'{did_you_mean(f, pack.facts)}")
    for rid in test.rule_in_proof.values():
        if rid not in rule_ids and pack.computation_for(rid) is None and rid not in computation_ids:
            problem(rid, f"unknown rule id '{rid}'{did_you_mean(rid, rule_ids)}")
    if test.damages is not None and pack.manifest.remedy is None:
        problem("damages:", "`damages` but the pack declares no remedy")
    return out


def _property_problems(pack: RulePack, outcome_names: set[str]) -> list[PackError]:
    if not pack.manifest.files.properties:
        return []
    path = pack.root / pack.manifest.files.properties
    if not path.exists():
        return [PackError(pack.root / "pack.yaml", None, f"declared properties file does not exist: {path.name}")]
    try:
        specs: list[PropertySpec] = load_properties(path, pack.parameters)
    except PackError as exc:
        return [exc]
    out: list[PackError] = []
    values = set(pack.facts) | {c.output for c in pack.computations}
    outcomes = outcome_names | set(pack.manifest.outcomes)
    for spec in specs:

        def at(needle: str, s: PropertySpec = spec) -> int:
            return _find_line(path, s.line, needle)

        for fname, constraint in spec.when.items():
            if fname not in pack.facts:
                out.append(
                    PackError(
                        path,
                        at(f"{fname}:"),
                        f"property {spec.id}: unknown fact '{fname}'{did_you_mean(fname, pack.facts)}",
                    )
                )
                continue
            bounds = [constraint.get("min"), constraint.get("max")] if isinstance(constraint, dict) else [constraint]
            for b in bounds:
                if isinstance(b, str) and _DATE_LIKE.match(b) and (why := _bad_date(b)):
                    out.append(PackError(path, at(b), f"property {spec.id}: impossible date '{b}' ({why})"))
        for atom in spec.then:
            if atom not in outcomes:
                out.append(
                    PackError(
                        path,
                        at(f"{atom}:"),
                        f"property {spec.id}: unknown outcome '{atom}'{did_you_mean(atom, outcomes)}",
                    )
                )
        if spec.watch is not None and spec.watch not in outcomes and spec.watch not in values:
            out.append(
                PackError(
                    path,
                    at("watch"),
                    f"property {spec.id}: watches unknown outcome or value '{spec.watch}'{did_you_mean(spec.watch, outcomes | values)}",
                )
            )
        if spec.vary is not None and spec.vary not in pack.facts:
            out.append(
                PackError(
                    path,
                    at("vary"),
                    f"property {spec.id}: varies unknown fact '{spec.vary}'{did_you_mean(spec.vary, pack.facts)}",
                )
            )
    return out


def _rules_md_problems(pack: RulePack) -> list[PackError]:
    from lexlogic.engine.workbench.docs import pack_table

    path = pack.root / "RULES.md"
    try:
        current = pack_table(pack.root)
    except PackError as exc:
        return [exc]
    if not path.exists():
        return [PackError(path, None, f"missing: run `lexlogic docs {pack.root} --write`")]
    written = path.read_text(encoding="utf-8")
    if written == current:
        return []
    a, b = written.splitlines(), current.splitlines()
    line = next((i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)) + 1)
    return [
        PackError(path, line, f"stale: differs from the pack's files here; run `lexlogic docs {pack.root} --write`")
    ]


def _check_test_value(spec: Any, value: Any) -> None:
    """A test's fact: a plain value, or the case file's long form ``{value, allegation, alleged_by}`` (so a test
    can say "alleged by the defence, contested" as a case file does)."""
    if isinstance(value, dict) and "value" in value:
        extra = sorted(set(value) - {"value", "allegation", "alleged_by", "confidence", "note"})
        if extra:
            raise ValueError(f"unknown key(s) {extra} (a fact's long form takes value, allegation, alleged_by)")
        allegation = value.get("allegation")
        allowed = [a.value for a in Allegation]
        if allegation is not None and allegation not in allowed:
            raise ValueError(f"allegation {allegation!r} is not one of {allowed}")
        if value.get("alleged_by") not in (None, "claimant", "defence"):
            raise ValueError(f"alleged_by {value.get('alleged_by')!r} is not claimant or defence")
        if value["value"] is not None:
            check_value(spec, value["value"])
        return
    check_value(spec, value)
