"""Portfolio chunks on the Celery workers (``lexlogic batch --portfolio`` with a broker).

A chunk is a slice (≤ 64 cases) of one group of case files of the same pack and skeleton (``portfolio_groups``); it
is the unit a worker takes: it evaluates the chunk's cases one after the other with ``portfolio_groups.run_group``
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
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchStore, ItemResult
from lexlogic.engine.jobs.portfolio_groups import run_group
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.store.cases import CaseStore, RunBusyError
from lexlogic.settings import Settings

log = logging.getLogger("lexlogic.chunks")
TASK = "lexlogic.chunk"


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
        return _evaluate(bstore, job, pending, InferenceLimits.of(settings))
    except Exception:
        release = False  # an outage (or a bug): the lease stays and lapses, so the chunk is taken over later
        raise
    finally:
        store.let_go(hold, release=release)


def _evaluate(bstore: BatchStore, job: ChunkJob, pending: list[BatchItemRow], limits: InferenceLimits) -> ChunkRun:
    """The chunk's pending cases through the portfolio's evaluator (the worker's Settings' inference thresholds:
    ``limits``), recorded in one transaction."""
    if not pending:
        return ChunkRun("done")
    t0, c0 = time.perf_counter(), time.process_time()
    bstore.attempt_many(job.batch_id, [r.key for r in pending])
    results = run_group(job.rules_dir, [(r.key, r.path, r.run_id) for r in pending], job.proofs, limits)
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
