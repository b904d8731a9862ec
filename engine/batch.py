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
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import DateTime, Engine, Integer, String, Text, select, update
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.orchestrator import CaseState, Phase
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.store.db import Base, JSONType, create_tables, session_factory
from lexlogic.logic.errors import LexlogicError

ItemKind = Literal["case", "dossier"]


class BatchError(LexlogicError):
    """A batch cannot run (no such directory, nothing to analyse, workers silent past the timeout)."""


def _now() -> datetime:
    return datetime.now(UTC)


class BatchRow(Base):
    __tablename__ = "batches"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    root: Mapped[str] = mapped_column(Text)
    total: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class BatchItemRow(Base):
    __tablename__ = "batch_items"
    batch_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(500), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    path: Mapped[str] = mapped_column(Text)
    digest: Mapped[str] = mapped_column(String(64))
    run_id: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending | done
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # deliveries that claimed its run
    repeats: Mapped[int] = mapped_column(Integer, default=0)  # finishes that found it already done
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Item(BaseModel):
    key: str = Field(description="path relative to the batch directory")
    kind: ItemKind
    path: str
    digest: str


class ItemResult(BaseModel):
    """One line of results.jsonl: only what the analysis decided (no timings, no worker names), so a
    batch run on workers and the same batch on a local pool give identical files."""

    key: str
    kind: ItemKind
    case_id: str | None = None
    status: str
    phase: str | None = None
    verdict: str | None = None
    p_liability: float | None = None
    remedy_range: list[float] | None = None
    missing: list[str] = Field(default_factory=list)
    question: str | None = None
    steps: int = 0
    message: str = ""


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


def run_id_for(batch_id: str, item: Item) -> str:
    return f"batch-{batch_id}-{hashlib.sha1(item.key.encode()).hexdigest()[:12]}-{item.digest[:8]}"


# --- results -----------------------------------------------------------------------------------------------
def result_of(key: str, kind: ItemKind, state: CaseState) -> ItemResult:
    """The item's line, read from the run's final state (the evaluation read as plain JSON)."""
    raw = state.model_dump(mode="json")
    ev: dict[str, Any] = raw.get("evaluation") or {}
    legacy: dict[str, Any] = ev["verdict"] if isinstance(ev.get("verdict"), dict) else {}
    prob = ev.get("probability")
    p = prob.get("p_target") if isinstance(prob, dict) else legacy.get("probability")
    missing = list(ev.get("missing_facts") or [])
    for q in ev.get("questions") or []:
        if isinstance(q, dict) and q.get("fact") and q["fact"] not in missing:
            missing.append(q["fact"])
    remedy = ev.get("remedy_range") or legacy.get("damages_range_eur")
    return ItemResult(
        key=key,
        kind=kind,
        case_id=(raw.get("case_file") or {}).get("case_id"),
        status=state.status,
        phase=state.phase.value,
        verdict=ev.get("label") if isinstance(ev.get("label"), str) else legacy.get("label"),
        p_liability=round(float(p), 4) if isinstance(p, int | float) else None,
        remedy_range=[round(float(x), 2) for x in remedy] if isinstance(remedy, list) else None,
        missing=missing,
        question=(state.pending_question or {}).get("fact"),
        steps=state.budget.steps,
        message=state.message,
    )


class Summary(BaseModel):
    total: int
    by_status: dict[str, int]
    by_verdict: dict[str, int]
    p_liability: dict[str, Any] = Field(description="mean, median and a histogram of P(liability)")
    top_missing: list[tuple[str, int]]


def summarise(results: list[ItemResult], top: int = 10) -> Summary:
    ps = [r.p_liability for r in results if r.p_liability is not None]
    bins = {"[0,0.2)": 0, "[0.2,0.4)": 0, "[0.4,0.6)": 0, "[0.6,0.8)": 0, "[0.8,1]": 0}
    for p in ps:
        bins[list(bins)[min(int(p * 5), 4)]] += 1
    missing = Counter(f for r in results for f in r.missing)
    return Summary(
        total=len(results),
        by_status=dict(sorted(Counter(r.status for r in results).items())),
        by_verdict=dict(sorted(Counter(r.verdict or "—" for r in results).items())),
        p_liability={
            "n": len(ps),
            "mean": round(statistics.fmean(ps), 4) if ps else None,
            "median": round(statistics.median(ps), 4) if ps else None,
            "histogram": bins,
        },
        top_missing=missing.most_common(top),
    )


# --- the store ---------------------------------------------------------------------------------------------
_by_engine: dict[int, BatchStore] = {}


class BatchStore:
    @classmethod
    def on(cls, engine: Engine) -> BatchStore:
        """One store per engine and process (creating the tables is checked once)."""
        store = _by_engine.get(id(engine))
        if store is None or store.engine is not engine:
            store = _by_engine[id(engine)] = cls(engine)
        return store

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        create_tables(engine, [BatchRow.__table__, BatchItemRow.__table__])
        self.Session = session_factory(engine)

    def open(self, batch_id: str, root: str, items: list[Item]) -> None:
        """Create the batch or bring it up to date: new items pending, changed ones (digest) reset."""
        with self.Session.begin() as s:
            row = s.get(BatchRow, batch_id)
            if row is None:
                s.add(BatchRow(id=batch_id, root=root, total=len(items)))
            else:
                row.total = len(items)
            have = {r.key: r for r in s.scalars(select(BatchItemRow).where(BatchItemRow.batch_id == batch_id))}
            for it in items:
                old = have.get(it.key)
                if old is not None and old.digest == it.digest:
                    continue
                if old is not None:
                    s.delete(old)
                    s.flush()
                s.add(
                    BatchItemRow(
                        batch_id=batch_id,
                        key=it.key,
                        kind=it.kind,
                        path=it.path,
                        digest=it.digest,
                        run_id=run_id_for(batch_id, it),
                        status="pending",
                    )
                )

    def items(self, batch_id: str, keys: Iterable[str] | None = None) -> list[BatchItemRow]:
        q = select(BatchItemRow).where(BatchItemRow.batch_id == batch_id)
        if keys is not None:
            q = q.where(BatchItemRow.key.in_(list(keys)))
        with self.Session() as s:
            return list(s.scalars(q.order_by(BatchItemRow.key)))

    def done_count(self, batch_id: str, keys: Iterable[str]) -> int:
        wanted = set(keys)
        return sum(1 for r in self.items(batch_id) if r.key in wanted and r.status == "done")

    def attempt(self, batch_id: str, key: str) -> None:
        """Count a delivery that claimed the item's run (a worker killed mid-item shows 2)."""
        with self.Session.begin() as s:
            s.execute(
                update(BatchItemRow)
                .where(BatchItemRow.batch_id == batch_id, BatchItemRow.key == key)
                .values(attempts=BatchItemRow.attempts + 1)
            )

    def complete(self, batch_id: str, key: str, run_id: str, state: CaseState) -> bool:
        """Record the item's result once; False (and ``repeats`` + 1) when it already was."""
        with self.Session.begin() as s:
            row = s.get(BatchItemRow, (batch_id, key))
            if row is None or row.run_id != run_id:
                return False
            res = s.execute(
                update(BatchItemRow)
                .where(BatchItemRow.batch_id == batch_id, BatchItemRow.key == key, BatchItemRow.status == "pending")
                .values(
                    status="done",
                    result=result_of(key, row.kind, state).model_dump(mode="json"),  # type: ignore[arg-type]
                    finished_at=_now(),
                )
            )
            if res.rowcount == 1:  # type: ignore[attr-defined]
                return True
            row.repeats += 1
            return False

    def fail(self, batch_id: str, key: str, message: str) -> None:
        """An item that cannot even start (an invalid case file) is done with status ``invalid``."""
        with self.Session.begin() as s:
            row = s.get(BatchItemRow, (batch_id, key))
            if row is not None and row.status == "pending":
                row.status = "done"
                row.result = ItemResult(key=key, kind=row.kind, status="invalid", message=message).model_dump(  # type: ignore[arg-type]
                    mode="json"
                )
                row.finished_at = _now()


# --- running a batch ---------------------------------------------------------------------------------------
class BatchReport(BaseModel):
    batch_id: str
    mode: Literal["local", "celery"]
    total: int
    skipped: int = Field(description="items already done by an earlier run of the batch")
    seconds: float
    results: list[ItemResult]
    summary: Summary


def _create_run(store: CaseStore, bstore: BatchStore, batch_id: str, row: BatchItemRow) -> bool:
    """The item's run, created once (its first snapshot); False if the item is invalid (then done)."""
    if store.latest(row.run_id) is not None:
        return True
    if row.kind == "dossier":
        state = CaseState(case_id=row.run_id, source=row.path)
    else:
        from lexlogic.engine.packs import default_pack, pack_by_name
        from lexlogic.logic.facts import parse_case

        try:
            raw = json.loads(Path(row.path).read_text(encoding="utf-8"))
            pack, _ = pack_by_name(str(raw.get("pack") or default_pack()))
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


def _local_item(db_url: str | None, run_id: str, job: dict[str, Any]) -> str:
    """A process-pool worker: the same step function as a Celery worker, both stages in one go."""
    from lexlogic.engine.tasks import Job, advance, store_for

    return advance(run_id, Job.model_validate(job), stage="all", store=store_for(db_url)).outcome


def run_batch(
    root: str | Path,
    *,
    db_url: str | None = None,
    batch_id: str | None = None,
    concurrency: int | None = None,
    distributed: bool | None = None,
    timeout: float | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> BatchReport:
    """Analyse every item under ``root`` (distributed when a broker is configured, unless told otherwise)."""
    from lexlogic.engine.tasks import Job, broker_url, submit

    t0 = time.perf_counter()
    db_url = db_url or os.environ.get("LEXLOGIC_DATABASE_URL") or None
    root = Path(root).resolve()
    items = discover(root)
    if not items:
        raise BatchError(f"{root}: no case file (*.json with facts) and no dossier folder")
    batch_id = batch_id or batch_id_for(root)
    store = CaseStore(db_url)
    bstore = BatchStore(store.engine)
    bstore.open(batch_id, str(root), items)
    keys = [i.key for i in items]
    rows = bstore.items(batch_id, keys)
    pending = [r for r in rows if r.status == "pending"]
    skipped = len(rows) - len(pending)
    todo = [r for r in pending if _create_run(store, bstore, batch_id, r)]
    total = len(items)
    remote = bool(broker_url()) if distributed is None else distributed
    progress = on_progress or (lambda done, n: None)
    progress(bstore.done_count(batch_id, keys), total)
    jobs = {r.run_id: Job(kind="batch", batch_id=batch_id, key=r.key) for r in todo}
    if remote:
        for r in todo:
            submit(r.run_id, jobs[r.run_id], store=store)
        deadline = time.monotonic() + timeout if timeout else None
        while (done := bstore.done_count(batch_id, keys)) < total:
            progress(done, total)
            if deadline and time.monotonic() > deadline:
                raise BatchError(
                    f"batch {batch_id}: {done}/{total} done after {timeout:.0f} s (are workers running? "
                    "re-run the same command to resume)"
                )
            time.sleep(0.3)
    elif todo:
        n = max(1, min(concurrency or os.cpu_count() or 1, len(todo)))
        if n == 1:
            for r in todo:
                _local_item(db_url, r.run_id, jobs[r.run_id].model_dump())
                progress(bstore.done_count(batch_id, keys), total)
        else:
            with ProcessPoolExecutor(max_workers=n, mp_context=get_context("spawn")) as pool:
                futures = [pool.submit(_local_item, db_url, r.run_id, jobs[r.run_id].model_dump()) for r in todo]
                for f in as_completed(futures):
                    f.result()
                    progress(bstore.done_count(batch_id, keys), total)
    progress(bstore.done_count(batch_id, keys), total)
    results = [ItemResult.model_validate(r.result) for r in bstore.items(batch_id, keys) if r.result is not None]
    store.close()
    return BatchReport(
        batch_id=batch_id,
        mode="celery" if remote else "local",
        total=total,
        skipped=skipped,
        seconds=round(time.perf_counter() - t0, 3),
        results=results,
        summary=summarise(results),
    )


CSV_COLUMNS = list(ItemResult.model_fields)


def write_results(results: list[ItemResult], out: Any, fmt: Literal["jsonl", "csv"] = "jsonl") -> None:
    """Results in key order: one JSON object per line, or CSV (lists joined with ';')."""
    if fmt == "jsonl":
        for r in results:
            out.write(json.dumps(r.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n")
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
