"""`lexlogic audit`: the shipped packs pass; a planted gap, conflict and dead rule are found in copies."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.workbench.audit import audit_pack
from lexlogic.logic.facts import parse_case
from tests.workbench.planted import PLANTS, RULES, SHIPPED, copy_pack, get_pack, plant

runner = CliRunner()


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_pack_has_no_open_finding(name: str) -> None:
    pack, program = get_pack(RULES / name)
    report = audit_pack(pack, program, time_limit_s=120)
    assert report.complete, "the audit ran out of time"
    assert report.open_findings == [], "\n".join(
        f"{f.kind} {f.subject}: {f.message} {f.rules}" for f in report.open_findings
    )
    assert report.stale == [], f"audit.yaml accepts findings no longer found: {report.stale}"


@pytest.mark.parametrize(("name", "kind"), [(n, k) for n in PLANTS for k in ("gap", "conflict", "dead_rule")])
def test_planted_mistake_is_found(tmp_path: Path, name: str, kind: str) -> None:
    root = copy_pack(name, tmp_path)
    subject = plant(root, kind)
    pack, program = get_pack(root)
    report = audit_pack(pack, program, time_limit_s=120, values=False)  # the planted mistakes are in the ASP
    assert report.complete
    found = [f for f in report.findings if f.kind == kind and f.subject == subject]
    assert found, [(f.kind, f.subject) for f in report.findings]
    finding = found[0]
    assert any(":" in r and str(root) in r for r in finding.rules), finding.rules
    if kind != "dead_rule":
        assert finding.counterexample is not None
        parse_case(finding.counterexample, pack)  # a valid facts file of the pack
        # oracle: the pack's own case solver (externals, not the audit's choice program) on the witness
        solution = program.solve(_assignment(program, {**finding.counterexample["facts"], **finding.assumed}))
        target = pack.manifest.target
        if kind == "conflict":
            check = next(c for c in pack.manifest.checks if c.id == subject)
            assert solution.status(target) is True
            assert solution.status(check.outcome) is (check.fatal_if == "yes")
        else:
            assert solution.status(subject) is None, "two answer sets must disagree on the outcome"
    # the unplanted pack has none of these
    clean, clean_program = get_pack(RULES / name)
    assert not [f for f in audit_pack(clean, clean_program, values=False).findings if f.subject == subject]


def _assignment(program, values: dict) -> dict[str, bool | None]:  # type: ignore[no-untyped-def]
    out: dict[str, bool | None] = {a: False for a in program.inputs.booleans}
    for enum, options in program.inputs.enums.items():
        for v in options:
            out[f"{enum}({v})"] = (values[enum] == v) if enum in values else None
    for name, value in values.items():
        if name not in program.inputs.enums:
            out[name] = bool(value)
    return out


def test_dead_rule_against_brute_force(tmp_path: Path) -> None:
    """Oracle: every assignment of the inputs the planted rule's body depends on, on the case solver."""
    root = copy_pack("late_payment", tmp_path)
    plant(root, "dead_rule")
    pack, program = get_pack(root)
    rule = next(r for r in program.rules if r.meta and r.meta.id == "P_planted_dead")
    alive = next(r for r in program.rules if r.meta and r.meta.id == "P_penalties")
    inputs = ["paid_late", "professional_parties", "public_buyer", "prescribed", "interest_runs"]  # issue 31: L.622-28
    fired: set[int] = set()
    for values in itertools.product([False, True], repeat=len(inputs)):
        assignment = _assignment(program, dict(zip(inputs, values, strict=True)))
        fired |= set(program.solve(assignment).applications)
    assert rule.index not in fired and alive.index in fired
    report = audit_pack(pack, program, values=False)
    dead = {f.subject for f in report.findings if f.kind == "dead_rule"}
    assert dead == {"P_planted_dead"}


def test_accepted_finding_with_reason_and_cli_exit(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    plant(root, "dead_rule")
    result = runner.invoke(app, ["audit", str(root), "--write", str(tmp_path / "cx")])
    assert result.exit_code == 1, result.output
    assert "P_planted_dead" in result.output and "OPEN" in result.output
    accepted = root / "audit.yaml"  # the pack's own acceptances (its value gaps) kept, one more added
    accepted.write_text(
        accepted.read_text(encoding="utf-8")
        + '  - {kind: dead_rule, subject: P_planted_dead, reason: "kept as documentation of the old text"}\n'
    )
    result = runner.invoke(app, ["audit", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data[0]["findings"][0]["accepted"] == "kept as documentation of the old text"


def test_conflict_counterexample_is_written_and_minimal(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    plant(root, "conflict")
    result = runner.invoke(app, ["audit", str(root), "--write", str(tmp_path / "cx")])
    assert result.exit_code == 1
    files = sorted((tmp_path / "cx" / "late_payment").glob("*conflict-prescription.json"))
    assert files, result.output
    case = json.loads(files[0].read_text())
    assert case["facts"] == {"public_buyer": True}  # everything else dropped: the finding does not need it


def test_time_budget_is_reported_not_silent(tmp_path: Path) -> None:
    pack, program = get_pack(RULES / "rupture_brutale")
    report = audit_pack(pack, program, time_limit_s=0.0)
    assert not report.complete and report.findings[0].kind == "incomplete"


def test_bad_audit_yaml_names_the_file(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    (root / "audit.yaml").write_text("accepted:\n  - {kind: nonsense, subject: x, reason: because}\n")
    result = runner.invoke(app, ["audit", str(root)])
    assert result.exit_code == 2
    assert "audit.yaml" in (result.output + (result.stderr or ""))


def test_tied_in_force_literals_are_equal_on_every_case_date() -> None:
    """The audit ties computed booleans one computation defines (issue 30: the in-force literals of dated
    rules that share a period and a date). Oracle: the pack's own analysis of the example case, the relevant
    date moved across each period's bounds (and left unknown), gives each group one value."""
    from datetime import date, timedelta

    from lexlogic.engine.symbolic.analysis import analyse
    from lexlogic.engine.workbench.audit import tied_booleans

    pack, program = get_pack(RULES / "rupture_brutale")
    groups = tied_booleans(pack, program)
    assert ["in_force__d_defeated_non_specialised", "in_force__d_non_specialised_old"] in groups
    example = json.loads((RULES.parent / "examples/rupture_brutale/facts.json").read_text(encoding="utf-8"))
    for group in groups:
        rules = [pack.dated_rules[atom] for atom in group]
        bounds = {d for r in rules for d in (r["from"], r["to"]) if d}
        days = sorted({d + timedelta(days=k) for d in bounds for k in (-1, 0, 1)} | {date(2030, 1, 1)})
        taken = set()
        for day in [*days, None]:
            raw = json.loads(json.dumps(example))
            for r in rules:
                raw["facts"].pop(r["date"], None)
                if day is not None:
                    raw["facts"][r["date"]] = day.isoformat()
                    for name, spec in pack.facts.items():  # dates out of order with it: left unknown
                        later = str(raw["facts"].get(name, ""))
                        if name in pack.facts[r["date"]].not_before and later > day.isoformat():
                            raw["facts"].pop(name)
                        elif r["date"] in spec.not_before and later and later < day.isoformat():
                            raw["facts"].pop(name)
            values = analyse(pack, program, parse_case(raw, pack)).values
            seen = {(values[a].status, values[a].value) for a in group}
            assert len(seen) == 1, (group, day, seen)
            taken |= seen
        assert {v for _, v in taken} >= {True, False}, taken  # the dates did move the group both ways


def test_value_gap_found_where_a_parameter_has_no_period(tmp_path: Path) -> None:
    """JSON-Logic-level gap (issue 30): late_payment's legal cap has no value before 2009, so an invoice of
    2008-12-31 leaves the cap date open although every input is known. Oracle: the pack's own analysis of the
    written counterexample (the case solver, not the search) finds the cap date unknown with nothing to ask,
    and the same case a day later computes it."""
    from datetime import date, timedelta

    from lexlogic.engine.symbolic.analysis import analyse

    pack, program = get_pack(RULES / "late_payment")
    report = audit_pack(pack, program, time_limit_s=120)
    gaps = [f for f in report.findings if f.kind == "value_gap" and f.subject == "max_days_from_invoice"]
    assert gaps and gaps[0].accepted and "computations.yaml:" in gaps[0].rules[0]
    case = gaps[0].counterexample
    assert case is not None and case["facts"]["invoice_date"] == "2008-12-31"
    at_hole = analyse(pack, program, parse_case(case, pack)).values["general_cap_date"]
    assert not at_hole.known and not at_hole.missing
    later = json.loads(json.dumps(case))
    for name, spec in pack.facts.items():  # every date one day later: order and durations kept
        if spec.type.value == "date" and name in later["facts"]:
            later["facts"][name] = (date.fromisoformat(later["facts"][name]) + timedelta(days=1)).isoformat()
    assert analyse(pack, program, parse_case(later, pack)).values["general_cap_date"].known
