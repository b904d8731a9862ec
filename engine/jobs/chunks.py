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
from datetime import UTC, datetime, timedelta
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
CLOCK_MARGIN = timedelta(seconds=60)  # results are stamped by the workers' clocks: read back this much earlier


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


@dataclass
class ChunkRun:
    """What one delivery of a chunk did: ``cases`` evaluated and recorded (0 when there was nothing left to do
    or another attempt held it), in ``seconds`` of wall time and ``cpu`` seconds of this process."""

    outcome: Outcome
    cases: int = 0
    seconds: float = 0.0
    cpu: float = 0.0


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
) -> ChunkRun:
    """Evaluate the chunk's pending items and record them in one transaction. Idempotent: a chunk whose
    items are all done is not claimed (``done``); a chunk held by a live attempt is left alone (``busy``).
    A database error propagates with the lease kept (it lapses; the resumer or the task's retry takes over)."""
    bstore = BatchStore.on(store.engine)
    if not _pending(bstore, job):
        return ChunkRun("done")
    try:
        hold = store.acquire(cid, owner, job=job.model_dump(), adopt=adopt)
    except RunBusyError:
        return ChunkRun("busy")
    release = True
    try:
        lease = store.lease(cid)
        attempts = lease["attempts"] if lease else 1
        pending = _pending(bstore, job)  # read after the claim: an earlier attempt may have finished it
        if attempts > settings.resume_max_attempts:
            fail_items(bstore, job, pending, f"interrupted {attempts - 1} times: given up")
            return ChunkRun("done")
        return _evaluate(bstore, job, pending)
    except Exception:
        release = False  # an outage (or a bug): the lease stays and lapses, so the chunk is taken over later
        raise
    finally:
        store.let_go(hold, release=release)


def _evaluate(bstore: BatchStore, job: ChunkJob, pending: list[BatchItemRow]) -> ChunkRun:
    """The chunk's pending cases through the portfolio's evaluator, recorded in one transaction."""
    if not pending:
        return ChunkRun("done")
    from lexlogic.engine.jobs.portfolio import run_group

    t0, c0 = time.perf_counter(), time.process_time()
    bstore.attempt_many(job.batch_id, [r.key for r in pending])
    results = run_group(job.rules_dir, [(r.key, r.path, r.run_id) for r in pending], job.proofs)
    bstore.record_many(job.batch_id, results)
    return ChunkRun("done", len(pending), time.perf_counter() - t0, time.process_time() - c0)


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
    return run_chunk(cid, chunk, settings=settings, store=store).outcome == "done"


def _aware(t: datetime) -> datetime:
    """A stamp read back from the database in UTC (SQLite returns it without its zone)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


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
    _announced: set[str] = field(default_factory=set)
    _chunk_of: dict[str, int] = field(default_factory=dict)
    _left: list[int] = field(default_factory=list)
    _finished: int = 0

    def run(self, poll: float = 0.3, slowest: float = 2.0) -> None:
        """Send every chunk, then wait until no case of the batch is pending. A poll costs a count and the
        rows finished since the last one (not the whole batch): the client's share stays small at 10^6 cases.
        Polls come every ``poll`` s while cases finish, slowing down to ``slowest`` s while none does."""
        total = sum(len(job.keys) for _, job in self.chunks)
        self._chunk_of = {k: n for n, (_, job) in enumerate(self.chunks) for k in job.keys}
        self._left = [len(job.keys) for _, job in self.chunks]
        self._send()
        since = datetime.now(UTC)
        left, quiet, pause = total + 1, time.monotonic(), poll
        while True:
            pending = self.patience.call(self.bstore.pending_count, self.batch_id, "case")
            fresh = self.patience.call(self.bstore.finished_since, self.batch_id, since - CLOCK_MARGIN)
            since = max([since, *(_aware(r.finished_at) for r in fresh if r.finished_at is not None)])
            fresh = [r for r in fresh if r.key in self._chunk_of and r.key not in self._announced]  # margin: seen again
            self._announce(fresh)
            if not pending:
                self._announce(self.patience.call(self.bstore.items, self.batch_id))  # any line a clock hid
                return
            pause = poll if fresh else min(slowest, pause * 1.5)
            if pending < left:
                left, quiet = pending, time.monotonic()
            elif time.monotonic() - quiet > STALL_NOTICE_SECONDS:  # never a silent wait
                self.notice(
                    f"{pending} case(s) pending, none done for {time.monotonic() - quiet:.0f} s: are workers running?"
                )
                quiet = time.monotonic()
            self._check_deadline(total - pending, total)
            time.sleep(pause)

    def _send(self) -> None:
        """Each chunk under a queued lease, then its message (a chunk already leased is in flight: left)."""
        for cid, job in self.chunks:
            token = new_owner("queued")
            if self.patience.call(self.store.claim, cid, token, self.store.leases.queued, job=job.model_dump()):
                self.patience.call(send_chunk, cid, job, settings=self.settings, adopt=token)

    def _announce(self, rows: list[BatchItemRow]) -> None:
        """Each newly finished case (its line), and each chunk whose cases are all finished (its size, names)."""
        for r in sorted(rows, key=lambda r: r.key):
            n = self._chunk_of.get(r.key)
            if n is None or r.status != "done" or r.key in self._announced or r.result is None:
                continue
            self._announced.add(r.key)
            self.on_item(ItemResult.model_validate(r.result))
            self._left[n] -= 1
            if not self._left[n]:
                self._finished += 1
                keys = self.chunks[n][1].keys
                names = ", ".join(keys[:3]) + (f" … (+{len(keys) - 3})" if len(keys) > 3 else "")
                self.notice(
                    f"chunk {n + 1}/{len(self.chunks)} done ({self._finished} of {len(self.chunks)} finished): "
                    f"{len(keys)} case(s): {names}"
                )

    def _check_deadline(self, done: int, total: int) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            from lexlogic.engine.jobs.batch import BatchError

            raise BatchError(
                f"batch {self.batch_id}: {done}/{total} portfolio cases done after {self.timeout:.0f} s "
                "(are workers running?); re-run the same command to resume"
            )
