"""Allegation states: not alleged (the burden-of-proof default), alleged and contested (unknown, asked,
weighed by its prior), proven, disproven — in case files and answers, and the proof says which."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.verdict.build import build_verdict, read_case
from lexlogic.engine.workbench.ruletests import run_case
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "rules" / "rupture_brutale"
BASE: dict[str, Any] = {
    "claimant_activity": "production",
    "claim_date": "2024-09-02",
    "court_specialised": True,
    "relation_start": "2013-01-07",
    "regular_orders": True,
    "orders_count": 540,
    "rupture_kind": "total",
    "notification_date": "2024-01-15",
    "notice_given_months": 3,
    "notice_written": True,
    "economic_dependence_proven": False,
    "dedicated_investments": False,
    "exclusivity": False,
    "private_label": False,
}


def _with(state: str | None) -> dict[str, Any]:
    facts = dict(BASE)
    if state is not None:
        facts["force_majeure"] = {"value": True, "allegation": state, "alleged_by": "defence"}
    return facts


@pytest.mark.parametrize(
    ("state", "liable", "status", "note"),
    [
        (None, "yes", "defaulted", "non allégué : charge de la preuve sur la défense"),
        ("not_alleged", "yes", "defaulted", "non allégué"),
        ("alleged", "unknown", "unknown", "allégué par la défense, contesté"),
        ("proven", "no", "given", "prouvé"),
        ("disproven", "yes", "given", "réfuté"),
    ],
)
def test_each_state_decides_and_says_which(state: str | None, liable: str, status: str, note: str) -> None:
    result = run_case(PACK, _with(state))
    assert result.outcomes["liable"].status == liable
    info = result.values["force_majeure"]
    assert info.status.value == status
    assert info.allegation == state
    assert any(note in (g.note or "") for g in info.grounding)


def test_contested_fact_is_asked_and_shown_in_the_why_not() -> None:
    result = run_case(PACK, _with("alleged"))
    assert "force_majeure" in result.outcomes["liable"].missing
    assert any(q["fact"] == "force_majeure" for q in result.questions)

    def notes(node: Any) -> list[str]:
        return [node.note or ""] + [n for c in node.children for n in notes(c)] if node else []

    assert any("contesté" in n for n in notes(result.outcomes["exonerated"].proof))


def test_contested_fact_is_weighed_by_its_prior() -> None:
    verdict = build_verdict(
        read_case(SHIPPED, {"pack": "rupture_brutale", "case_id": "fm", "facts": _with("alleged")}), {}, packs=SHIPPED
    )
    p = verdict.probability.p_target
    assert p is not None and 0.9 < p < 1.0  # prior of force majeure: 5 %


def test_an_answer_can_carry_its_state() -> None:
    result = run_case(PACK, BASE, {"force_majeure": {"value": True, "allegation": "alleged", "alleged_by": "defence"}})
    assert result.outcomes["liable"].status == "unknown"
    result = run_case(PACK, BASE, {"force_majeure": {"value": True, "allegation": "proven"}})
    assert result.outcomes["liable"].status == "no"
