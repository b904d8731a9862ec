"""Portfolio analysis: every case file and dossier folder under a directory, one FSM run each.

Why a batch is a database object: its id (by default derived from the directory) and its items (key,
content digest, run id, result) live next to the runs, so re-running the same batch skips what is done
and resumes what was interrupted, whether the items ran on a local process pool or on Celery workers.
An item's result is recorded once (a guarded update): a redelivered task finds it done and writes nothing.

Discovery: a directory holding case files (``*.json`` with ``facts``) is a folder of cases; a directory
holding documents the ingestion reads (and no case file) is one dossier (its sub-folders included).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.case.machine import CaseState, Phase
from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchStore, Item, ItemResult
from lexlogic.engine.jobs.local_pool import LocalPool
from lexlogic.engine.jobs.patience import DEFAULT_LIMIT, OUTAGE, Patience
from lexlogic.engine.jobs.tasks import Job
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.store.cases import CaseStore, LeaseTimes, new_owner
from lexlogic.engine.store.db import DiskFullError
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list
from lexlogic.settings import Settings

STALL_NOTICE_SECONDS = 60.0


class BatchError(LexlogicError):
    """A batch cannot run (no such directory, nothing to analyse, workers silent past the timeout)."""


# --- discovery ---------------------------------------------------------------------------------------------
def _is_case_file(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("facts"), dict)


def _digest_files(files: Iterable[Path], root: Path) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def discover(root: str | Path) -> list[Item]:
    """The batch's items in key order (see the module docstring)."""
    from lexlogic.engine.documents.ingest import SUPPORTED, dossier_files

    root = Path(root).resolve()
    if not root.is_dir():
        raise BatchError(f"{root}: not a directory")
    items: list[Item] = []
    for here, dirs, files in os.walk(root):
        d = Path(here)
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        names = sorted(f for f in files if not f.startswith("."))
        cases = [d / f for f in names if f.lower().endswith(".json") and _is_case_file(d / f)]
        docs = [f for f in names if Path(f).suffix.lower() in SUPPORTED]
        if cases:
            for c in cases:
                items.append(Item(key=str(c.relative_to(root)), kind="case", path=str(c), digest=_digest_files([c], d)))
        elif docs:
            keep = dossier_files(d)[0]
            key = str(d.relative_to(root)) if d != root else "."
            items.append(Item(key=key, kind="dossier", path=str(d), digest=_digest_files(keep, d)))
            dirs[:] = []  # a dossier's sub-folders belong to it
    return sorted(items, key=lambda i: i.key)


def batch_id_for(root: str | Path) -> str:
    return "b" + hashlib.sha1(str(Path(root).resolve()).encode()).hexdigest()[:12]


class PackSummary(BaseModel):
    """One pack's cases: P(target) only averages within a pack (targets of two packs are different events)."""

    pack: str
    target_label: str = Field(description="the pack's words for its target (as the verdicts carry them)")
    n: int
    by_state: dict[str, int] = Field(description="the target's state word → cases")
    by_status: dict[str, int] = Field(description="the verdict's status in words → cases")
    p_target: dict[str, Any] = Field(description="n, mean, median and a histogram of P(target)")
    top_missing: list[tuple[str, int]]


class Summary(BaseModel):
    total: int
    by_status: dict[str, int]
    by_verdict: dict[str, int]
    p_liability: dict[str, Any] = Field(description="mean, median and a histogram of P(target), all packs together")
    top_missing: list[tuple[str, int]]
    by_pack: list[PackSummary] = Field(default_factory=new_list)


def _p_stats(ps: list[float]) -> dict[str, Any]:
    bins = {"[0,0.2)": 0, "[0.2,0.4)": 0, "[0.4,0.6)": 0, "[0.6,0.8)": 0, "[0.8,1]": 0}
    for p in ps:
        bins[list(bins)[min(int(p * 5), 4)]] += 1
    return {
        "n": len(ps),
        "mean": round(statistics.fmean(ps), 4) if ps else None,
        "median": round(statistics.median(ps), 4) if ps else None,
        "histogram": bins,
    }


def _pack_summary(pack: str, rs: list[ItemResult], top: int) -> PackSummary:
    return PackSummary(
        pack=pack,
        target_label=next((r.target_label for r in rs if r.target_label), ""),
        n=len(rs),
        by_state=dict(Counter(r.target_state or "—" for r in rs).most_common()),
        by_status=dict(Counter(r.status_text or r.status for r in rs).most_common()),
        p_target=_p_stats([r.p_liability for r in rs if r.p_liability is not None]),
        top_missing=Counter(f for r in rs for f in r.missing).most_common(top),
    )


def summarise(results: list[ItemResult], top: int = 10) -> Summary:
    packs: dict[str, list[ItemResult]] = {}
    for r in results:
        packs.setdefault(r.pack or "—", []).append(r)
    return Summary(
        total=len(results),
        by_status=dict(sorted(Counter(r.status for r in results).items())),
        by_verdict=dict(sorted(Counter(r.verdict or "—" for r in results).items())),
        p_liability=_p_stats([r.p_liability for r in results if r.p_liability is not None]),
        top_missing=Counter(f for r in results for f in r.missing).most_common(top),
        by_pack=[_pack_summary(p, rs, top) for p, rs in sorted(packs.items())],
    )


# --- running a batch ---------------------------------------------------------------------------------------
class BatchReport(BaseModel):
    batch_id: str
    mode: Literal["local", "celery", "portfolio", "portfolio_celery"]
    total: int
    skipped: int = Field(description="items already done by an earlier run of the batch")
    seconds: float
    results: list[ItemResult]
    summary: Summary


def _create_run(store: CaseStore, bstore: BatchStore, batch_id: str, row: BatchItemRow, packs: PackLibrary) -> bool:
    """The item's run, created once (its first snapshot) with the item's own pack (a dossier's
    ``dossier.yaml``, a case file's ``pack``); False if the item is invalid (then done, with its reason)."""
    if store.latest(row.run_id) is not None:
        return True
    if row.kind == "dossier":
        try:
            state = CaseState(case_id=row.run_id, source=row.path, pack=packs.for_dossier(row.path))
        except LexlogicError as exc:
            bstore.fail(batch_id, row.key, f"{type(exc).__name__}: {exc}"[:500])
            return False
    else:
        from lexlogic.logic.facts import parse_case

        try:
            raw = json.loads(Path(row.path).read_text(encoding="utf-8"))
            pack = packs.pack(str(raw["pack"]) if raw.get("pack") else None)
            case_file = parse_case(raw, pack, row.key).model_dump(mode="json")
        except (OSError, ValueError, LexlogicError) as exc:
            bstore.fail(batch_id, row.key, f"{type(exc).__name__}: {exc}"[:500])
            return False
        state = CaseState(
            case_id=row.run_id, pack=pack.name, source=row.path, phase=Phase.PLANNING, case_file=case_file
        )
    store.save(
        row.run_id,
        state.model_dump(mode="json"),
        phase=state.phase.value,
        status=state.status,
        state_hash=state.logical_hash(),
        note="created",
        source=state.source,
    )
    return True


def run_batch(
    root: str | Path,
    *,
    packs: PackLibrary,
    settings: Settings,
    db_url: str | None = None,
    batch_id: str | None = None,
    concurrency: int | None = None,
    distributed: bool | None = None,
    timeout: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_item: Callable[[ItemResult, int, int], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    outage_limit: float = DEFAULT_LIMIT,
    items: list[Item] | None = None,
) -> BatchReport:
    """Analyse every item under ``root`` with the rule packs ``packs`` (each item with its own pack),
    distributed when a broker is configured unless told otherwise. ``items``: the batch's items when the
    caller chose them (``lexlogic impact``: each case twice, each copy with its own rules folder), else
    those ``discover`` finds under ``root``.

    Outages of the database or the broker are waited out (``on_notice`` says why, up to ``outage_limit`` s
    of continuous unavailability); the batch ends when every item is done, never with a result missing."""
    t0 = time.perf_counter()
    root = Path(root).resolve()
    items = items if items is not None else discover(root)
    if not items:
        raise BatchError(f"{root}: no case file (*.json with facts) and no dossier folder")
    notice = on_notice or (lambda msg: None)
    ctx = _Ctx(
        batch_id=batch_id or batch_id_for(root),
        keys=[i.key for i in items],
        db_url=db_url,
        packs=packs,
        settings=settings,
        own_rules=_own_rules(items, packs),
        patience=Patience(notice, limit=outage_limit),
        progress=on_progress or (lambda done, n: None),
        notice=notice,
        deadline=time.monotonic() + timeout if timeout else None,
        timeout=timeout,
    )
    store = ctx.patience.call(CaseStore, db_url or settings.database, LeaseTimes.from_settings(settings))
    bstore = ctx.patience.call(BatchStore, store.engine)
    ctx.store, ctx.bstore = store, bstore
    ctx.patience.call(bstore.open, ctx.batch_id, str(root), items)
    done_before = ctx.patience.call(bstore.items, ctx.batch_id, ctx.keys)
    skipped = sum(1 for r in done_before if r.status == "done")
    remote = bool(settings.broker_url) if distributed is None else distributed
    announced = {r.key for r in done_before if r.status == "done"}  # done by an earlier run: not announced again

    def progress(done: int, n: int) -> None:
        """The count, then each item finished since the last call (``on_item(result, rank, total)``)."""
        if on_progress is not None:
            on_progress(done, n)
        if on_item is not None:
            for row in bstore.items(ctx.batch_id, ctx.keys):
                if row.status == "done" and row.key not in announced and row.result is not None:
                    announced.add(row.key)
                    on_item(ItemResult.model_validate(row.result), len(announced), n)

    ctx.progress = progress
    ctx.tick()
    if remote:
        _run_remote(ctx)
    else:
        _run_local(ctx, concurrency)
    rows = ctx.patience.call(bstore.items, ctx.batch_id, ctx.keys)
    results = [ItemResult.model_validate(r.result) for r in rows if r.result is not None]
    store.close()
    if len(results) < len(items):  # never a silent partial result
        raise BatchError(f"batch {ctx.batch_id}: {len(results)}/{len(items)} results; re-run the same command")
    return BatchReport(
        batch_id=ctx.batch_id,
        mode="celery" if remote else "local",
        total=len(items),
        skipped=skipped,
        seconds=round(time.perf_counter() - t0, 3),
        results=results,
        summary=summarise(results),
    )


def _own_rules(items: list[Item], packs: PackLibrary) -> dict[str, PackLibrary]:
    """Item key → the library of the rules folder it carries (one library per folder)."""
    libraries: dict[str, PackLibrary] = {}
    for i in items:
        if i.rules_dir and i.rules_dir not in libraries:
            libraries[i.rules_dir] = PackLibrary(Path(i.rules_dir), packs.default)
    return {i.key: libraries[i.rules_dir] for i in items if i.rules_dir}


@dataclass
class _Ctx:
    """One batch run's context: where it stores, how it waits, whom it tells."""

    batch_id: str
    keys: list[str]
    db_url: str | None
    packs: PackLibrary
    settings: Settings
    patience: Patience
    progress: Callable[[int, int], None]
    notice: Callable[[str], None]
    deadline: float | None
    timeout: float | None
    own_rules: dict[str, PackLibrary] = field(default_factory=dict)  # item key → the rules it carries
    store: CaseStore = field(init=False)
    bstore: BatchStore = field(init=False)

    def packs_of(self, row: BatchItemRow) -> PackLibrary:
        """The rules an item runs with: its own folder when it carries one, else the batch's."""
        return self.own_rules.get(row.key, self.packs)

    def pending(self) -> list[BatchItemRow]:
        return [r for r in self.patience.call(self.bstore.items, self.batch_id, self.keys) if r.status == "pending"]

    def tick(self) -> None:
        try:
            self.progress(self.bstore.done_count(self.batch_id, self.keys), len(self.keys))
        except OUTAGE:
            pass  # progress is cosmetic; the next real call waits the outage out

    def check_deadline(self, waiting_for: str) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            done = len(self.keys) - len(self.pending())
            raise BatchError(
                f"batch {self.batch_id}: {done}/{len(self.keys)} done after {self.timeout:.0f} s ({waiting_for}); "
                "re-run the same command to resume"
            )


def _run_local(ctx: _Ctx, concurrency: int | None) -> None:
    """Rounds over the pending items until none is left: outages waited out, items held by another live
    process waited for (or taken over once their holder is dead or out of time)."""
    owners: dict[str, str] = {}
    pool: LocalPool | None = None
    stalled, before = 0, len(ctx.keys) + 1
    last: list[str] = []
    try:
        while pending := ctx.pending():
            stalled = 0 if len(pending) < before else stalled + 1
            before = len(pending)
            if stalled:
                _stalled(ctx, stalled, last)
            todo = [
                r
                for r in pending
                if ctx.patience.call(_create_run, ctx.store, ctx.bstore, ctx.batch_id, r, ctx.packs_of(r))
            ]
            if pool is None and todo:
                pool = LocalPool(max(1, min(concurrency or os.cpu_count() or 1, len(todo))))
            work = [(r.run_id, _job(ctx, r), owners.setdefault(r.run_id, new_owner())) for r in todo]
            last = pool.run(ctx.settings.model_dump(mode="json"), ctx.db_url, work, ctx.tick) if pool and work else []
            full = next((o for o in last if o.startswith("disk full")), None)
            if full is not None:
                why = full.removeprefix("disk full: ")[:160]
                raise DiskFullError(
                    f"no space left on device ({why}): the saved state is intact; free space and re-run"
                )
            down = next((o.removeprefix("unavailable: ") for o in last if o.startswith("unavailable")), None)
            if down is not None:
                ctx.patience.wait(down)
                stalled, before = 0, len(ctx.keys) + 1  # an outage is not a stall
            else:
                ctx.patience.ok()
    finally:
        if pool is not None:
            pool.close()
    ctx.tick()


def _job(ctx: _Ctx, row: BatchItemRow) -> dict[str, Any]:
    return Job(kind="batch", batch_id=ctx.batch_id, key=row.key, rules_dir=str(ctx.packs_of(row).root)).model_dump()


def _stalled(ctx: _Ctx, rounds: int, last: list[str]) -> None:
    """A round that finished nothing: items held by another live process are waited for (until their
    holder ends or its lease lapses); anything else that keeps an item pending 20 rounds is an error."""
    busy = sum(o == "busy" for o in last)
    ctx.check_deadline(f"{busy} item(s) held by another process")
    if not busy and rounds > 20:
        raise BatchError(f"batch {ctx.batch_id}: items stay pending ({', '.join(sorted(set(last)))[:300]})")
    if busy and rounds % 10 == 1:
        ctx.notice(f"{busy} item(s) held by another process: waiting for them (or for their lease to lapse)")
    time.sleep(min(5.0, 0.5 * rounds))


def _run_remote(ctx: _Ctx) -> None:
    """Enqueue each pending item under a queued lease (so the resumer finds it if its message is lost),
    then wait for the workers, through outages."""
    from lexlogic.engine.jobs.tasks import submit

    sent: set[str] = set()
    left, since = len(ctx.keys) + 1, time.monotonic()
    while True:
        pending = ctx.pending()
        if not pending:
            break
        if len(pending) < left:
            left, since = len(pending), time.monotonic()
        elif time.monotonic() - since > STALL_NOTICE_SECONDS:  # never a silent wait
            ctx.notice(
                f"{len(pending)} item(s) pending, none done for {time.monotonic() - since:.0f} s: are workers running?"
            )
            since = time.monotonic()
        for r in pending:
            if r.run_id in sent or not ctx.patience.call(
                _create_run, ctx.store, ctx.bstore, ctx.batch_id, r, ctx.packs_of(r)
            ):
                continue
            job = Job.model_validate(_job(ctx, r))
            token = new_owner("queued")
            if not ctx.patience.call(ctx.store.claim, r.run_id, token, ctx.store.leases.queued, job=job.model_dump()):
                sent.add(r.run_id)  # in flight already (a worker, or a queued message): leave it
                continue
            ctx.patience.call(submit, r.run_id, job, settings=ctx.settings, adopt=token, store=ctx.store)
            sent.add(r.run_id)
        ctx.tick()
        ctx.check_deadline("are workers running?")
        time.sleep(0.3)
    ctx.tick()


CSV_COLUMNS = [c for c in ItemResult.model_fields if c != "proof"]  # a tree has no cell: JSONL only


def write_results(results: list[ItemResult], out: Any, fmt: Literal["jsonl", "csv"] = "jsonl") -> None:
    """Results in key order: one JSON object per line, or CSV (lists joined with ';')."""
    if fmt == "jsonl":
        for r in results:
            d = r.model_dump(mode="json")
            if d.get("proof") is None:
                d.pop("proof", None)  # asked for (--proofs) or absent: the per-case lines stay as they were
            out.write(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n")
        return
    import csv

    w = csv.writer(out)
    w.writerow(CSV_COLUMNS)
    for r in results:
        d = r.model_dump(mode="json")
        w.writerow(
            [
                ";".join(str(x) for x in d[c]) if isinstance(d[c], list) else ("" if d[c] is None else d[c])
                for c in CSV_COLUMNS
            ]
        )
