"""Issue 34: two attacker tenants held both sandbox workers (~31 s) and a victim's one-line rule waited
30 s. Heavy tenants (≥ ``heavy_seconds`` of worker time over the last minute) now hold at most
``workers − 1`` workers together: the last one stays free for a tenant that used little. On the old
quotas the second heavy tenant was admitted and the victim had no worker left."""

from __future__ import annotations

import pytest

from lexlogic.engine.tenancy.quota import QuotaExceeded, QuotaLimits, TenantQuotas


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _spend(q: TenantQuotas, clock: Clock, tenant: str, seconds: float) -> None:
    with q.run(tenant):
        clock.t += seconds


def test_two_heavy_tenants_cannot_hold_both_workers() -> None:
    clock = Clock()
    q = TenantQuotas(QuotaLimits(workers=2, heavy_seconds=2.0, worker_seconds_per_minute=20.0), clock=clock)
    _spend(q, clock, "attacker-1", 5.0)  # a runaway rule each: both are heavy now
    _spend(q, clock, "attacker-2", 5.0)
    with q.run("attacker-1"):  # holds one worker
        with pytest.raises(QuotaExceeded, match="kept for tenants that used little"):
            with q.run("attacker-2"):
                pass
        with q.run("victim"):  # the last worker is the victim's at once
            clock.t += 0.01
    with q.run("attacker-2"):  # once attacker-1's call ends, attacker-2 may run
        pass


def test_light_tenants_share_every_worker() -> None:
    clock = Clock()
    q = TenantQuotas(QuotaLimits(workers=2, heavy_seconds=2.0), clock=clock)
    with q.run("a"), q.run("b"):  # nobody heavy: both workers used, as before
        clock.t += 0.5
