"""Waiting out an outage: a batch client that loses its database or broker says why, waits, and resumes.

Why a helper of its own: every call the client makes to the state store or the broker may fail while a
service restarts (issue 34: a 29 s PostgreSQL outage ended the client in a traceback). An outage is an
``OUTAGE`` error; anything else is a bug and propagates. The wait grows (1, 2, 4 … capped) and is bounded:
past ``limit`` seconds of continuous unavailability the client stops with one clear line (the batch is
durable: the same command resumes it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from lexlogic.engine.store.db import disk_full, is_disk_full
from lexlogic.logic.errors import LexlogicError, UnavailableError

T = TypeVar("T")
P = ParamSpec("P")
OUTAGE: tuple[type[BaseException], ...] = (SQLAlchemyError, UnavailableError)
DEFAULT_LIMIT = 900.0


class OutageError(LexlogicError):
    """A service stayed unavailable longer than the client agreed to wait (the batch resumes on re-run)."""

    exit_code = 3


def reason(exc: BaseException) -> str:
    """One line saying what is down: the error's type and the first line of its message."""
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}"[:200]


class Patience:
    """Calls that retry through outages, telling ``notify`` why they wait and when they resume."""

    def __init__(
        self,
        notify: Callable[[str], None],
        *,
        limit: float = DEFAULT_LIMIT,
        cap: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.notify, self.limit, self.cap, self.sleep = notify, limit, cap, sleep
        self.down_since: float | None = None
        self.delay = 1.0
        self.outages = 0  # distinct outages lived through (for the report)

    def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)``, retried while it fails on an outage."""
        while True:
            try:
                out = fn(*args, **kwargs)
            except OUTAGE as exc:
                if is_disk_full(exc):  # not an outage: waiting frees no space
                    raise disk_full(exc) from exc
                self.wait(reason(exc))
                continue
            self.ok()
            return out

    def wait(self, why: str) -> None:
        """Sleep before the next try (the first wait of an outage starts its clock)."""
        now = time.monotonic()
        if self.down_since is None:
            self.down_since, self.delay = now, 1.0
            self.outages += 1
        elapsed = now - self.down_since
        if elapsed > self.limit:
            raise OutageError(
                f"still unavailable after {elapsed:.0f} s ({why}); nothing is lost: re-run the same command to resume"
            )
        self.notify(f"unavailable ({why}): retrying in {self.delay:.0f} s")
        self.sleep(self.delay)
        self.delay = min(self.cap, self.delay * 2)

    def ok(self) -> None:
        if self.down_since is not None:
            self.notify(f"back after {time.monotonic() - self.down_since:.0f} s: resuming")
            self.down_since = None
