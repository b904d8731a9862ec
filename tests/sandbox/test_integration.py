"""Active dynamic rules feed a case as DYNAMIC facts, with proof nodes and reliability priors."""

from __future__ import annotations

from sqlalchemy import update

from lexlogic.engine.extensions.dynamic_rules import (
    DeploymentPolicy,
    DynamicRuleRow,
    DynamicRuleStore,
    run_active_rules,
)
from lexlogic.logic.grounding import SourceKind
from lexlogic.logic.proof import NodeKind, ProofNode

NOTICE = """
def rule(facts):
    seniority = whole_months_between(facts["relation_start"], facts["notification_date"])
    reasonable = min(18, max(3, seniority // 12))
    return {"reasonable_notice_months": reasonable,
            "notice_sufficient": facts.get("notice_given_months", 0) >= reasonable,
            "dependence_note": None}
"""
NOTICE_SCHEMA = {"reasonable_notice_months": "int", "notice_sufficient": "bool", "dependence_note": "str?"}
EXCLUSIVITY = "def rule(facts):\n    return bool(facts.get('exclusivity')) and facts.get('private_label', False)\n"
BROKEN = "def rule(facts):\n    return facts['missing_key']\n"
FACTS = {
    "relation_start": "2012-03-01",
    "notification_date": "2021-06-15",
    "notice_given_months": 3,
    "exclusivity": True,
    "claimant_name": "SARL Dupont",
}


def test_active_rules_become_dynamic_facts_with_proofs(db_url: str, pool) -> None:
    store = DynamicRuleStore(db_url, DeploymentPolicy(require_approval=True))
    notice = store.add(
        NOTICE, author="gpt-4o", name="preavis", output_schema=NOTICE_SCHEMA, reliability=0.6, rule_id="notice-v1"
    )
    excl = store.add(
        EXCLUSIVITY,
        author="Me Martin",
        author_kind="person",
        name="dependance_presumee",
        output_schema="bool",
        rule_id="excl-v1",
        case_id="case-42",
    )
    broken = store.add(BROKEN, author="gpt-4o", rule_id="broken-v1")
    proposed_only = store.add("def rule(facts):\n    return 1\n", author="gpt-4o", rule_id="never-approved")
    retired = store.add("def rule(facts):\n    return 2\n", author="gpt-4o", rule_id="old")
    for r in (notice, excl, broken, retired):
        store.approve(r.id, by="Me Dupont")
    store.retire(retired.id, by="Me Dupont")

    facts = dict(FACTS)
    result = run_active_rules(
        store,
        facts,
        case_id="case-42",
        pool=pool,
        premises={
            "relation_start": ProofNode(
                atom="relation_start", kind=NodeKind.FACT, value="2012-03-01", note="from the contract"
            )
        },
    )
    assert facts == FACTS
    assert result.values() == {"reasonable_notice_months": 9, "notice_sufficient": False, "dependance_presumee": False}
    assert {f.rule_id for f in result.facts} == {"notice-v1", "excl-v1"}  # never-approved and old do not run
    assert proposed_only.id not in {f.rule_id for f in result.facts}
    assert [(f.rule_id, f.code) for f in result.failures] == [("broken-v1", "exception")]
    assert "KeyError" in result.failures[0].message

    by_name = {f.name: f for f in result.facts}
    notice_fact = by_name["notice_sufficient"]
    assert notice_fact.kind == "dynamic" and notice_fact.reliability == 0.6
    node = result.proof(notice_fact)  # premises by reference, resolved from the run's provenance
    assert node.kind is NodeKind.DYNAMIC and node.rule_id == "notice-v1" and node.value is False
    assert node.grounding[0].kind is SourceKind.DYNAMIC_RULE and "gpt-4o" in node.grounding[0].note
    children = {c.atom: c for c in node.children}
    assert set(children) == {"relation_start", "notification_date", "notice_given_months"}
    assert children["relation_start"].note == "from the contract"  # the caller's premise is reused
    assert children["notification_date"].grounding[0].json_path == "$.notification_date"
    assert "DYNAMIC interpretation (not hard law)" in node.render()
    assert all(n.kind is not NodeKind.RULE for f in result.facts for n in result.proof(f).walk())  # never shown as law

    excl_fact = by_name["dependance_presumee"]
    kinds = {c.atom: c.kind for c in result.proof(excl_fact).children}
    assert kinds == {"exclusivity": NodeKind.FACT, "private_label": NodeKind.MISSING}
    assert result.priors() == {"reasonable_notice_months": 0.6, "notice_sufficient": 0.6, "dependance_presumee": 0.7}

    # Outside case-42 the case-scoped rule does not run.
    other = run_active_rules(store, FACTS, case_id="case-7", pool=pool)
    assert {f.rule_id for f in other.facts} == {"notice-v1"}


def test_a_tampered_rule_is_not_run(tmp_path, pool) -> None:
    store = DynamicRuleStore(f"sqlite:///{tmp_path / 'x.db'}", DeploymentPolicy(require_approval=False))
    rule = store.add(EXCLUSIVITY, author="llm", output_schema="bool")
    with store.engine.begin() as conn:
        conn.execute(
            update(DynamicRuleRow)
            .where(DynamicRuleRow.id == rule.id)
            .values(text="def rule(facts):\n    return True\n")
        )
    result = run_active_rules(store, FACTS, pool=pool)
    assert result.facts == [] and [(f.rule_id, f.code) for f in result.failures] == [(rule.id, "integrity")]
