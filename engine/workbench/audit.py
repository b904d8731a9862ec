"""A pack's static audit: gaps, conflicts, dead rules and shadowed exceptions over every combination of
its input facts, with clingo as the search engine (``bridges/clingo_audit.py``).

What "every combination" means: each yes/no input atom and each enum of the ASP program is a free choice,
the booleans COMPUTED by JSON-Logic included (an abstraction: two computed booleans that their common
inputs tie together are searched as if independent, so a finding that needs an impossible pair of them
can be spurious — each finding says which computed values it assumes). Within that search:

- *gap*: a complete assignment under which an outcome the pack decides stays unknown (two answer sets
  disagree on it) although every fact, the judge's appreciations included, is fixed;
- *conflict*: an assignment that violates an integrity constraint, derives an atom and its classical
  negation, or concludes the target while a check the pack declares fatal (``fatal_if``) stops the analysis;
- *dead rule*: a rule that fires under no assignment;
- *shadowed exception*: ``not e`` in a rule's body that is never decisive: whenever the rest of the body
  holds, ``e`` cannot hold;
- *value gap* (JSON-Logic level, ``value_gaps``): a computed value left open with every input known because a
  parameter has no value at the case's date — found from the pack's test cases moved into the holes of the
  parameters' periods, so not exhaustive.

Accepted findings live in the pack's ``audit.yaml`` with their reason. The pack is passed in, loaded.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from lexlogic.bridges import clingo_audit as search
from lexlogic.bridges.clingo_bridge import APP, CompiledProgram, CompiledRule
from lexlogic.engine.workbench.value_gaps import ValueGap, value_gaps
from lexlogic.logic import yaml_load
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import FactType, PackError, RulePack

Kind = Literal["gap", "conflict", "dead_rule", "shadowed_exception", "value_gap", "incomplete"]
GAP = "__gap"
FATAL = "__fatal"
AUDIT_FILE = "audit.yaml"


class Accepted(BaseModel):
    """A finding the pack's authors accept, with their reason (``audit.yaml``)."""

    kind: Kind
    subject: str = Field(description="rule id, outcome, check id or constraint (as the finding names it)")
    reason: str = Field(min_length=3)


class AuditConfig(BaseModel):
    """``audit.yaml``: the outcomes that must be decided, the time budget, the accepted findings."""

    model_config = {"extra": "forbid"}
    outcomes: list[str] | None = Field(default=None, description="default: every outcome the rules define")
    time_limit_s: float = 60.0
    accepted: list[Accepted] = Field(default_factory=new_list)


class AuditFinding(BaseModel):
    kind: Kind
    subject: str
    message: str
    rules: list[str] = Field(default_factory=new_list, description="file:line rule-id of the rules involved")
    counterexample: dict[str, Any] | None = Field(default=None, description="a facts file (pack, case_id, facts)")
    assumed: dict[str, bool] = Field(default_factory=dict, description="computed booleans the witness assumes")
    accepted: str | None = None


class AuditReport(BaseModel):
    pack: str
    findings: list[AuditFinding]
    complete: bool
    stale: list[Accepted] = Field(default_factory=new_list, description="accepted in audit.yaml, no longer found")

    @property
    def open_findings(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.accepted is None]


def load_config(pack: RulePack) -> AuditConfig:
    path = pack.root / AUDIT_FILE
    if not path.exists():
        return AuditConfig()
    try:
        data = yaml_load.safe_load(path.read_text(encoding="utf-8")) or {}
        return AuditConfig.model_validate(data)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise PackError(path, mark.line + 1 if mark else None, f"invalid YAML: {exc}") from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise PackError(path, None, f"{where}: {err['msg']}") from exc


def _subject(rule: CompiledRule) -> str:
    """A rule's name in findings and ``audit.yaml``: its id, else ``file.lp:line``."""
    return rule.meta.id if rule.meta else f"{Path(rule.file).name}:{rule.line}"


def _where(rule: CompiledRule) -> str:
    return f"{rule.file}:{rule.line} ({_subject(rule)})"


def tied_booleans(pack: RulePack, program: CompiledProgram) -> list[list[str]]:
    """Groups of the program's yes/no inputs computed by the SAME JSON-Logic (same logic, same inputs), each
    output defined by that one computation: always equal, whatever the case. The in-force literals of dated
    rules that share a period and a relevant date are such groups (``logic.validity``)."""
    defined = Counter(c.output for c in pack.computations)
    by_logic: dict[str, list[str]] = {}
    for c in pack.computations:
        if c.type is FactType.BOOL and c.output in program.inputs.booleans and defined[c.output] == 1:
            key = json.dumps([c.logic, sorted(c.inputs)], sort_keys=True, default=str)
            by_logic.setdefault(key, []).append(c.output)
    return [sorted(group) for group in by_logic.values() if len(group) > 1]


class _Auditor:
    """One audit run: the pack, its program, the shared time budget."""

    def __init__(self, pack: RulePack, program: CompiledProgram, config: AuditConfig, budget: float | None) -> None:
        self.pack = pack
        self.program = program
        self.config = config
        self.budget = search.AuditBudget(budget if budget is not None else config.time_limit_s)
        self.complete = True
        self.inputs = list(program.inputs.booleans) + [
            f"{name}({v})" for name, values in program.inputs.enums.items() for v in values
        ]
        self.ties = search.ties(tied_booleans(pack, program))
        self.source = search.audit_program(program) + "\n" + self.ties

    def outcomes(self) -> list[str]:
        declared = self.config.outcomes
        if declared is None:
            declared = list(dict.fromkeys([self.pack.manifest.target, *self.pack.manifest.outcomes]))
        return [o for o in declared if (o, 0) in self.program.defined]

    def fatal_checks(self) -> list[tuple[str, str, str]]:
        target = self.pack.manifest.target
        return [
            (c.id, c.outcome, c.fatal_if)
            for c in self.pack.manifest.checks
            if c.fatal_if and c.outcome != target and (c.outcome, 0) in self.program.defined
        ]

    # ------------------------------------------------------------------ counterexamples
    def groups(self, assignment: dict[str, bool], names: set[str] | None = None) -> dict[str, dict[str, bool]]:
        out: dict[str, dict[str, bool]] = {}
        for atom, value in assignment.items():
            name = atom.split("(", 1)[0]
            if names is None or name in names:
                out.setdefault(name, {})[atom] = value
        return out

    def facts_file(self, subject: str, groups: dict[str, dict[str, bool]]) -> tuple[dict[str, Any], dict[str, bool]]:
        facts: dict[str, Any] = {}
        assumed: dict[str, bool] = {}
        for name, atoms in sorted(groups.items()):
            if self.pack.value_type(name) is FactType.ENUM:
                chosen = [a for a, v in atoms.items() if v]
                if chosen:
                    facts[name] = chosen[0][len(name) + 1 : -1]
            elif name in self.pack.facts:
                facts[name] = atoms[name]
            else:
                assumed[name] = atoms[name]
        case = {"pack": self.pack.name, "case_id": f"audit-{subject}", "facts": facts}
        return case, assumed

    def counterexample(self, goal: str, subject: str, names: set[str] | None = None) -> tuple[Any, dict[str, bool]]:
        found = search.witness(self.source_with_probes, goal, self.inputs, self.budget)
        if found is None:
            return None, {}
        groups = search.shrink(self.source_with_probes, goal, self.groups(found, names), self.budget)
        return self.facts_file(subject, groups)

    def fired(self, witness: dict[str, Any], assumed: dict[str, bool]) -> set[int]:
        """Rules that fire in the witness facts file (the JSON the audit writes; unnamed inputs false), on the
        pack's own case solver."""
        assignment: dict[str, bool | None] = {
            f"{name}({v})": None for name, values in self.program.inputs.enums.items() for v in values
        }  # an enum the witness does not name stays free (all-false violates its exactly-one constraint)
        for name, value in {**witness["facts"], **assumed}.items():
            if self.pack.value_type(name) is FactType.ENUM:
                for v in self.program.inputs.enums.get(name, ()):
                    assignment[f"{name}({v})"] = v == value
            else:
                assignment[name] = bool(value)
        solution = self.program.solve(assignment)
        return set(solution.applications)

    # ------------------------------------------------------------------ the four searches
    def run(self) -> list[AuditFinding]:
        fatal = search.fatal_probes(self.pack.manifest.target, self.fatal_checks(), FATAL)
        self.source_with_probes = self.source + "\n" + fatal
        wanted = {APP, search.EXCEPTION, search.VIOLATED, search.CLASH, FATAL}
        possible = search.brave(self.source_with_probes, wanted, self.budget)
        if not possible.complete:
            return [self.incomplete("brave consequences (dead rules, exceptions, conflicts)")]
        findings = self.conflicts(possible.possible)
        findings += self.dead_rules(possible.possible)
        findings += self.shadowed(possible.possible)
        findings += self.gaps()
        return findings

    def incomplete(self, what: str) -> AuditFinding:
        self.complete = False
        return AuditFinding(
            kind="incomplete", subject=what, message=f"time budget spent before the search for {what} ended"
        )

    def conflicts(self, possible: frozenset[str]) -> list[AuditFinding]:
        findings: list[AuditFinding] = []
        for atom in sorted(possible):
            if atom.startswith(search.VIOLATED + "("):
                rule = self.program.rules[int(atom[len(search.VIOLATED) + 1 : -1])]
                case, assumed = self.counterexample(atom, f"constraint-{rule.line}")
                findings.append(
                    AuditFinding(
                        kind="conflict",
                        subject=_subject(rule),
                        message=f"an assignment violates the constraint {rule.text!r}: no answer set",
                        rules=[_where(rule)],
                        counterexample=case,
                        assumed=assumed,
                    )
                )
            elif atom.startswith(FATAL + "("):
                findings.append(self.fatal_conflict(atom))
            elif atom.startswith(search.CLASH + "("):
                inner = atom[len(search.CLASH) + 1 : -1]
                case, assumed = self.counterexample(atom, f"clash-{inner}")
                rules = [_where(r) for r in self.program.rules if any(s[0] == inner for s in r.head_signatures)]
                msg = f"{inner} and -{inner} are both derived: no answer set"
                findings.append(
                    AuditFinding(
                        kind="conflict", subject=inner, message=msg, rules=rules, counterexample=case, assumed=assumed
                    )
                )
        return findings

    def fatal_conflict(self, atom: str) -> AuditFinding:
        check_id = json.loads(atom[len(FATAL) + 1 : -1])
        check = next(c for c in self.pack.manifest.checks if c.id == check_id)
        target = self.pack.manifest.target
        case, assumed = self.counterexample(atom, f"conflict-{check_id}")
        fired = self.fired(case, assumed) if case else set()
        rules = [
            _where(r)
            for r in self.program.rules
            if r.index in fired and any(s[0] in (target, check.outcome) for s in r.head_signatures)
        ]
        says = "holds" if check.fatal_if == "yes" else "does not hold"
        return AuditFinding(
            kind="conflict",
            subject=check_id,
            message=f"{target} is concluded while {check.outcome} {says}, which the check {check_id!r} declares fatal",
            rules=rules,
            counterexample=case,
            assumed=assumed,
        )

    def dead_rules(self, possible: frozenset[str]) -> list[AuditFinding]:
        alive = {int(a[len(APP) + 1 :].split(",", 1)[0]) for a in possible if a.startswith(APP + "(")}
        findings = []
        for rule in self.program.rules:
            if rule.is_constraint or rule.index in alive:
                continue
            findings.append(
                AuditFinding(
                    kind="dead_rule",
                    subject=_subject(rule),
                    message=f"fires under no combination of the inputs: {rule.text}",
                    rules=[_where(rule)],
                )
            )
        return findings

    def shadowed(self, possible: frozenset[str]) -> list[AuditFinding]:
        alive = {int(a[len(APP) + 1 :].split(",", 1)[0]) for a in possible if a.startswith(APP + "(")}
        findings = []
        for rule in self.program.rules:
            if rule.index not in alive:
                continue  # a dead rule is reported as such
            for k, lit in enumerate(rule.lits):
                if not lit.negated or lit.kind != "atom" or lit.text.startswith("not not"):
                    continue
                if f"{search.EXCEPTION}({rule.index},{k})" in possible:
                    continue
                findings.append(
                    AuditFinding(
                        kind="shadowed_exception",
                        subject=f"{_subject(rule)}:{lit.node}",
                        message=f"the exception '{lit.text}' never decides: when the rest of the body holds, "
                        f"{lit.node} cannot hold",
                        rules=[_where(rule)]
                        + [
                            _where(r)
                            for r in self.program.rules
                            if any(s[0] == str(lit.node).split("(")[0] for s in r.head_signatures)
                        ],
                    )
                )
        return findings

    def gaps(self) -> list[AuditFinding]:
        outcomes = self.outcomes()
        twin = search.twin_program(self.program, outcomes, GAP) + "\n" + self.ties
        found = search.brave(twin, {GAP}, self.budget)
        if not found.complete:
            return [self.incomplete("gaps")]
        undecided = {json.loads(a[len(GAP) + 1 : -1]) for a in found.possible}
        cones = {o: search.cone(self.program, o) for o in undecided}
        findings = []
        for outcome in sorted(undecided):
            if any(other != outcome and other in cones[outcome] for other in undecided):
                continue  # undecided because an outcome it rests on is: reported there
            atom = f"{GAP}({json.dumps(outcome)})"
            case, assumed = self._gap_witness(twin, atom, outcome)
            rules = [_where(r) for r in self.program.rules_for(outcome, 0)]
            downstream = sorted(o for o in undecided if o != outcome and outcome in cones[o])
            findings.append(
                AuditFinding(
                    kind="gap",
                    subject=outcome,
                    message=f"{outcome} stays undecided (two answer sets disagree) with every input fixed"
                    + (f"; so do {', '.join(downstream)}, which rest on it" if downstream else ""),
                    rules=rules,
                    counterexample=case,
                    assumed=assumed,
                )
            )
        return findings

    def _gap_witness(self, twin: str, goal: str, outcome: str) -> tuple[Any, dict[str, bool]]:
        found = search.witness(twin, goal, self.inputs, self.budget)
        if found is None:
            return None, {}
        names = search.cone(self.program, outcome)  # only the inputs the outcome depends on
        return self.facts_file(f"gap-{outcome}", self.groups(found, names))


def audit_pack(
    pack: RulePack, program: CompiledProgram, time_limit_s: float | None = None, *, values: bool = True
) -> AuditReport:
    """Audit a loaded pack; findings accepted in its ``audit.yaml`` carry their reason. ``values=False``: the
    clingo searches only (no value gaps: they run the pack's test cases, seconds per pack)."""
    config = load_config(pack)
    auditor = _Auditor(pack, program, config, time_limit_s)
    findings = auditor.run() + ([_value_gap(pack, g) for g in value_gaps(pack)] if values else [])
    used: set[int] = set()
    for finding in findings:
        for i, acc in enumerate(config.accepted):
            if acc.kind == finding.kind and acc.subject == finding.subject:
                finding.accepted = acc.reason
                used.add(i)
    stale = [a for i, a in enumerate(config.accepted) if i not in used] if auditor.complete else []
    return AuditReport(pack=pack.name, findings=findings, complete=auditor.complete, stale=stale)


def _value_gap(pack: RulePack, gap: ValueGap) -> AuditFinding:
    periods = ", ".join(
        f"{x.valid_from or '…'}→{x.valid_to or '…'}" for x in (pack.parameters or {})[gap.parameter].values
    )
    return AuditFinding(
        kind="value_gap",
        subject=gap.parameter,
        message=f"{gap.output} ({gap.computation}) is left open for a case dated {gap.hole}: the parameter "
        f"{gap.parameter} has no value then (periods {periods}); the test {gap.witness} computes it at its own date",
        rules=[f"{gap.where} ({gap.computation})"],
        counterexample=gap.case,
    )


def write_counterexamples(report: AuditReport, folder: Path) -> list[Path]:
    """Each finding's counterexample as a facts file under ``folder`` (``lexlogic analyze`` reads it)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for n, finding in enumerate(report.findings, start=1):
        if finding.counterexample is None:
            continue
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in finding.subject)
        path = folder / f"{n:02d}-{finding.kind}-{safe}.json"
        path.write_text(json.dumps(finding.counterexample, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written
