"""Persistence of the debate plan: one run per (case, debate), one row per completed step.

A step is committed before the next starts, so a crash leaves a run that resumes at the first missing
step (never re-doing a finished one). Tables are prefixed ``claims_`` in the shared schema.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint, select
from sqlalchemy.orm import Mapped, mapped_column, sessionmaker

from lexlogic.engine.store.db import Base, JSONType, create_tables, make_engine, session_factory


def _now() -> datetime:
    return datetime.now(UTC)


class DebateRunRow(Base):
    __tablename__ = "claims_debate_run"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=lambda: uuid.uuid4().hex)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    status: Mapped[str] = mapped_column(String(20), default="running")  # running | done
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class DebateStepRow(Base):
    __tablename__ = "claims_debate_step"
    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_claims_debate_step_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("claims_debate_run.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))  # draft | critique | fact_check | synthesis
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class DebateStore:
    def __init__(self, url: str | None = None) -> None:
        self.engine = make_engine(url)
        create_tables(self.engine, [DebateRunRow.__table__, DebateStepRow.__table__])
        self.sessions: sessionmaker = session_factory(self.engine)

    def new_run(self, case_id: str) -> str:
        with self.sessions.begin() as s:
            row = DebateRunRow(case_id=case_id)
            s.add(row)
            s.flush()
            return row.id

    def steps(self, run_id: str) -> list[tuple[str, dict[str, Any]]]:
        with self.sessions() as s:
            rows = s.scalars(
                select(DebateStepRow).where(DebateStepRow.run_id == run_id).order_by(DebateStepRow.seq)
            ).all()
            return [(r.kind, r.payload) for r in rows]

    def add_step(self, run_id: str, seq: int, kind: str, payload: dict[str, Any]) -> None:
        """Commit one step; the unique (run, seq) refuses a step written twice."""
        with self.sessions.begin() as s:
            s.add(DebateStepRow(run_id=run_id, seq=seq, kind=kind, payload=payload))

    def finish(self, run_id: str) -> None:
        with self.sessions.begin() as s:
            run = s.get(DebateRunRow, run_id)
            if run is None:
                raise KeyError(f"no debate run {run_id}")
            run.status = "done"

    def status(self, run_id: str) -> str | None:
        with self.sessions() as s:
            run = s.get(DebateRunRow, run_id)
            return run.status if run else None

    def dispose(self) -> None:
        self.engine.dispose()
