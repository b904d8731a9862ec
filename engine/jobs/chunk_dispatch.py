"""The client's side of portfolio chunks on the Celery workers: send a batch's chunks, wait for their results.

The worker's side (claiming, evaluating, recording a chunk) is ``chunks``; the messages go through ``tasks``.
Its own room because the client depends on the batch runner (``BatchError``) and the broker, which the worker's
side must not (``tasks`` runs chunks).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from lexlogic.engine.jobs.batch import BatchError
from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchStore, ItemResult
from lexlogic.engine.jobs.chunks import ChunkJob
from lexlogic.engine.jobs.patience import Patience
from lexlogic.engine.jobs.tasks import send_chunk
from lexlogic.engine.store.cases import CaseStore, new_owner
from lexlogic.settings import Settings

STALL_NOTICE_SECONDS = 60.0
CLOCK_MARGIN = timedelta(seconds=60)  # results are stamped by the workers' clocks: read back this much earlier


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
            raise BatchError(
                f"batch {self.batch_id}: {done}/{total} portfolio cases done after {self.timeout:.0f} s "
                "(are workers running?); re-run the same command to resume"
            )
