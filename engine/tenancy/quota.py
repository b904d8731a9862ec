"""Per-tenant quotas on the shared sandbox: proposals per minute, concurrent runs, worker-seconds per minute.

Here, on the engine side, and not in ``sandbox/`` (issue 28): the sandbox runs code under process limits;
who may spend how much of it is the service's business. Admission control (issue 34): a call RESERVES
the most it can cost (``reserve``: e.g. the pool's wall limit per rule) before it starts, and is refused if
the reservation would go past the tenant's minute; the actual time replaces the reservation at the end. A
call running several rules is admitted rule by rule, so 8 runaway rules no longer hold a worker 42 s.

Why: the worker pool is shared by every tenant; without quotas one tenant can hold every worker (5 s a
call) or flood the compiler with proposals, and the others wait or fail. A refused call raises
`QuotaExceeded` (HTTP 429) with the number of seconds after which the same call would be accepted
(`Retry-After`). "CPU seconds" are measured as the wall time a tenant's call held a worker (an upper bound
of its CPU time: the pool's per-run CPU rlimit is below its wall limit), charged when the call ends.

In-process and per API replica (a sliding 60-second window in memory): a replica set multiplies the
figures by the number of replicas. Tenants are opaque strings here: the sandbox knows no HTTP.
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import Settings

WINDOW = 60.0


class QuotaExceeded(LexlogicError):
    """A tenant went over one of its sandbox quotas; retry after `retry_after` seconds."""

    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


@dataclass(frozen=True)
class QuotaLimits:
    proposals_per_minute: int = 30
    concurrent_runs: int = 1  # the pool has 2 workers by default: one tenant never holds them all
    worker_seconds_per_minute: float = 20.0
    # the pool's size, and the use over the last minute past which a tenant is « heavy »: heavy tenants
    # together hold at most workers − 1 workers, so the last one is always free for the others (issue 34:
    # two attacker tenants held both workers ~31 s and a victim's one-line rule waited 30 s)
    workers: int = 2
    heavy_seconds: float = 2.0

    @classmethod
    def from_settings(cls, settings: Settings) -> QuotaLimits:
        return cls(
            proposals_per_minute=settings.quota_proposals_per_minute,
            concurrent_runs=settings.quota_concurrent_runs,
            worker_seconds_per_minute=settings.quota_worker_seconds_per_minute,
            workers=settings.sandbox_workers,
            heavy_seconds=settings.quota_heavy_seconds,
        )


class TenantQuotas:
    """Thread-safe bookkeeping of every tenant's use of the sandbox over the last minute."""

    def __init__(self, limits: QuotaLimits | None = None, clock: object = time.monotonic) -> None:
        self.limits = limits or QuotaLimits()
        self._clock = clock
        self._lock = threading.Lock()
        self._proposals: dict[str, deque[float]] = defaultdict(deque)
        self._spent: dict[str, deque[tuple[float, float]]] = defaultdict(deque)  # (end time, seconds)
        self._running: dict[str, int] = defaultdict(int)
        self._heavy_running = 0  # calls in flight of tenants that were heavy when admitted
        self.refused = 0  # an operations figure

    def _now(self) -> float:
        return self._clock()  # type: ignore[operator]

    def _trim(self, tenant: str, now: float) -> None:
        props, spent = self._proposals[tenant], self._spent[tenant]
        while props and props[0] <= now - WINDOW:
            props.popleft()
        while spent and spent[0][0] <= now - WINDOW:
            spent.popleft()

    def propose(self, tenant: str) -> None:
        """Count one proposal (it compiles in a worker); QuotaExceeded past the per-minute limit."""
        with self._lock:
            now = self._now()
            self._trim(tenant, now)
            props = self._proposals[tenant]
            if len(props) >= self.limits.proposals_per_minute:
                self.refused += 1
                raise QuotaExceeded(
                    f"quota: at most {self.limits.proposals_per_minute} rule proposals per minute",
                    props[0] + WINDOW - now,
                )
            props.append(now)

    def used_seconds(self, tenant: str) -> float:
        """Worker-seconds the tenant spent over the last minute (an operations figure; tests read it)."""
        with self._lock:
            self._trim(tenant, self._now())
            return sum(s for _, s in self._spent[tenant])

    @contextmanager
    def run(self, tenant: str, reserve: float = 0.0) -> Iterator[None]:
        """Hold one of the tenant's run slots for the duration of a sandbox call and charge its time.
        ``reserve``: the most the call can cost, counted before it starts (admission control)."""
        with self._lock:
            heavy = self._admit(tenant, reserve)
            self._running[tenant] += 1
            self._heavy_running += heavy
        start = self._now()
        try:
            yield
        finally:
            with self._lock:
                end = self._now()
                self._running[tenant] -= 1
                self._heavy_running -= heavy
                self._spent[tenant].append((end, end - start))

    def _admit(self, tenant: str, reserve: float) -> bool:
        """Refuse (QuotaExceeded) or admit a call, under the lock; True when the tenant is heavy."""
        now = self._now()
        self._trim(tenant, now)
        if self._running[tenant] >= self.limits.concurrent_runs:
            self.refused += 1
            raise QuotaExceeded(f"quota: at most {self.limits.concurrent_runs} concurrent sandbox run(s) per tenant", 1)
        spent = self._spent[tenant]
        used = sum(s for _, s in spent)
        limit = self.limits.worker_seconds_per_minute
        if used > 0 and used + reserve > limit or used >= limit:
            excess, wait = used + reserve - limit, WINDOW  # wait until enough of the window has slid out
            for end, secs in spent:
                excess -= secs
                if excess < 0:
                    wait = end + WINDOW - now
                    break
            self.refused += 1
            raise QuotaExceeded(f"quota: {limit:g} sandbox worker-seconds per minute used", wait)
        heavy = used >= self.limits.heavy_seconds
        if heavy and self._heavy_running >= max(1, self.limits.workers - 1):
            self.refused += 1
            raise QuotaExceeded("quota: the last free sandbox worker is kept for tenants that used little of it", 1)
        return heavy
