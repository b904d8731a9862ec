"""`lexlogic test --coverage` and `lexlogic mutate`: what the tests exercise, and what they would miss."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.workbench.coverage import coverage, if_nodes, trace
from lexlogic.engine.workbench.mutate import mutants, mutate
from lexlogic.engine.workbench.ruletests import pack_tests
from tests.workbench.planted import RULES, copy_pack, get_pack

runner = CliRunner()


def test_branch_trace_by_hand() -> None:
    logic = {
        "if": [{">": [{"var": "x"}, 10]}, "big", {">": [{"var": "x"}, 0]}, {"if": [{"var": "f"}, "a", "b"]}, "neg"]
    }
    assert if_nodes(logic) == [("$.if", 3), ("$.if[3].if", 2)]
    taken: set[tuple[str, int]] = set()
    trace(logic, {"x": 5, "f": False}, taken)
    assert taken == {("$.if", 1), ("$.if[3].if", 1)}  # second arm, then the inner else
    taken.clear()
    trace(logic, {"x": -1}, taken)
    assert taken == {("$.if", 2)}  # the else arm; the inner if is not reached


def test_coverage_names_an_unexercised_rule_and_branch(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    (root / "tests" / "complements.yaml").unlink(missing_ok=True)  # the tests added for coverage, taken out
    lp = root / "payment.lp"
    lp.write_text(
        lp.read_text()
        + '\n%@ {id: P_untested, label: "untested"}\npenalties_due :- late_payment, public_buyer, insolvency_proceedings.\n'
    )
    pack, program = get_pack(root)
    report = coverage(pack, program, pack_tests(pack))
    missed = {(i.where, i.what) for i in report.missed()}
    line = len(lp.read_text().splitlines())
    assert ("payment.lp:" + str(line), "P_untested") in missed
    hit, total = report.figures()["rules"]
    assert total == 13 and hit == 12  # every shipped rule is fired by some test; the new one by none
    assert any(w.startswith("computations.yaml:") and "C_agreed_due_date" in what for w, what in missed)
    result = runner.invoke(app, ["test", str(root), "--coverage"])
    assert result.exit_code == 0 and "P_untested" in result.output and "rules: 12/13" in result.output


def test_mutants_cover_every_operator() -> None:
    pack, _ = get_pack(RULES / "rupture_brutale")
    ops = {(m.kind, m.operator) for m in mutants(pack)}
    assert {("asp", "negate"), ("asp", "drop"), ("asp", "swap_enum")} <= ops
    assert {("computation", "swap_comparison"), ("parameter", "move_value"), ("parameter", "move_boundary")} <= ops


def test_a_missing_test_lets_a_mutant_survive_and_adding_it_kills_it(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    tests_file = root / "tests" / "indemnity.yaml"
    killing = (
        '\n- name: "Procédure collective, frais justifiés : pas de complément sans indemnité"\n'
        "  facts: {<<: *facts, recovery_costs: 500, recovery_costs_justified: true}\n"
        '  expect: {recovery_indemnity_due: "no", supplementary_compensation_due: "no"}\n'
    )
    text = tests_file.read_text()
    if "pas de complément sans indemnité" in text:  # the shipped pack already has it: take it out first
        tests_file.write_text(text.replace(killing, "\n"))
    pack, _ = get_pack(root)

    def on_rule(m):  # type: ignore[no-untyped-def]
        return m.kind == "asp" and m.where.startswith("payment.lp:") and "recovery_indemnity_due" in m.description

    before = mutate(pack, pack_tests(pack), only=on_rule)
    survivors = [r.description for r in before.results if r.status == "survived"]
    assert "drop recovery_indemnity_due" in survivors
    tests_file.write_text(tests_file.read_text().rstrip("\n") + "\n" + killing)
    pack, _ = get_pack(root)
    after = mutate(pack, pack_tests(pack), only=on_rule)
    assert after.score == 1.0 and after.score > before.score


def test_mutate_cli_reports_score_and_survivors(tmp_path: Path) -> None:
    root = copy_pack("late_payment", tmp_path)
    for f in (root / "tests").glob("*.yaml"):
        if f.name != "delay.yaml":
            f.unlink()  # few tests: many survivors
    result = runner.invoke(app, ["mutate", str(root), "--time-limit", "60", "--min-score", "0.99"])
    assert result.exit_code == 1, result.output
    assert "mutation score of late_payment" in result.output and "survivors" in result.output
