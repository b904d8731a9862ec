"""A batch's records: its items (key, content digest, run id, result) next to the runs, and the store
that writes them. Both the batch driver (jobs.batch) and the workers' tasks (jobs.tasks) record into it,
so it lives apart from either (they used to import each other)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import DateTime, Engine, Index, Integer, String, Text, func, select, update
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.case.machine import CaseState
from lexlogic.engine.store.db import Base, JSONType, create_tables, session_factory
from lexlogic.logic.model_defaults import new_list

ItemKind = Literal["case", "dossier"]
IN_LIMIT = 10_000  # keys in one IN list at most (see ``BatchStore.items``)


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

    # a portfolio client's poll reads what finished since its last one (``finished_since``): migration 0002
    __table_args__ = (Index("ix_batch_items_batch_finished", "batch_id", "finished_at"),)


class Item(BaseModel):
    key: str = Field(description="path relative to the batch directory")
    kind: ItemKind
    path: str
    digest: str = Field(description="the item's content (and its rules', when it carries them): a change resets it")
    rules_dir: str | None = Field(
        default=None, description="the rules folder this item runs with (None: the batch's); two versions of one pack"
    )


class ItemResult(BaseModel):
    """One line of results.jsonl: only what the analysis decided (no timings, no worker names), so a
    batch run on workers and the same batch on a local pool give identical files."""

    key: str
    kind: ItemKind
    pack: str | None = Field(default=None, description="the rule pack the item was analysed with")
    case_id: str | None = None
    status: str
    phase: str | None = None
    verdict: str | None = None
    p_liability: float | None = None
    remedy_range: list[float] | None = None
    missing: list[str] = Field(default_factory=new_list)
    question: str | None = None
    steps: int = 0
    message: str = ""
    target_label: str | None = Field(default=None, description="what P(target) is called, in the pack's words")
    target_state: str | None = Field(default=None, description="the target's state word (établi, non établi…)")
    status_text: str | None = Field(default=None, description="the verdict's status in words")
    proof: dict[str, Any] | None = Field(
        default=None, description="portfolio mode with --proofs: the target's proof tree and why-not (else absent)"
    )


def run_id_for(batch_id: str, item: Item) -> str:
    return f"batch-{batch_id}-{hashlib.sha1(item.key.encode()).hexdigest()[:12]}-{item.digest[:8]}"


# --- results -----------------------------------------------------------------------------------------------
_READ = {
    "verdict",
    "probability",
    "missing_facts",
    "questions",
    "remedy_range",
    "label",
    "target_label",
    "outcome_states",
    "target",
    "status_text",
}


def result_of(key: str, kind: ItemKind, state: CaseState) -> ItemResult:
    """The item's line, read from the run's final state (the evaluation read as plain JSON)."""
    raw = state.model_dump(mode="json", include={"case_file"})
    ev: dict[str, Any] = (
        state.evaluation.model_dump(mode="json", include=_READ) if state.evaluation is not None else {}
    )  # only what the line reads: the whole verdict's dump cost ~30 ms a case
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
        pack=state.pack,
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
        target_label=ev.get("target_label") or None,
        target_state=(ev.get("outcome_states") or {}).get(ev.get("target") or "") or None,
        status_text=ev.get("status_text") or None,
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
        """The batch's items in key order (those of ``keys`` when given). Beyond ``IN_LIMIT`` keys the batch's
        rows are read whole and filtered here: a query carries at most 65,535 parameters on PostgreSQL."""
        q = select(BatchItemRow).where(BatchItemRow.batch_id == batch_id)
        wanted = list(keys) if keys is not None else None
        if wanted is not None and len(wanted) <= IN_LIMIT:
            q = q.where(BatchItemRow.key.in_(wanted))
        with self.Session() as s:
            rows = list(s.scalars(q.order_by(BatchItemRow.key)))
        if wanted is not None and len(wanted) > IN_LIMIT:
            chosen = set(wanted)
            rows = [r for r in rows if r.key in chosen]
        return rows

    def pending_count(self, batch_id: str, kind: ItemKind | None = None) -> int:
        """Items still pending (of ``kind`` when given): one count, however large the batch."""
        q = select(func.count()).where(BatchItemRow.batch_id == batch_id, BatchItemRow.status == "pending")
        if kind is not None:
            q = q.where(BatchItemRow.kind == kind)
        with self.Session() as s:
            return int(s.scalar(q) or 0)

    def finished_since(self, batch_id: str, since: datetime) -> list[BatchItemRow]:
        """Items done at or after ``since`` (their writer's clock): a client's progress without reading the
        whole batch at every poll."""
        q = select(BatchItemRow).where(
            BatchItemRow.batch_id == batch_id, BatchItemRow.status == "done", BatchItemRow.finished_at >= since
        )
        with self.Session() as s:
            return list(s.scalars(q))

    def done_count(self, batch_id: str, keys: Iterable[str]) -> int:
        wanted = set(keys)
        return sum(1 for r in self.items(batch_id) if r.key in wanted and r.status == "done")

    def is_done(self, batch_id: str, key: str) -> bool:
        with self.Session() as s:
            status = s.scalar(
                select(BatchItemRow.status).where(BatchItemRow.batch_id == batch_id, BatchItemRow.key == key)
            )
            return status == "done"

    def attempt(self, batch_id: str, key: str) -> None:
        """Count a delivery that claimed the item's run (a worker killed mid-item shows 2)."""
        with self.Session.begin() as s:
            s.execute(
                update(BatchItemRow)
                .where(BatchItemRow.batch_id == batch_id, BatchItemRow.key == key)
                .values(attempts=BatchItemRow.attempts + 1)
            )

    def attempt_many(self, batch_id: str, keys: list[str]) -> None:
        """``attempt`` for a portfolio chunk's items, in one transaction (a chunk redone shows 2)."""
        with self.Session.begin() as s:
            s.execute(
                update(BatchItemRow)
                .where(BatchItemRow.batch_id == batch_id, BatchItemRow.key.in_(keys))
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

    def record(self, batch_id: str, key: str, result: dict[str, Any]) -> bool:
        """Record a result computed without a stored run (portfolio mode), once; False if already done."""
        with self.Session.begin() as s:
            res = s.execute(
                update(BatchItemRow)
                .where(BatchItemRow.batch_id == batch_id, BatchItemRow.key == key, BatchItemRow.status == "pending")
                .values(status="done", result=result, finished_at=_now())
            )
            return res.rowcount == 1  # type: ignore[attr-defined]

    def record_many(self, batch_id: str, results: list[dict[str, Any]]) -> list[bool]:
        """``record`` for a chunk's results (each ``{"key": …}``) in one transaction: one commit per chunk,
        not per item (a crash loses at most the chunk, which a re-run computes again). An item already done
        keeps its result and counts a repeat (as ``complete``): a chunk redone never writes a line twice."""
        done = []
        now = _now()
        with self.Session.begin() as s:
            for result in results:
                where = (BatchItemRow.batch_id == batch_id, BatchItemRow.key == result["key"])
                res = s.execute(
                    update(BatchItemRow)
                    .where(*where, BatchItemRow.status == "pending")
                    .values(status="done", result=result, finished_at=now)
                )
                done.append(res.rowcount == 1)  # type: ignore[attr-defined]
                if not done[-1]:
                    s.execute(update(BatchItemRow).where(*where).values(repeats=BatchItemRow.repeats + 1))
        return done

    def fail(self, batch_id: str, key: str, message: str, status: Literal["invalid", "error"] = "invalid") -> None:
        """An item that cannot even start (an invalid case file) is done with status ``invalid``; one whose run
        this version cannot go on with (an unreadable saved state) with ``error``."""
        with self.Session.begin() as s:
            row = s.get(BatchItemRow, (batch_id, key))
            if row is not None and row.status == "pending":
                row.status = "done"
                row.result = ItemResult(key=key, kind=row.kind, status=status, message=message).model_dump(  # type: ignore[arg-type]
                    mode="json"
                )
                row.finished_at = _now()
