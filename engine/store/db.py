"""Database access shared by every store: SQLite file by default, PostgreSQL when configured.

Every store is given its URL: the edge passes ``settings.database`` (``LEXLOGIC_DATABASE_URL``, e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/test``; unset, ``$LEXLOGIC_HOME/lexlogic.db``). Nothing here
picks a database by itself. JSON columns become JSONB on PostgreSQL.
"""

from __future__ import annotations

import errno
import time
from typing import ClassVar

from sqlalchemy import JSON, Engine, Table, create_engine, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import DeclarativeBase, sessionmaker

from lexlogic.logic.errors import LexlogicError

# JSON everywhere, JSONB on PostgreSQL.
JSONType = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    """Declarative base of every lexlogic table (one schema)."""

    # Every model here maps one Table (SQLAlchemy types it as the wider FromClause).
    __table__: ClassVar[Table]


def make_engine(url: str | None) -> Engine:
    """The engine of ``url``; a missing URL is an error (nothing here falls back to a default database)."""
    if not url:
        raise ValueError("no database URL given (the edge passes settings.database)")
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _rec):  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")  # a kill -9 must not lose a committed state
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def session_factory(engine: Engine) -> sessionmaker:
    return sessionmaker(bind=engine, expire_on_commit=False)


def create_tables(engine: Engine, tables: list[Table]) -> None:
    """Make sure the schema is there: the database is brought to the head of the migration history
    (``engine.store.schema``; once per database and process). ``tables`` names what the caller needs (all
    are in the one history); nothing is created outside the migrations any more."""
    from lexlogic.engine.store import schema

    for attempt in range(3):
        try:
            schema.ensure(engine)
            return
        except (ProgrammingError, IntegrityError, OperationalError) as exc:
            # SQLite: two processes upgrading one new file at once (the loser sees « already exists » or
            # « locked »); PostgreSQL serialises upgrades on an advisory lock
            if attempt == 2 or not any(w in str(exc) for w in ("already exists", "duplicate key", "locked")):
                raise
            time.sleep(0.05 * (attempt + 1))


class DiskFullError(LexlogicError):
    """No space left where the state or the results are written: nothing half-written (each save is one
    transaction), but nothing more can be saved until space is freed."""

    exit_code = 1
    status = 507


def is_disk_full(exc: BaseException) -> bool:
    """A full disk, whoever reports it: the OS (ENOSPC), SQLite (« database or disk is full »), PostgreSQL
    (SQLSTATE 53100, « No space left on device »)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(e)
        if "disk is full" in text or "No space left on device" in text or getattr(e, "sqlstate", None) == "53100":
            return True
        e = getattr(e, "orig", None) or e.__cause__ or e.__context__
    return False


def disk_full(exc: BaseException) -> DiskFullError:
    first = (str(exc).strip().splitlines() or [""])[0][:160]
    return DiskFullError(f"no space left on device ({first}): the saved state is intact; free space and re-run")
