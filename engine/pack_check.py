"""`lexlogic check`: every problem of a pack, each as `file:line: message`.

Reads the files (logic/), parses and compiles the ASP with clingo (bridges/), then cross-checks:
unknown predicates, JSON-Logic operators outside the allow-list, rules or computations without a
legal source or citing an unknown one, checks whose outcome nothing concludes.
"""

from __future__ import annotations

from pathlib import Path

from lexlogic.engine.packs import compile_loaded as compile_pack
from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.pack import FactType, PackError, load_pack
from lexlogic.logic.ruletests import load_properties, load_tests


def check_pack(root: Path) -> list[PackError]:
    try:
        pack = load_pack(root)
    except PackError as exc:
        return [exc]
    problems: list[PackError] = []
    manifest = root / "pack.yaml"
    try:
        program = compile_pack(pack)
    except PackError as exc:
        return [exc]

    # what may appear in rule bodies
    known: set[tuple[str, int]] = set(program.defined)
    for name, spec in pack.facts.items():
        if spec.type is FactType.BOOL:
            known.add((name, 0))
        elif spec.type is FactType.ENUM:
            known.add((name, 1))
        if spec.default is not None and spec.burden is None:
            problems.append(
                PackError(root / pack.manifest.files.facts, None, f"fact '{name}' has a default but no burden of proof")
            )
    outputs: set[str] = set()
    for comp in pack.computations:
        comp_file = Path(comp.file) if comp.file else root / "pack.yaml"
        if comp.type is FactType.BOOL:
            known.add((comp.output, 0))
        try:
            jsonlogic_policy.validate(comp.logic, f"computation {comp.id}")
        except jsonlogic_policy.JsonLogicPolicyError as exc:
            problems.append(PackError(comp_file, comp.line, str(exc)))
        for var in sorted(jsonlogic_policy.variables_used(comp.logic) | set(comp.inputs)):
            if var not in pack.facts and var not in outputs and var not in pack.parameters:
                problems.append(
                    PackError(
                        comp_file,
                        comp.line,
                        f"computation {comp.id} reads unknown value '{var}' "
                        "(not a fact, nor the output of an earlier computation)",
                    )
                )
        if not comp.sources:
            problems.append(PackError(comp_file, comp.line, f"computation {comp.id} has no legal source"))
        for sid in comp.sources:
            if sid not in pack.manifest.sources:
                problems.append(PackError(comp_file, comp.line, f"computation {comp.id} cites unknown source '{sid}'"))
        outputs.add(comp.output)

    for (name, arity), (file, line) in sorted(program.used.items(), key=lambda kv: kv[1]):
        if (name, arity) not in known and not name.startswith("__"):
            problems.append(
                PackError(
                    file,
                    line,
                    f"unknown predicate {name}/{arity}: no rule concludes it and "
                    "it is not a declared fact or computed boolean",
                )
            )
    seen_ids: dict[str, tuple[str, int]] = {}
    for rule in program.rules:
        meta = rule.meta
        if meta is None:
            continue
        if meta.id in seen_ids and seen_ids[meta.id] != (meta.file, meta.line):
            problems.append(PackError(meta.file, meta.line, f"duplicate rule id '{meta.id}'"))
        seen_ids[meta.id] = (meta.file, meta.line)
        if not meta.sources:
            problems.append(PackError(meta.file, meta.line, f"rule {meta.id} has no legal source"))
        for sid in meta.sources:
            if sid not in pack.manifest.sources:
                problems.append(PackError(meta.file, meta.line, f"rule {meta.id} cites unknown source '{sid}'"))
    remedy = pack.manifest.remedy
    if remedy is not None:
        for name in (remedy.low, remedy.high):
            if name not in outputs:
                problems.append(PackError(manifest, None, f"remedy: '{name}' is not the output of a computation"))
    if pack.manifest.versions is not None:
        v = pack.manifest.versions
        if v.date_fact not in pack.facts:
            problems.append(PackError(manifest, None, f"versions: unknown date fact '{v.date_fact}'"))
        for text in v.texts:
            if text.source not in pack.manifest.sources:
                problems.append(PackError(manifest, None, f"versions: unknown source '{text.source}'"))
            if (text.outcome, 0) not in known:
                problems.append(PackError(manifest, None, f"versions: nothing concludes '{text.outcome}'"))
    remedy_outcome = remedy.outcome if remedy else None
    for check in pack.manifest.checks:
        if check.outcome != remedy_outcome and (check.outcome, 0) not in known:
            problems.append(PackError(manifest, None, f"check '{check.id}': nothing concludes '{check.outcome}'"))
    for atom in pack.manifest.outcomes:
        if atom != remedy_outcome and (atom, 0) not in known:
            problems.append(PackError(manifest, None, f"outcome '{atom}': nothing concludes it"))
    tests_dir = root / pack.manifest.files.tests
    for path in sorted(tests_dir.glob("*.yaml")) if tests_dir.exists() else []:
        try:
            for test in load_tests(path):
                for fname in test.facts:
                    if fname not in pack.facts:
                        problems.append(PackError(path, test.line, f"test '{test.name}': unknown fact '{fname}'"))
        except PackError as exc:
            problems.append(exc)
    if pack.manifest.files.properties:
        try:
            load_properties(root / pack.manifest.files.properties)
        except PackError as exc:
            problems.append(exc)
    return problems
