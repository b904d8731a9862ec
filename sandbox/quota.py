"""Per-tenant quotas on the shared sandbox: proposals per minute, concurrent runs, worker-seconds per minute.

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
import os
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lexlogic.logic.errors import LexlogicError

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

    @classmethod
    def from_env(cls) -> QuotaLimits:
        env = os.environ.get
        return cls(
            proposals_per_minute=int(env("LEXLOGIC_QUOTA_PROPOSALS_PER_MINUTE", cls.proposals_per_minute)),
            concurrent_runs=int(env("LEXLOGIC_QUOTA_CONCURRENT_RUNS", cls.concurrent_runs)),
            worker_seconds_per_minute=float(
                env("LEXLOGIC_QUOTA_WORKER_SECONDS_PER_MINUTE", cls.worker_seconds_per_minute)
            ),
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
        with self._lock:
            self._trim(tenant, self._now())
            return sum(s for _, s in self._spent[tenant])

    @contextmanager
    def run(self, tenant: str) -> Iterator[None]:
        """Hold one of the tenant's run slots for the duration of a sandbox call and charge its time."""
        with self._lock:
            now = self._now()
            self._trim(tenant, now)
            if self._running[tenant] >= self.limits.concurrent_runs:
                self.refused += 1
                raise QuotaExceeded(
                    f"quota: at most {self.limits.concurrent_runs} concurrent sandbox run(s) per tenant", 1
                )
            spent = self._spent[tenant]
            used = sum(s for _, s in spent)
            if used >= self.limits.worker_seconds_per_minute:
                # wait until enough of the window has slid out
                excess, wait = used - self.limits.worker_seconds_per_minute, WINDOW
                for end, secs in spent:
                    excess -= secs
                    if excess < 0:
                        wait = end + WINDOW - now
                        break
                self.refused += 1
                raise QuotaExceeded(
                    f"quota: {self.limits.worker_seconds_per_minute:g} sandbox worker-seconds per minute used",
                    wait,
                )
            self._running[tenant] += 1
        start = self._now()
        try:
            yield
        finally:
            with self._lock:
                end = self._now()
                self._running[tenant] -= 1
                self._spent[tenant].append((end, end - start))
