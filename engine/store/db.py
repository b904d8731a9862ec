"""Database access shared by every store: SQLite file by default, PostgreSQL when configured.

``LEXLOGIC_DATABASE_URL`` selects the database (e.g. ``postgresql+psycopg://postgres@127.0.0.1:5432/test``);
unset, the file ``./.lexlogic/lexlogic.db`` is used. JSON columns become JSONB on PostgreSQL.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import ClassVar

from sqlalchemy import JSON, Engine, Table, create_engine, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import DeclarativeBase, sessionmaker

# JSON everywhere, JSONB on PostgreSQL.
JSONType = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    """Declarative base of every lexlogic table (one schema)."""

    # Every model here maps one Table (SQLAlchemy types it as the wider FromClause).
    __table__: ClassVar[Table]


def default_url() -> str:
    url = os.environ.get("LEXLOGIC_DATABASE_URL")
    if url:
        return url
    home = Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic"))
    home.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{home / 'lexlogic.db'}"


def make_engine(url: str | None = None) -> Engine:
    url = url or default_url()
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
    """Create the tables that do not exist yet, tolerating another process doing the same at the same moment
    (two workers starting together on PostgreSQL: the loser's CREATE TABLE fails with DuplicateTable or a
    unique violation on the type catalogue; the table exists then, which is all we wanted)."""
    for attempt in range(3):
        try:
            Base.metadata.create_all(engine, tables=tables)
            return
        except (ProgrammingError, IntegrityError, OperationalError) as exc:
            if attempt == 2 or "already exists" not in str(exc) and "duplicate key" not in str(exc):
                raise
            time.sleep(0.05 * (attempt + 1))
