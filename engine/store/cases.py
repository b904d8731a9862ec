"""Persistence of case runs: every FSM transition appends a full state snapshot (time travel).

Tables: ``case_runs`` (one row per case: head state), ``case_states`` (append-only snapshots, seq
1, 2, …, each with its phase and a hash for the loop detector), ``case_documents`` (ingested
documents, content-addressed, so snapshots reference documents by hash instead of copying them).
Each save is one transaction: a kill -9 leaves either the previous head or the new one, never half.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.store.db import Base, JSONType, make_engine, session_factory


def _now() -> datetime:
    return datetime.now(UTC)


class CaseRun(Base):
    __tablename__ = "case_runs"
    case_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    source: Mapped[str] = mapped_column(Text, default="")
    head_seq: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[str] = mapped_column(String(32), default="INIT")
    status: Mapped[str] = mapped_column(String(32), default="running")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class CaseStateRow(Base):
    __tablename__ = "case_states"
    __table_args__ = (UniqueConstraint("case_id", "seq", name="uq_case_state_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    phase: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(32))
    state_hash: Mapped[str] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class DocumentRow(Base):
    __tablename__ = "case_documents"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column(JSONType)


def canonical_hash(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()


class CaseStore:
    def __init__(self, url: str | None = None) -> None:
        if url and url.startswith("sqlite:///"):
            from pathlib import Path

            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine = make_engine(url)
        Base.metadata.create_all(self.engine, tables=[CaseRun.__table__, CaseStateRow.__table__, DocumentRow.__table__])
        self.Session = session_factory(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # --- snapshots --------------------------------------------------------------------------------
    def save(
        self,
        case_id: str,
        state: dict[str, Any],
        *,
        phase: str,
        status: str,
        state_hash: str,
        note: str = "",
        source: str = "",
    ) -> int:
        with self.Session.begin() as s:
            run = s.get(CaseRun, case_id, with_for_update=True)
            if run is None:
                run = CaseRun(case_id=case_id, source=source, head_seq=0)
                s.add(run)
                s.flush()
            seq = run.head_seq + 1
            s.add(
                CaseStateRow(
                    case_id=case_id, seq=seq, phase=phase, status=status, state_hash=state_hash, note=note, state=state
                )
            )
            run.head_seq, run.phase, run.status, run.updated_at = seq, phase, status, _now()
            return seq

    def latest(self, case_id: str) -> tuple[int, dict[str, Any]] | None:
        with self.Session() as s:
            run = s.get(CaseRun, case_id)
            if run is None or run.head_seq == 0:
                return None
            row = s.scalars(
                select(CaseStateRow).where(CaseStateRow.case_id == case_id, CaseStateRow.seq == run.head_seq)
            ).one()
            return row.seq, row.state

    def get(self, case_id: str, seq: int) -> dict[str, Any]:
        with self.Session() as s:
            row = s.scalars(
                select(CaseStateRow).where(CaseStateRow.case_id == case_id, CaseStateRow.seq == seq)
            ).one_or_none()
            if row is None:
                raise KeyError(f"case {case_id!r} has no state {seq}")
            return row.state

    def states(self, case_id: str) -> list[dict[str, Any]]:
        """Summaries of a case's snapshots, oldest first."""
        with self.Session() as s:
            rows = s.scalars(
                select(CaseStateRow).where(CaseStateRow.case_id == case_id).order_by(CaseStateRow.seq)
            ).all()
            return [
                {
                    "seq": r.seq,
                    "phase": r.phase,
                    "status": r.status,
                    "hash": r.state_hash[:12],
                    "note": r.note,
                    "at": r.created_at.isoformat() if r.created_at else None,
                }
                for r in rows
            ]

    def hashes(self, case_id: str) -> list[str]:
        with self.Session() as s:
            return list(
                s.scalars(
                    select(CaseStateRow.state_hash).where(CaseStateRow.case_id == case_id).order_by(CaseStateRow.seq)
                ).all()
            )

    def restore(self, case_id: str, seq: int) -> int:
        """Make snapshot ``seq`` the head again (appended as a new snapshot: history is never lost)."""
        with self.Session() as s:
            row = s.scalars(
                select(CaseStateRow).where(CaseStateRow.case_id == case_id, CaseStateRow.seq == seq)
            ).one_or_none()
            if row is None:
                raise KeyError(f"case {case_id!r} has no state {seq}")
            state, phase, status, h = row.state, row.phase, row.status, row.state_hash
        return self.save(case_id, state, phase=phase, status=status, state_hash=h, note=f"restored from {seq}")

    def cases(self) -> list[dict[str, Any]]:
        with self.Session() as s:
            return [
                {"case_id": r.case_id, "source": r.source, "head": r.head_seq, "phase": r.phase, "status": r.status}
                for r in s.scalars(select(CaseRun).order_by(CaseRun.case_id))
            ]

    # --- documents ----------------------------------------------------------------------------------
    def put_document(self, key: str, document: dict[str, Any]) -> None:
        with self.Session.begin() as s:
            if s.get(DocumentRow, key) is None:
                s.add(DocumentRow(key=key, document=document))

    def get_document(self, key: str) -> dict[str, Any] | None:
        with self.Session() as s:
            row = s.get(DocumentRow, key)
            return row.document if row else None
