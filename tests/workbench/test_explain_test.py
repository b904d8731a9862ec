"""`lexlogic test -v` explains a failing test (why-not / proof, values, parameters); `--facts` writes its case."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.logic.facts import parse_case
from tests.workbench.planted import copy_pack, get_pack

runner = CliRunner()


def _break_expectation(root: Path) -> None:
    """The test « Non brutale : préavis au haut de la fourchette » now wrongly expects brutal: yes."""
    path = root / "tests" / "brutalite.yaml"
    text = path.read_text(encoding="utf-8")
    old = '  expect: {brutal: "no", liable: "no"}'
    assert old in text
    path.write_text(text.replace(old, '  expect: {brutal: "yes", liable: "no"}', 1), encoding="utf-8")


def test_verbose_failure_prints_why_not_with_values_and_parameters(tmp_path: Path) -> None:
    root = copy_pack("rupture_brutale", tmp_path)
    _break_expectation(root)
    result = runner.invoke(app, ["test", str(root), "-k", "haut de la fourchette", "--no-properties", "-v"])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "brutal: expected yes, got no" in out
    assert "why not of brutal (expected yes, got no):" in out
    assert "B_brutal" in out and "B_below_range" in out  # the rules that could conclude it, each failing
    assert "notice_given_months = 18.0 (given)" in out
    assert "reasonable_notice_high = 18.0 (computed)" in out
    assert "parameters used:" in out and "notice_band_high_factor = 2.0978" in out
    # without -v: only the one-line reason
    quiet = runner.invoke(app, ["test", str(root), "-k", "haut de la fourchette", "--no-properties"])
    assert "why not of" not in quiet.output and "brutal: expected yes, got no" in quiet.output


def test_facts_writes_the_test_case(tmp_path: Path) -> None:
    root = copy_pack("rupture_brutale", tmp_path)
    dest = tmp_path / "case.json"
    result = runner.invoke(app, ["test", str(root), "--facts", "brutalite.yaml:11", "--out", str(dest)])
    assert result.exit_code == 0, result.output
    case = json.loads(dest.read_text())
    assert case["facts"]["notice_given_months"] == 18
    pack, program = get_pack(root)
    analysis = analyse(pack, program, parse_case(case, pack))
    assert analysis.outcomes["brutal"].status == "no"  # the test's expectation, on the written case


def test_facts_unknown_id_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["test", "rules/late_payment", "--facts", "no-such-test"])
    assert result.exit_code == 2
    assert "no-such-test" in result.output + (result.stderr or "")
