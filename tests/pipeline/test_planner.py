"""Planner: declared DAG with defeaters first; LLM proposals validated and corrected; re-planning."""

from __future__ import annotations

import json

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.case.planner import (
    ProposedPlan,
    declared_plan,
    load_checks,
    make_plan,
    procedural_prefix,
    replan_major_fact,
    replan_missing,
    validate_proposal,
)
from tests.support.fake_llm import ScriptedLLM
from tests.support.packs import SHIPPED

CHECKS = load_checks(SHIPPED.pack("rupture_brutale"))
PREFIX = procedural_prefix(CHECKS)


def _defeaters_first(plan) -> bool:
    order = plan.order()
    last_defeater = max(order.index(d) for d in PREFIX)
    return all(order.index(t.id) > last_defeater for t in plan.tasks if t.kind == "check" and t.id not in PREFIX)


def test_declared_plan():
    plan = declared_plan(CHECKS)
    # the pack's leading block of defeaters and procedural notes, in its declared order
    lead = []
    for c in CHECKS:
        if c.kind not in ("defeater", "note"):
            break
        lead.append(c.id)
    assert PREFIX == lead and PREFIX[0] == "prescription" and {"arbitration", "scope"} <= set(PREFIX)
    assert _defeaters_first(plan) and plan.order()[-1] == "damages"
    assert plan.next_ready().id == "prescription"


def test_llm_plan_unknown_task_and_defeaters_late_are_corrected():
    proposal = ProposedPlan.model_validate(
        {
            "tasks": [
                {"id": "established"},
                {"id": "rupture", "depends_on": ["established"]},
                {"id": "prescription", "depends_on": ["rupture"]},
                {"id": "horoscope"},
            ]
        }
    )
    plan = validate_proposal(proposal, CHECKS)
    assert plan.source == "llm-corrected"
    assert any("horoscope" in c for c in plan.corrections)
    assert any("must not wait" in c for c in plan.corrections)
    assert _defeaters_first(plan)
    assert {t.id for t in plan.tasks} == {c.id for c in CHECKS}


def test_llm_plan_with_cycle_is_rejected():
    proposal = ProposedPlan.model_validate({"tasks": [{"id": c.id, "depends_on": []} for c in CHECKS]})
    ids = [c.id for c in CHECKS]
    proposal.tasks[ids.index("rupture")].depends_on = ["brutal"]
    proposal.tasks[ids.index("brutal")].depends_on = ["rupture"]
    plan = validate_proposal(proposal, CHECKS)
    assert plan.source == "declared" and any("rejected" in c for c in plan.corrections)


def test_llm_proposes_plan_over_http():
    good = {"tasks": [{"id": c.id, "depends_on": ([] if c.id in PREFIX else PREFIX)} for c in CHECKS]}
    with ScriptedLLM([{"content": json.dumps(good)}]) as server:
        plan = make_plan(SHIPPED.pack("rupture_brutale"), LLMClient(server.base_url, "t"), "cas")
        assert "response_format" in server.requests[0]
    assert plan.source == "llm" and _defeaters_first(plan)


def test_replan_on_missing_data_and_major_fact():
    plan = declared_plan(CHECKS)
    merits = [c.id for c in CHECKS]
    for t in plan.tasks[: merits.index("imputable") + 1]:
        t.status = "done"
    plan2 = replan_missing(plan, "exoneration", ["fault_serious"])
    assert "acquire:fault_serious" in plan2.get("exoneration").depends_on
    assert plan2.next_ready().id in ("safe_harbour", "acquire:fault_serious")
    plan3 = replan_major_fact(plan2, "arbitration_clause")
    assert plan3.get("arbitration").status == "pending"
    assert plan3.get("established").status == "pending"  # merits re-opened behind the defeater
    assert plan3.next_ready().id == "arbitration" and plan3.revision == 2
