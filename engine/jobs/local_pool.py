"""The local batch pool: spawned processes that die with their client.

Why: killed -9, a batch client used to leave its spawn-pool children (~760 MB each) running for minutes,
still holding their items' leases, so an immediate rerun found them busy (issue 34). Each child now asks the
kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``) and, where that is not available, watches its
parent's pid. Items run under a lease owner id made by the CLIENT (its pid): the client's death frees them at
once for a rerun, and the client retries an item under the same id after an outage.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from lexlogic.engine.jobs.patience import OUTAGE, reason
from lexlogic.engine.store.db import is_disk_full

PR_SET_PDEATHSIG = 1
_CAUGHT: tuple[type[BaseException], ...] = (*OUTAGE, OSError)


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(70)


def die_with_parent(parent: int) -> None:
    """Pool initializer: this process ends as soon as ``parent`` does."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(70)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()


def run_item(settings: dict[str, Any], db_url: str | None, run_id: str, job: dict[str, Any], owner: str) -> str:
    """One item, both stages, under the client's owner id: ``done``/``busy``/``missing``, or
    ``unavailable: <why>`` when the database went away (the item stays pending, its lease ours), or
    ``disk full: <why>``. ``settings``: the client's ``Settings`` as JSON (a spawned child gets them whole,
    it does not read its environment)."""
    from lexlogic.engine.jobs.tasks import Job, advance, store_for
    from lexlogic.settings import Settings

    s = Settings(**settings)
    try:
        store = store_for(s, db_url)
        return advance(run_id, Job.model_validate(job), settings=s, stage="all", owner=owner, store=store).outcome
    except _CAUGHT as exc:
        if is_disk_full(exc):
            return f"disk full: {reason(exc)}"
        if isinstance(exc, OUTAGE):
            return f"unavailable: {reason(exc)}"
        raise


class LocalPool:
    """``n`` spawned processes (none when ``n`` is 1: items run in the client itself)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._pool = self._make() if n > 1 else None

    def _make(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.n, mp_context=get_context("spawn"), initializer=die_with_parent, initargs=(os.getpid(),)
        )

    def run(
        self,
        settings: dict[str, Any],
        db_url: str | None,
        work: list[tuple[str, dict[str, Any], str]],
        on_done: Callable[[], None],
    ) -> list[str]:
        """Run ``(run_id, job, owner)`` items (``on_done`` after each); their outcomes in order. A child killed
        (out of memory?) breaks the pool: its items say ``failed`` (they stay pending) and the pool is renewed."""
        if self._pool is None:
            out = []
            for w in work:
                out.append(run_item(settings, db_url, *w))
                on_done()
            return out
        futures: dict[Future[str], int] = {
            self._pool.submit(run_item, settings, db_url, *w): i for i, w in enumerate(work)
        }
        outcomes = [""] * len(work)
        broken = False
        for f in as_completed(futures):
            try:
                outcomes[futures[f]] = f.result()
            except Exception as exc:
                broken |= isinstance(exc, BrokenProcessPool)
                outcomes[futures[f]] = f"failed: {type(exc).__name__}: {exc}"[:300]
            on_done()
        if broken:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._make()
        return outcomes

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
