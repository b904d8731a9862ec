"""The probabilistic verdict on the pack: ask the decisive question, conclude after the answer, what-if."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from tests.support.deciding import decide_case

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
runner = CliRunner()


def _case(**changes: object) -> dict:
    facts = json.loads(EXAMPLE.read_text())["facts"]
    for k, v in changes.items():
        if v is None:
            facts.pop(k, None)
        else:
            facts[k] = v
    return {"pack": "rupture_brutale", "case_id": "t", "facts": facts}


def test_missing_written_notice_is_asked_then_concluded() -> None:
    raw = _case(notice_written=None, notice_given_months=18)  # 18 months: written → safe harbour
    v = decide_case(raw)
    assert v.status == "NEEDS_INFORMATION"
    assert v.questions[0]["fact"] == "notice_written"
    assert 0.2 < v.probability.p_target < 0.4  # prior P(written) = 0.7 → P(liable) = 0.3
    oral = decide_case(raw, {"notice_written": False})
    assert oral.status == "VERDICT" and oral.probability.p_target == pytest.approx(1.0)
    assert oral.analysis.verdict == "LIABLE"
    written = decide_case(raw, {"notice_written": True})
    assert written.status == "VERDICT" and written.probability.p_target == pytest.approx(0.0)
    assert written.analysis.outcomes["safe_harbour"].status == "yes"


def test_symbolic_and_probabilistic_agree_on_decided_cases() -> None:
    v = decide_case(_case())
    assert v.analysis.verdict == "LIABLE" and v.probability.p_target == pytest.approx(1.0)
    v = decide_case(_case(force_majeure=True))
    assert v.analysis.verdict == "NOT_LIABLE" and v.probability.p_target == pytest.approx(0.0)


def test_within_the_range_is_the_judges_call_not_a_question() -> None:
    v = decide_case(_case(notice_given_months=12))  # range 8.5–20.5: appreciation
    assert v.analysis.verdict == "UNDETERMINED"
    assert 0.05 < v.probability.p_target < 0.95
    assert v.status == "VERDICT" and v.questions == []  # nothing a party could answer settles it


def test_whatif_claimant_intensity_never_lowers_liability() -> None:
    raw = _case(notice_given_months=12)
    ps = [decide_case(raw, whatif={"confiance_vs_liberte.I1": level}).probability.p_target for level in (1, 2, 4)]
    assert ps[0] <= ps[1] <= ps[2] and ps[0] < ps[2]


def test_whatif_unknown_name_is_refused() -> None:
    with pytest.raises(ValueError, match="neither an uncertain fact"):
        decide_case(_case(), whatif={"nope": 1})


def test_cli_json_contract(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_case(notice_written=None, notice_given_months=18)))
    result = runner.invoke(app, ["analyze", str(path), "--format", "json", "--no-input"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "needs_information"
    assert data["probability"]["method"] == "exact"
    assert 0 < data["probability"]["entropy"] <= 1
    q = data["questions"][0]
    assert (
        q["fact"] == "notice_written" and q["eig"] > 0 and q["utility"] == pytest.approx(q["eig"] / q["cost"], rel=1e-3)
    )
    result = runner.invoke(
        app, ["analyze", str(path), "--format", "json", "--no-input", "--answer", "notice_written=false"]
    )
    data = json.loads(result.output)
    assert data["status"] == "verdict" and data["label"] == "LIABLE"
