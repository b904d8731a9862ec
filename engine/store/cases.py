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

Lease times are read from the DATABASE's clock (``db_time``), never the worker's: a worker whose clock runs
ahead would otherwise see every live lease as expired and take it over (issue 34: 118 takeovers at +10 s).
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    DateTime,
    Float,
    Integer,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    delete,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from lexlogic.engine.store.compact import pack as pack_field
from lexlogic.engine.store.compact import unpack as unpack_field
from lexlogic.engine.store.db import (
    Base,
    JSONType,
    create_tables,
    dispose_engine,
    make_engine,
    point_reads,
    session_factory,
)
from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import Settings

# Notes that open a new epoch of a case's history: the loop detector counts states from the last one.
EPOCH_NOTES = ("restart",)
EPOCH_PREFIXES = ("created", "restored from ", "replay of ")


class UnreadableState(LexlogicError):
    """A saved state this version of lexlogic cannot read (written by another version, or damaged).

    Why a 409 and not a 422 or a 500: the request is well formed and the state is there; it conflicts with the
    version serving it. The message says so in the words the CLI's ``analyze`` uses
    (« l'analyse enregistrée n'est pas lisible par cette version ») and what to do."""

    status = 409
    kind = "unreadable-state"


@dataclass(frozen=True)
class LeaseTimes:
    """How long a lease lasts, in seconds: a running run's (renewed every third of it) and a queued run's
    (waiting for a worker). The edge builds it from ``Settings.run_lease_seconds`` / ``queued_lease_seconds``."""

    run: float = 30.0
    queued: float = 3600.0

    @classmethod
    def from_settings(cls, settings: Settings) -> LeaseTimes:
        return cls(run=settings.run_lease_seconds, queued=settings.queued_lease_seconds)


DELTA = "__changes__"  # a snapshot row that holds only what changed since its base
FULL_EVERY = 10  # every 10th snapshot is whole: rebuilding one reads at most 10 rows


class RunBusyError(LexlogicError):
    """The case is being run (a live lease held by another run): nothing was written; retry later."""

    status = 409


class LeaseLostError(RunBusyError):
    """This run's lease was taken over (it stalled past its time): it must stop writing."""


def _now() -> datetime:
    return datetime.now(UTC)


def db_time(s: Session) -> float:
    """The database server's clock as epoch seconds: the one clock every worker agrees on."""
    if s.get_bind().dialect.name == "postgresql":
        q = "SELECT extract(epoch from clock_timestamp())"
    else:  # SQLite is a file on this host: its clock is the host's, read by SQLite itself
        q = "SELECT (julianday('now') - 2440587.5) * 86400.0"
    return float(s.execute(text(q)).scalar_one())


class CaseRun(Base):
    __tablename__ = "case_runs"
    case_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    source: Mapped[str] = mapped_column(Text, default="")
    head_seq: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[str] = mapped_column(String(32), default="INIT")
    status: Mapped[str] = mapped_column(String(32), default="running")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


# the run head read of every API request, built once (``PointReads`` compiles it once)
_HEAD_SEQ = select(CaseRun.head_seq).where(CaseRun.case_id == bindparam("case_id"))


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
    def __init__(self, url: str, leases: LeaseTimes | None = None) -> None:
        self.leases = leases or LeaseTimes()
        if url.startswith("sqlite:///"):
            from pathlib import Path

            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine = make_engine(url)
        create_tables(
            self.engine,
            [CaseRun.__table__, CaseStateRow.__table__, DocumentRow.__table__, CaseLease.__table__],
        )
        self.Session = session_factory(self.engine)
        self._last: dict[str, tuple[int, dict[str, Any]]] = {}  # the head this store wrote, per case

    def close(self) -> None:
        dispose_engine(self.engine)

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
                lease.expires_at = db_time(s) + hold.ttl
            elif lease is not None and not self._claimable(lease, db_time(s)):
                raise RunBusyError(f"case {case_id!r} is running: nothing written")
            if run is None:
                run = CaseRun(case_id=case_id, source=source, head_seq=0)
                s.add(run)
                s.flush()
            seq = run.head_seq + 1
            stored = self._encode(s, case_id, run.head_seq, seq, state)
            s.add(
                CaseStateRow(
                    case_id=case_id, seq=seq, phase=phase, status=status, state_hash=state_hash, note=note, state=stored
                )
            )
            run.head_seq, run.phase, run.status, run.updated_at = seq, phase, status, _now()
        self._last[case_id] = (seq, state)
        if hold is not None:
            hold.seq = seq
        return seq

    # --- snapshots as changes: a step stores the top-level fields it changed, every FULL_EVERY-th is whole ---
    def _encode(self, s: Any, case_id: str, head: int, seq: int, state: dict[str, Any]) -> dict[str, Any]:
        """What the row holds: the whole state, or ``{DELTA: {base, set, unset}}`` against the head; a large
        field (the verdict with its proof trees, the ontology) is stored as a deflated DAG (`compact`)."""
        if head == 0 or seq % FULL_EVERY == 1:
            return {k: pack_field(v) for k, v in state.items()}
        last = self._last.get(case_id)
        prev = last[1] if last is not None and last[0] == head else self._state_at(s, case_id, head)
        changed = {k: pack_field(v) for k, v in state.items() if k not in prev or prev[k] != v}
        unset = [k for k in prev if k not in state]
        return {DELTA: {"base": head, "set": changed, "unset": unset}}

    @staticmethod
    def _state_at(s: Any, case_id: str, seq: int) -> dict[str, Any]:
        """Rebuild snapshot ``seq``: the last whole state at or before it, then the changes after it."""
        rows = s.execute(
            select(CaseStateRow.seq, CaseStateRow.state)
            .where(CaseStateRow.case_id == case_id, CaseStateRow.seq <= seq, CaseStateRow.seq > seq - FULL_EVERY)
            .order_by(CaseStateRow.seq.desc())
        ).all()
        if not rows or rows[0][0] != seq:
            raise KeyError(f"case {case_id!r} has no state {seq}")
        chain = []
        for _, stored in rows:
            chain.append(stored)
            if DELTA not in stored:
                break
        else:
            raise KeyError(f"case {case_id!r}: state {seq} has no whole snapshot to start from")
        state = {k: unpack_field(v) for k, v in chain[-1].items()}
        for stored in reversed(chain[:-1]):
            delta = stored[DELTA]
            state.update({k: unpack_field(v) for k, v in delta["set"].items()})
            for k in delta["unset"]:
                state.pop(k, None)
        return state

    def head_seq(self, case_id: str) -> int:
        """The case's head (0: none); one round trip (``db.PointReads``): the API reads it on every request."""
        row = point_reads(self.engine).first(_HEAD_SEQ, case_id=case_id)
        return int(row[0] or 0) if row is not None else 0

    async def ahead_seq(self, case_id: str) -> int:
        """``head_seq`` awaited: the event loop serves other requests during the round trip (the API's)."""
        row = await point_reads(self.engine).afirst(_HEAD_SEQ, case_id=case_id)
        return int(row[0] or 0) if row is not None else 0

    def latest(self, case_id: str) -> tuple[int, dict[str, Any]] | None:
        with self.Session() as s:
            run = s.get(CaseRun, case_id)
            if run is None or run.head_seq == 0:
                return None
            return run.head_seq, self._state_at(s, case_id, run.head_seq)

    def get(self, case_id: str, seq: int) -> dict[str, Any]:
        with self.Session() as s:
            return self._state_at(s, case_id, seq)

    def states(self, case_id: str) -> list[dict[str, Any]]:
        """Summaries of a case's snapshots, oldest first (the states themselves are not read)."""
        cols = (
            CaseStateRow.seq,
            CaseStateRow.phase,
            CaseStateRow.status,
            CaseStateRow.state_hash,
            CaseStateRow.note,
            CaseStateRow.created_at,
        )
        with self.Session() as s:
            rows = s.execute(select(*cols).where(CaseStateRow.case_id == case_id).order_by(CaseStateRow.seq)).all()
            return [
                {
                    "seq": seq,
                    "phase": phase,
                    "status": status,
                    "hash": h[:12],
                    "note": note,
                    "at": at.isoformat() if at else None,
                }
                for seq, phase, status, h, note, at in rows
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
            state, phase, status, h = self._state_at(s, case_id, seq), row.phase, row.status, row.state_hash
        return self.save(case_id, state, phase=phase, status=status, state_hash=h, note=f"restored from {seq}")

    def cases(self) -> list[dict[str, Any]]:
        with self.Session() as s:
            return [
                {"case_id": r.case_id, "source": r.source, "head": r.head_seq, "phase": r.phase, "status": r.status}
                for r in s.scalars(select(CaseRun).order_by(CaseRun.case_id))
            ]

    # --- leases (runs in flight) -----------------------------------------------------------------------
    @staticmethod
    def _claimable(lease: CaseLease, now: float, adopt: str | None = None) -> bool:
        """Free to take at ``now`` (the database's clock): expired, ``adopt``'s, or its process dead."""
        return lease.expires_at < now or lease.owner == adopt or owner_dead(lease.owner)

    def claim(
        self,
        case_id: str,
        owner: str,
        ttl: float | None = None,
        *,
        job: dict[str, Any] | None = None,
        adopt: str | None = None,
    ) -> bool:
        """Take the case's lease for ``owner``: free, expired, held by a dead process of this host, or held
        by ``adopt`` (the token a queued run was enqueued with). Atomic: one winner among concurrent claims.
        ``ttl``: the lease's length (default: this store's running lease)."""
        ttl = self.leases.run if ttl is None else ttl
        for _ in range(3):
            with self.Session() as s:
                now = db_time(s)
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
                if not self._claimable(lease, now, adopt):
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

    def renew(self, case_id: str, owner: str, ttl: float | None = None) -> bool:
        ttl = self.leases.run if ttl is None else ttl
        with self.Session.begin() as s:
            res = s.execute(
                update(CaseLease)
                .where(CaseLease.case_id == case_id, CaseLease.owner == owner)
                .values(expires_at=db_time(s) + ttl)
            )
            return res.rowcount == 1  # type: ignore[attr-defined]

    def release(self, case_id: str, owner: str) -> bool:
        with self.Session.begin() as s:
            res = s.execute(delete(CaseLease).where(CaseLease.case_id == case_id, CaseLease.owner == owner))
            return res.rowcount == 1  # type: ignore[attr-defined]

    def handover(self, case_id: str, owner: str, token: str, ttl: float | None = None) -> bool:
        """Pass a held lease to a queued token (the next step waits in the broker, still in flight)."""
        ttl = self.leases.queued if ttl is None else ttl
        with self.Session.begin() as s:
            res = s.execute(
                update(CaseLease)
                .where(CaseLease.case_id == case_id, CaseLease.owner == owner)
                .values(owner=token, expires_at=db_time(s) + ttl)
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
                "live": not self._claimable(row, db_time(s)),
            }

    def orphans(self, limit: int = 100) -> list[dict[str, Any]]:
        """Interrupted runs: leases whose owner is gone (dead on this host, or out of time)."""
        with self.Session() as s:
            now = db_time(s)
            rows = list(s.scalars(select(CaseLease).order_by(CaseLease.claimed_at).limit(10 * limit)))
            out = [
                {"case_id": r.case_id, "owner": r.owner, "attempts": r.attempts, "job": r.job}
                for r in rows
                if self._claimable(r, now)
            ]
        return out[:limit]

    def queued(self, older_than: float) -> list[dict[str, Any]]:
        """Live leases of runs waiting in the broker (owner ``queued:…``) enqueued more than ``older_than``
        seconds ago (database clock), oldest first: the candidates for a lost message (see jobs.lost)."""
        with self.Session() as s:
            now = db_time(s)
            rows = s.scalars(
                select(CaseLease)
                .where(CaseLease.owner.like("queued:%"), CaseLease.claimed_at < now - older_than)
                .order_by(CaseLease.claimed_at)
            )
            live = [r for r in rows if not self._claimable(r, now)]
            ids = [r.case_id for r in live]
            phases = dict(s.execute(select(CaseRun.case_id, CaseRun.phase).where(CaseRun.case_id.in_(ids))).all())
            return [
                {"case_id": r.case_id, "owner": r.owner, "job": r.job, "phase": phases.get(r.case_id, "INIT")}
                for r in live
            ]

    @contextmanager
    def hold(
        self,
        case_id: str,
        owner: str | None = None,
        *,
        ttl: float | None = None,
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
        ttl: float | None = None,
        job: dict[str, Any] | None = None,
        adopt: str | None = None,
    ) -> Hold:
        owner = owner or new_owner()
        ttl = self.leases.run if ttl is None else ttl
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
                s.add(DocumentRow(key=key, document=pack_field(document)))

    def get_document(self, key: str) -> dict[str, Any] | None:
        with self.Session() as s:
            row = s.get(DocumentRow, key)
            return unpack_field(row.document) if row else None
