"""Issue 34: a tenant's sandbox time is reserved before each rule runs (admission control).

Before: the worker-seconds quota was checked before a call and charged after it, so one call running 8
runaway rules held a worker 42 s against a 20 s-per-minute quota. Now each rule reserves the most it can
cost (the pool's wall limit) before it starts: the call is cut off (429, Retry-After) once the next
rule could take the tenant past its minute.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lexlogic.engine.extensions.dynamic_rules import DeploymentPolicy, DynamicRuleStore, run_active_rules
from lexlogic.engine.tenancy.quota import QuotaExceeded, QuotaLimits, TenantQuotas
from lexlogic.sandbox.pool import Limits, SandboxPool


def test_reservation_refuses_a_call_that_could_go_past_the_minute() -> None:
    now = [0.0]
    q = TenantQuotas(QuotaLimits(worker_seconds_per_minute=10), lambda: now[0])
    with q.run("a", reserve=5):
        now[0] = 6.0  # the first call is admitted whatever it reserves (nothing spent yet)
    with q.run("a", reserve=4):  # 6 + 4 <= 10
        now[0] = 6.5
    with pytest.raises(QuotaExceeded) as err:
        with q.run("a", reserve=5):  # 6.5 + 5 > 10: refused before it starts
            pass
    assert err.value.retry_after == 60  # the 6 s spent at t=6 must leave the window first (t=66)
    with q.run("b", reserve=5):  # another tenant is not affected
        pass


def test_eight_runaway_rules_hold_a_worker_no_longer_than_the_quota(tmp_path: Path) -> None:
    store = DynamicRuleStore(f"sqlite:///{tmp_path / 'r.db'}", policy=DeploymentPolicy(require_approval=False))
    for i in range(8):
        store.add(f"def rule(facts):\n    n = {i}\n    while True:\n        n += 1\n", author="llm", rule_id=f"loop{i}")
    quota = 3.0
    q = TenantQuotas(QuotaLimits(worker_seconds_per_minute=quota))
    with SandboxPool(size=1, limits=Limits(cpu_seconds=1, wall_seconds=1.0, memory_mb=256)) as pool:
        t0 = time.monotonic()
        with pytest.raises(QuotaExceeded):
            run_active_rules(store, {}, pool=pool, admit=lambda: q.run("attacker", reserve=pool.limits.wall_seconds))
        held = time.monotonic() - t0
    spent = q.used_seconds("attacker")
    assert spent <= quota + 0.5, spent  # never past the minute's quota (plus one rule's kill latency)
    assert held < quota + 2.0, held
    print(f"8 runaway rules: {spent:.1f} worker-s charged, call held {held:.1f} s (quota {quota:g} s)")
