"""Lifecycle of dynamic rules in the shared database (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from lexlogic.engine.extensions.dynamic_rules import (
    DeploymentPolicy,
    DynamicRuleError,
    DynamicRuleRow,
    DynamicRuleStore,
    RuleStatus,
)
from lexlogic.sandbox.errors import ErrorKind, SandboxError
from lexlogic.sandbox.pool import source_sha256

RULE = "def rule(facts):\n    return facts.get('notice_given_months', 0) >= 6\n"
OTHER = "def rule(facts):\n    return len(facts)\n"


def test_lifecycle_proposed_approved_active_retired(db_url: str) -> None:
    store = DynamicRuleStore(db_url, DeploymentPolicy(require_approval=True))
    rule = store.add(RULE, author="gpt-4o-mini", name="preavis_suffisant", output_schema="bool", reliability=0.6)
    assert rule.status is RuleStatus.PROPOSED and rule.id == f"dyn-{source_sha256(RULE)[:12]}"
    assert rule.sha256 == source_sha256(RULE) and rule.created_at.tzinfo is not None
    assert store.active_rules() == []

    with pytest.raises(DynamicRuleError, match="must be approved by a person"):
        store.activate(rule.id, by="ops")
    with pytest.raises(DynamicRuleError, match="cannot be approved by its own author"):
        store.approve(rule.id, by="gpt-4o-mini")

    approved = store.approve(rule.id, by="Me Dupont", activate=False)
    assert approved.status is RuleStatus.APPROVED and approved.approved_by == "Me Dupont"
    assert store.active_rules() == []
    active = store.activate(rule.id, by="Me Dupont")
    assert active.status is RuleStatus.ACTIVE and [r.id for r in store.active_rules()] == [rule.id]

    retired = store.retire(rule.id, by="Me Dupont", reason="superseded by the pack")
    assert retired.status is RuleStatus.RETIRED and retired.retired_reason == "superseded by the pack"
    assert store.active_rules() == []
    with pytest.raises(DynamicRuleError, match="already retired"):
        store.retire(rule.id, by="x")
    with pytest.raises(DynamicRuleError, match="only a proposed rule can be approved"):
        store.approve(rule.id, by="Me Martin")

    history = [(e.from_status, e.to_status, e.actor) for e in store.history(rule.id)]
    assert history == [
        (None, RuleStatus.PROPOSED, "gpt-4o-mini"),
        (RuleStatus.PROPOSED, RuleStatus.APPROVED, "Me Dupont"),
        (RuleStatus.APPROVED, RuleStatus.ACTIVE, "Me Dupont"),
        (RuleStatus.ACTIVE, RuleStatus.RETIRED, "Me Dupont"),
    ]
    # Reopening the store sees the same data (it is in the database, not in memory).
    again = DynamicRuleStore(db_url).get(rule.id)
    assert again.status is RuleStatus.RETIRED and again.text == RULE and again.output_schema == "bool"


def test_deployment_without_approval_activates_at_once(db_url: str) -> None:
    store = DynamicRuleStore(db_url, DeploymentPolicy(require_approval=False))
    rule = store.add(RULE, author="Me Martin", author_kind="person")
    assert rule.status is RuleStatus.ACTIVE
    assert [e.actor for e in store.history(rule.id)] == ["Me Martin", "policy"]


def test_scoping_filters_and_duplicates(db_url: str) -> None:
    store = DynamicRuleStore(db_url, DeploymentPolicy(require_approval=False))
    global_rule = store.add(RULE, author="llm-a")
    case_rule = store.add(OTHER, author="llm-a", case_id="case-1", rule_id="count-facts")
    store.add(OTHER, author="llm-b", case_id="case-2", rule_id="count-facts-2")
    with pytest.raises(DynamicRuleError, match="already stored as"):
        store.add(RULE, author="llm-c")
    with pytest.raises(DynamicRuleError, match="already exists"):
        store.add("def rule(facts):\n    return 0\n", author="llm-c", rule_id="count-facts")
    assert {r.id for r in store.active_rules("case-1")} == {global_rule.id, case_rule.id}
    assert {r.id for r in store.active_rules()} == {global_rule.id}
    assert {r.id for r in store.list(case_id="case-2")} == {global_rule.id, "count-facts-2"}
    store.retire(case_rule.id, by="ops")
    assert {r.id for r in store.list(status="active")} == {global_rule.id, "count-facts-2"}
    # A retired text may be proposed again (a new life, a new id).
    store.add(OTHER, author="llm-a", case_id="case-1", rule_id="count-facts-v2")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"author": " "}, "needs an author"),
        ({"author": "x", "author_kind": "robot"}, "author kind"),
        ({"author": "x", "reliability": 0.0}, "reliability"),
        ({"author": "x", "reliability": 1.5}, "reliability"),
        ({"author": "x", "output_schema": {"x": "tuple"}}, "invalid output schema"),
        ({"author": "x", "rule_id": "../etc"}, "invalid rule id"),
    ],
)
def test_bad_additions_are_refused(tmp_path, kwargs: dict, message: str) -> None:
    store = DynamicRuleStore(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(DynamicRuleError, match=message):
        store.add(RULE, **kwargs)
    assert store.list() == []


def test_a_rule_refused_by_the_sandbox_is_never_stored(tmp_path, pool) -> None:
    store = DynamicRuleStore(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(SandboxError) as info:
        store.add("import os\ndef rule(facts):\n    return 1\n", author="llm", checker=pool.check)
    assert info.value.kind is ErrorKind.REFUSED
    assert store.list() == []


def test_tampered_text_is_detected(db_url: str) -> None:
    store = DynamicRuleStore(db_url, DeploymentPolicy(require_approval=False))
    rule = store.add(RULE, author="llm")
    assert store.get(rule.id).intact
    with store.engine.begin() as conn:
        conn.execute(update(DynamicRuleRow).where(DynamicRuleRow.id == rule.id).values(text=RULE + "# edited\n"))
    assert not store.get(rule.id).intact
