"""Portfolio chunks on the Celery workers (``lexlogic batch --portfolio`` with a broker).

A chunk is a slice (≤ 64 cases) of one group of case files of the same pack and skeleton (``portfolio``); it
is the unit a worker takes: it evaluates the chunk's cases one after the other with ``portfolio.run_group``
(the same evaluator as the local portfolio) and records their results in ONE transaction. Nothing is
persisted while it runs, so a chunk is all or nothing: a worker killed mid-chunk leaves no result of it, and
the chunk is done again elsewhere.

Why a lease per chunk, in the runs' lease table: it is what already makes the per-case path safe, so the
chunk reuses all of it. The client enqueues a chunk under a *queued lease* (so the resumer finds it if the
broker loses the message); the worker claims it (``host:pid:token``, renewed by a heartbeat) before
evaluating; a killed worker's chunk is redelivered (acks late) and/or taken over by the resumer once its
owner is dead or its lease lapsed. Exactly once: a chunk whose items are all done is not claimed again, and
an item's result is written only while it is pending (``BatchStore.record_many``), so a redone chunk never
writes a line twice. A database outage in a worker is retried with the per-case path's backoff (the task is
not acknowledged as done). Decided here: chunks travel on the analysis queue (``lexlogic worker`` consumes it
by default) with the analysis step's time limits — a chunk of 64 cases takes seconds, the limit minutes.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchStore, ItemResult
from lexlogic.engine.jobs.patience import Patience
from lexlogic.engine.store.cases import CaseStore, RunBusyError, new_owner
from lexlogic.logic.errors import LexlogicError, UnavailableError
from lexlogic.settings import Settings

log = logging.getLogger("lexlogic.chunks")
TASK = "lexlogic.chunk"
STALL_NOTICE_SECONDS = 60.0


class ChunkJob(BaseModel):
    """What a chunk is (kept with its lease, sent with its message): the batch items it evaluates."""

    kind: Literal["chunk"] = "chunk"
    batch_id: str
    keys: list[str] = Field(description="the batch items of the chunk (one group's slice), in evaluation order")
    rules_dir: str = Field(description="the rules folder the cases run with (the submitter's)")
    proofs: bool = False


def chunk_id(batch_id: str, run_ids: list[str]) -> str:
    """A chunk's id: the same items (run ids carry each case's digest) give the same id, so a re-run of the
    client finds a chunk still in flight instead of sending it twice."""
    return f"chunk-{batch_id}-{hashlib.sha1(chr(10).join(run_ids).encode()).hexdigest()[:16]}"


# --- on a worker -------------------------------------------------------------------------------------------
Outcome = Literal["done", "busy"]


def _pending(bstore: BatchStore, job: ChunkJob) -> list[BatchItemRow]:
    order = {k: i for i, k in enumerate(job.keys)}
    rows = [r for r in bstore.items(job.batch_id, job.keys) if r.status == "pending"]
    return sorted(rows, key=lambda r: order[r.key])


def run_chunk(
    cid: str,
    job: ChunkJob,
    *,
    settings: Settings,
    store: CaseStore,
    adopt: str | None = None,
    owner: str | None = None,
) -> Outcome:
    """Evaluate the chunk's pending items and record them in one transaction. Idempotent: a chunk whose
    items are all done is not claimed (``done``); a chunk held by a live attempt is left alone (``busy``).
    A database error propagates with the lease kept (it lapses; the resumer or the task's retry takes over)."""
    bstore = BatchStore.on(store.engine)
    if not _pending(bstore, job):
        return "done"
    try:
        hold = store.acquire(cid, owner, job=job.model_dump(), adopt=adopt)
    except RunBusyError:
        return "busy"
    release = True
    try:
        lease = store.lease(cid)
        attempts = lease["attempts"] if lease else 1
        pending = _pending(bstore, job)  # read after the claim: an earlier attempt may have finished it
        if attempts > settings.resume_max_attempts:
            fail_items(bstore, job, pending, f"interrupted {attempts - 1} times: given up")
            return "done"
        if pending:
            bstore.attempt_many(job.batch_id, [r.key for r in pending])
            from lexlogic.engine.jobs.portfolio import run_group

            results = run_group(job.rules_dir, [(r.key, r.path, r.run_id) for r in pending], job.proofs)
            bstore.record_many(job.batch_id, results)
        return "done"
    except Exception:
        release = False  # an outage (or a bug): the lease stays and lapses, so the chunk is taken over later
        raise
    finally:
        store.let_go(hold, release=release)


def fail_items(bstore: BatchStore, job: ChunkJob, rows: list[BatchItemRow], why: str) -> None:
    """Stop a chunk's pending items with status ``error`` (a chunk that kills its worker again and again)."""
    results = [ItemResult(key=r.key, kind="case", status="error", message=why).model_dump(mode="json") for r in rows]
    bstore.record_many(job.batch_id, results)


def give_up(store: CaseStore, cid: str, job: ChunkJob, attempts: int) -> None:
    """The resumer's last word on a chunk taken over ``attempts`` times: its pending items end in error."""
    try:
        hold = store.acquire(cid, job=job.model_dump())
    except RunBusyError:
        return
    try:
        fail_items(
            BatchStore.on(store.engine),
            job,
            _pending(BatchStore.on(store.engine), job),
            f"interrupted {attempts} times: given up",
        )
    finally:
        store.let_go(hold)


def send_chunk(cid: str, job: ChunkJob, *, settings: Settings, adopt: str | None = None) -> None:
    """Enqueue a chunk on the analysis queue (its lease, queued under ``adopt``, is the caller's)."""
    from lexlogic.engine.jobs.tasks import celery_app, queue_name

    try:
        celery_app(settings).send_task(
            TASK, args=[cid, job.model_dump(), adopt], queue=queue_name("analysis", settings)
        )
    except LexlogicError:
        raise
    except Exception as exc:
        raise UnavailableError(f"broker unreachable ({type(exc).__name__}: {exc})") from exc


def resume(store: CaseStore, settings: Settings, cid: str, job: dict[str, Any]) -> bool:
    """The resumer's takeover of an interrupted chunk: sent again under a new queued lease with a broker,
    evaluated here without one. False when another process got there first."""
    chunk = ChunkJob.model_validate(job)
    if settings.broker_url:
        token = new_owner("queued")
        if not store.claim(cid, token, store.leases.queued, adopt=None):
            return False
        send_chunk(cid, chunk, settings=settings, adopt=token)
        return True
    return run_chunk(cid, chunk, settings=settings, store=store) == "done"


# --- the client --------------------------------------------------------------------------------------------
@dataclass
class Dispatch:
    """One portfolio batch's chunks sent to the workers and waited for, through outages, with a deadline."""

    store: CaseStore
    bstore: BatchStore
    batch_id: str
    settings: Settings
    patience: Patience
    notice: Callable[[str], None]
    on_item: Callable[[ItemResult], None]
    deadline: float | None = None
    timeout: float | None = None
    chunks: list[tuple[str, ChunkJob]] = field(default_factory=list)
    _sent: set[str] = field(default_factory=set)
    _finished: set[str] = field(default_factory=set)
    _announced: set[str] = field(default_factory=set)

    def run(self, poll: float = 0.3) -> None:
        """Send every chunk with a pending item, then wait until none is left."""
        keys = [k for _, job in self.chunks for k in job.keys]
        left, since = len(keys) + 1, time.monotonic()
        while True:
            rows = self.patience.call(self.bstore.items, self.batch_id, keys)
            pending = {r.key for r in rows if r.status == "pending"}
            self._announce(rows, pending)
            if not pending:
                return
            if len(pending) < left:
                left, since = len(pending), time.monotonic()
            elif time.monotonic() - since > STALL_NOTICE_SECONDS:  # never a silent wait
                self.notice(
                    f"{len(pending)} case(s) pending, none done for {time.monotonic() - since:.0f} s: "
                    "are workers running?"
                )
                since = time.monotonic()
            self._send(pending)
            self._check_deadline(len(keys) - len(pending), len(keys))
            time.sleep(poll)

    def _send(self, pending: set[str]) -> None:
        for cid, job in self.chunks:
            if cid in self._sent or not pending.intersection(job.keys):
                continue
            token = new_owner("queued")
            if self.patience.call(self.store.claim, cid, token, self.store.leases.queued, job=job.model_dump()):
                self.patience.call(send_chunk, cid, job, settings=self.settings, adopt=token)
            self._sent.add(cid)  # claimed by us, or in flight already (a worker, a queued message)

    def _announce(self, rows: list[BatchItemRow], pending: set[str]) -> None:
        """Each newly finished case (its line), and each newly finished chunk (its size and first cases)."""
        for r in rows:
            if r.status == "done" and r.key not in self._announced and r.result is not None:
                self._announced.add(r.key)
                self.on_item(ItemResult.model_validate(r.result))
        for n, (cid, job) in enumerate(self.chunks, 1):
            if cid not in self._finished and cid in self._sent and not pending.intersection(job.keys):
                self._finished.add(cid)
                names = ", ".join(job.keys[:3]) + (f" … (+{len(job.keys) - 3})" if len(job.keys) > 3 else "")
                self.notice(
                    f"chunk {n}/{len(self.chunks)} done ({len(self._finished)} of {len(self.chunks)} finished): "
                    f"{len(job.keys)} case(s): {names}"
                )

    def _check_deadline(self, done: int, total: int) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            from lexlogic.engine.jobs.batch import BatchError

            raise BatchError(
                f"batch {self.batch_id}: {done}/{total} portfolio cases done after {self.timeout:.0f} s "
                "(are workers running?); re-run the same command to resume"
            )
