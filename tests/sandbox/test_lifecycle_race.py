"""Issue 34: lifecycle transitions sent at once never leave an inconsistent rule.

Before: approve and retire together left a retired rule ACTIVE in 3–5 of 12 tries, and two approvals at
once both succeeded (two approvers recorded). Now a transition takes the row lock (PostgreSQL) and changes
the status only from the one it read (compare-and-set): one wins, the other is refused with a clear error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from lexlogic.engine.extensions.dynamic_rules import DeploymentPolicy, DynamicRuleError, DynamicRuleStore, RuleStatus

RULE = "def rule(facts):\n    return 1\n"
TRIES = 12


def _race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at the same instant; their results or the DynamicRuleError they raised."""
    gate = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)

    def go(i: int) -> None:
        gate.wait()
        try:
            out[i] = calls[i]()
        except DynamicRuleError as exc:
            out[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def _consistent(store: DynamicRuleStore, rule_id: str) -> list[str]:
    """The events form one chain (each starts where the previous ended) that ends at the rule's status."""
    events = store.history(rule_id)
    for prev, nxt in zip(events, events[1:], strict=False):
        assert nxt.from_status == prev.to_status, [(e.from_status, e.to_status) for e in events]
    assert events[-1].to_status == store.get(rule_id).status
    return [e.to_status.value for e in events]


def test_approve_and_retire_at_once(db_url: str) -> None:
    store = DynamicRuleStore(db_url, policy=DeploymentPolicy(require_approval=True))
    for i in range(TRIES):
        rid = f"r{i}"
        store.add(RULE.replace("1", str(i + 100 * len(rid))), author="llm", rule_id=rid)
        _, retired = _race(
            lambda rid=rid: store.approve(rid, by="Me Dupont"),
            lambda rid=rid: store.retire(rid, by="Me Martin", reason="obsolete"),
        )
        chain = _consistent(store, rid)
        if not isinstance(retired, DynamicRuleError):  # a retire that said yes holds: never a retired rule ACTIVE
            assert store.get(rid).status is RuleStatus.RETIRED, chain
        else:
            assert "changed meanwhile" in str(retired) or "retired" in str(retired)


def test_two_approvals_at_once_one_approver(db_url: str) -> None:
    store = DynamicRuleStore(db_url, policy=DeploymentPolicy(require_approval=True))
    for i in range(TRIES):
        rid = f"a{i}"
        store.add(RULE.replace("1", str(i + 100 * len(rid))), author="llm", rule_id=rid)
        out = _race(
            lambda rid=rid: store.approve(rid, by="Me Dupont"),
            lambda rid=rid: store.approve(rid, by="Me Martin"),
        )
        assert sum(isinstance(o, DynamicRuleError) for o in out) == 1, out
        chain = _consistent(store, rid)
        assert chain.count("approved") == 1, chain
        rule = store.get(rid)
        winner = next(o for o in out if not isinstance(o, DynamicRuleError))
        assert rule.approved_by == winner.approved_by and rule.status is RuleStatus.ACTIVE
