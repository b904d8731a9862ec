"""Persistence of case runs: every FSM transition appends a full state snapshot (time travel).

Tables: ``case_runs`` (one row per case: head state), ``case_states`` (append-only snapshots, seq
1, 2, …, each with its phase and a hash for the loop detector), ``case_documents`` (ingested
documents, content-addressed, so snapshots reference documents by hash instead of copying them).
Each save is one transaction: a kill -9 leaves either the previous head or the new one, never half.

``case_run_leases`` holds the runs in flight: a run claims its case's lease before its first write, renews it
while it works (a heartbeat), and releases it when it stops. A write by anyone else while a live lease is held
is refused (busy), and a writer whose lease was taken over is fenced off (its next write fails), so two runs
never interleave in one history. A lease left behind by a process killed -9 (its pid gone on this host, or
its time run out elsewhere) marks an interrupted run: ``orphans()`` lists them for the resumer.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Float, Integer, String, Text, UniqueConstraint, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.store.db import Base, JSONType, create_tables, make_engine, session_factory
from lexlogic.logic.errors import LexlogicError

# Notes that open a new epoch of a case's history: the loop detector counts states from the last one.
EPOCH_NOTES = ("restart",)
EPOCH_PREFIXES = ("created", "restored from ", "replay of ")
LEASE_SECONDS = float(os.environ.get("LEXLOGIC_RUN_LEASE_SECONDS", "30") or 30)
QUEUED_LEASE_SECONDS = float(os.environ.get("LEXLOGIC_QUEUED_LEASE_SECONDS", "3600") or 3600)


class RunBusyError(LexlogicError):
    """The case is being run (a live lease held by another run): nothing was written; retry later."""

    status = 409


class LeaseLostError(RunBusyError):
    """This run's lease was taken over (it stalled past its time): it must stop writing."""


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


class CaseLease(Base):
    """A run in flight (see the module docstring). ``job`` says how to resume it; ``attempts`` counts claims."""

    __tablename__ = "case_run_leases"
    case_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    expires_at: Mapped[float] = mapped_column(Float)
    claimed_at: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    job: Mapped[dict[str, Any]] = mapped_column(JSONType)


def host_id() -> str:
    """This host as far as pids mean anything: its name and its pid namespace (containers sharing a host
    name, e.g. with host networking, must not judge each other's pids)."""
    try:
        ns = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        ns = 0
    return f"{socket.gethostname()}~{ns}"


def new_owner(prefix: str | None = None) -> str:
    """A lease owner id: ``host:pid:token`` for a process (its death is visible on the same host), or
    ``queued:token`` for a run waiting in the broker (only its time limit frees it)."""
    token = uuid.uuid4().hex[:12]
    if prefix:
        return f"{prefix}:{token}"
    return f"{host_id()}:{os.getpid()}:{token}"


def owner_dead(owner: str) -> bool:
    """True when the owner is a process of this host that no longer runs (killed -9, or a zombie)."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != host_id() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X")
    except OSError:
        return False


@dataclass
class Hold:
    """A claimed lease: the owner id, the head seq this run last saw (fencing), a heartbeat thread."""

    case_id: str
    owner: str
    ttl: float
    seq: int = 0
    lost: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None


class DocumentRow(Base):
    __tablename__ = "case_documents"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    document: Mapped[dict[str, Any]] = mapped_column(JSONType)


class CaseStore:
    def __init__(self, url: str | None = None) -> None:
        if url and url.startswith("sqlite:///"):
            from pathlib import Path

            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine = make_engine(url)
        create_tables(
            self.engine,
            [CaseRun.__table__, CaseStateRow.__table__, DocumentRow.__table__, CaseLease.__table__],
        )
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
        hold: Hold | None = None,
    ) -> int:
        """Append a snapshot. Without ``hold``: refused (RunBusyError) while another run holds the case;
        with it: refused (LeaseLostError) unless the lease is still this run's and the head is the one it
        last wrote or read, so a run taken over cannot write after its successor."""
        with self.Session.begin() as s:
            run = s.get(CaseRun, case_id, with_for_update=True)
            lease = s.get(CaseLease, case_id)
            if hold is not None:
                if lease is None or lease.owner != hold.owner or (run.head_seq if run else 0) != hold.seq:
                    hold.lost = True
                    raise LeaseLostError(f"case {case_id!r}: this run lost its lease (another run took over)")
                lease.expires_at = time.time() + hold.ttl
            elif lease is not None and not self._claimable(lease):
                raise RunBusyError(f"case {case_id!r} is running: nothing written")
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
        if hold is not None:
            hold.seq = seq
        return seq

    def head_seq(self, case_id: str) -> int:
        with self.Session() as s:
            return int(s.scalar(select(CaseRun.head_seq).where(CaseRun.case_id == case_id)) or 0)

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

    def hashes(self, case_id: str, *, since_epoch: bool = True) -> list[str]:
        """State hashes oldest first; by default only from the last epoch note (a restart, a restore, the
        creation): a restarted case is not a loop because it walks again through states it saw before."""
        with self.Session() as s:
            rows = s.execute(
                select(CaseStateRow.state_hash, CaseStateRow.note)
                .where(CaseStateRow.case_id == case_id)
                .order_by(CaseStateRow.seq)
            ).all()
        start = 0
        if since_epoch:
            for i, (_, note) in enumerate(rows):
                if (note or "") in EPOCH_NOTES or (note or "").startswith(EPOCH_PREFIXES):
                    start = i
        return [h for h, _ in rows[start:]]

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

    # --- leases (runs in flight) -----------------------------------------------------------------------
    @staticmethod
    def _claimable(lease: CaseLease, adopt: str | None = None) -> bool:
        return lease.expires_at < time.time() or lease.owner == adopt or owner_dead(lease.owner)

    def claim(
        self,
        case_id: str,
        owner: str,
        ttl: float = LEASE_SECONDS,
        *,
        job: dict[str, Any] | None = None,
        adopt: str | None = None,
    ) -> bool:
        """Take the case's lease for ``owner``: free, expired, held by a dead process of this host, or held
        by ``adopt`` (the token a queued run was enqueued with). Atomic: one winner among concurrent claims."""
        now = time.time()
        for _ in range(3):
            with self.Session() as s:
                lease = s.get(CaseLease, case_id)
                if lease is None:
                    s.add(
                        CaseLease(
                            case_id=case_id,
                            owner=owner,
                            expires_at=now + ttl,
                            claimed_at=now,
                            attempts=1,
                            job=job or {},
                        )
                    )
                    try:
                        s.commit()
                        return True
                    except IntegrityError:
                        s.rollback()
                        continue  # someone inserted first: look again
                if lease.owner == owner:
                    return self.renew(case_id, owner, ttl)
                if not self._claimable(lease, adopt):
                    return False
                values: dict[str, Any] = {
                    "owner": owner,
                    "expires_at": now + ttl,
                    "claimed_at": now,
                    "attempts": lease.attempts + (0 if lease.owner == adopt else 1),
                }
                if job is not None:
                    values["job"] = job
                res = s.execute(
                    update(CaseLease)
                    .where(
                        CaseLease.case_id == case_id,
                        CaseLease.owner == lease.owner,
                        CaseLease.expires_at == lease.expires_at,
                    )
                    .values(**values)
                )
                s.commit()
                return res.rowcount == 1  # type: ignore[attr-defined]
        return False

    def renew(self, case_id: str, owner: str, ttl: float = LEASE_SECONDS) -> bool:
        with self.Session.begin() as s:
            res = s.execute(
                update(CaseLease)
                .where(CaseLease.case_id == case_id, CaseLease.owner == owner)
                .values(expires_at=time.time() + ttl)
            )
            return res.rowcount == 1  # type: ignore[attr-defined]

    def release(self, case_id: str, owner: str) -> bool:
        with self.Session.begin() as s:
            res = s.execute(delete(CaseLease).where(CaseLease.case_id == case_id, CaseLease.owner == owner))
            return res.rowcount == 1  # type: ignore[attr-defined]

    def handover(self, case_id: str, owner: str, token: str, ttl: float = QUEUED_LEASE_SECONDS) -> bool:
        """Pass a held lease to a queued token (the next step waits in the broker, still in flight)."""
        with self.Session.begin() as s:
            res = s.execute(
                update(CaseLease)
                .where(CaseLease.case_id == case_id, CaseLease.owner == owner)
                .values(owner=token, expires_at=time.time() + ttl)
            )
            return res.rowcount == 1  # type: ignore[attr-defined]

    def lease(self, case_id: str) -> dict[str, Any] | None:
        with self.Session() as s:
            row = s.get(CaseLease, case_id)
            if row is None:
                return None
            return {
                "case_id": row.case_id,
                "owner": row.owner,
                "expires_at": row.expires_at,
                "attempts": row.attempts,
                "job": row.job,
                "live": not self._claimable(row),
            }

    def busy(self, case_id: str) -> bool:
        lease = self.lease(case_id)
        return bool(lease and lease["live"])

    def orphans(self, limit: int = 100) -> list[dict[str, Any]]:
        """Interrupted runs: leases whose owner is gone (dead on this host, or out of time)."""
        with self.Session() as s:
            rows = list(s.scalars(select(CaseLease).order_by(CaseLease.claimed_at).limit(10 * limit)))
            out = [
                {"case_id": r.case_id, "owner": r.owner, "attempts": r.attempts, "job": r.job}
                for r in rows
                if self._claimable(r)
            ]
        return out[:limit]

    @contextmanager
    def hold(
        self,
        case_id: str,
        owner: str | None = None,
        *,
        ttl: float = LEASE_SECONDS,
        job: dict[str, Any] | None = None,
        adopt: str | None = None,
    ) -> Iterator[Hold]:
        """Claim (RunBusyError if held), keep alive with a heartbeat, release at the end."""
        h = self.acquire(case_id, owner, ttl=ttl, job=job, adopt=adopt)
        try:
            yield h
        finally:
            self.let_go(h)

    def acquire(
        self,
        case_id: str,
        owner: str | None = None,
        *,
        ttl: float = LEASE_SECONDS,
        job: dict[str, Any] | None = None,
        adopt: str | None = None,
    ) -> Hold:
        owner = owner or new_owner()
        if not self.claim(case_id, owner, ttl, job=job, adopt=adopt):
            raise RunBusyError(f"case {case_id!r} is already running")
        h = Hold(case_id=case_id, owner=owner, ttl=ttl, seq=self.head_seq(case_id))

        def beat() -> None:
            while not h._stop.wait(ttl / 3):
                try:
                    if not self.renew(case_id, owner, ttl):
                        h.lost = True
                        return
                except Exception:  # a database hiccup: the next beat (or the next save) tries again
                    continue

        h._thread = threading.Thread(target=beat, daemon=True, name=f"lease-{case_id[:24]}")
        h._thread.start()
        return h

    def let_go(self, h: Hold, *, release: bool = True) -> None:
        """Stop the heartbeat and (by default) release the lease; never raises (the lease then expires)."""
        h._stop.set()
        if release:
            try:
                self.release(h.case_id, h.owner)
            except Exception:
                pass

    # --- documents ----------------------------------------------------------------------------------
    def put_document(self, key: str, document: dict[str, Any]) -> None:
        with self.Session.begin() as s:
            if s.get(DocumentRow, key) is None:
                s.add(DocumentRow(key=key, document=document))

    def get_document(self, key: str) -> dict[str, Any] | None:
        with self.Session() as s:
            row = s.get(DocumentRow, key)
            return row.document if row else None
