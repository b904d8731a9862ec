"""Database access shared by every store: SQLite file by default, PostgreSQL when configured.

Every store is given its URL: the edge passes ``settings.database`` (``LEXLOGIC_DATABASE_URL``, e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/test``; unset, ``$LEXLOGIC_HOME/lexlogic.db``). Nothing here
picks a database by itself. JSON columns become JSONB on PostgreSQL.
"""

from __future__ import annotations

import errno
import threading
import time
import weakref
from typing import Any, ClassVar, cast

from sqlalchemy import JSON, Engine, Executable, Table, create_engine, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import DeclarativeBase, sessionmaker
from sqlalchemy.sql.elements import ClauseElement

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


class PointReads:
    """One-statement reads on the request path (an API key, a case's owner, a run's head): one round trip each.

    Why: through an ORM session on PostgreSQL each such read cost four round trips — the pool's pre-ping,
    BEGIN, the SELECT, the ROLLBACK at close — and a cached GET …/verdict made three of them, 12–18 waits on a
    loaded server (measured ~45 ms of a 65 ms request). Here the statement runs in autocommit (no BEGIN, no
    ROLLBACK) on a pool without pre-ping; a connection found dead is invalidated and the read, idempotent, is
    tried once more on a fresh one — what the pre-ping did, without paying for it on every read.
    A statement given with its parameters (``first(stmt, key_id=…)``, ``stmt`` built once with ``bindparam``)
    is compiled once and run on the driver's connection: SQLAlchemy's execution path cost ~0.4–0.5 ms of CPU
    a read, the driver's ~0.04 ms (measured on the local PostgreSQL), and the API makes three a request on its
    event loop. SQLite (no round trips) reads through the given engine."""

    def __init__(self, engine: Engine) -> None:
        self._sql: dict[int, tuple[Executable, str]] = {}  # id(statement) → (statement, its SQL): compiled once
        self._loop_reads: Any = None  # engine.store.loop_reads.LoopReads, made on the first ``afirst``
        if engine.dialect.name == "sqlite":
            self.engine = engine
            self._driver = False
        else:
            self.engine = create_engine(engine.url, isolation_level="AUTOCOMMIT", pool_pre_ping=False)
            self._driver = engine.dialect.driver == "psycopg"

    def first(self, statement: Executable, **params: Any) -> Any:
        """The first row of ``statement`` (None when there is none): a ``Row``, or the driver's named tuple
        (the same attribute, index and ``_asdict()`` reads) when ``params`` are given on PostgreSQL."""
        for attempt in (0, 1):
            try:
                if params and self._driver:
                    return self._driver_first(statement, params)
                with self.engine.connect() as conn:
                    return conn.execute(statement, params or None).first()
            except DBAPIError as exc:
                if attempt or not exc.connection_invalidated:
                    raise
        return None  # unreachable: the second attempt returns or raises

    async def afirst(self, statement: Executable, **params: Any) -> Any:
        """``first`` awaited on the event loop without blocking it during the round trip (PostgreSQL through
        psycopg: ``engine.store.loop_reads``); elsewhere (SQLite: no round trip) ``first`` itself."""
        if not (params and self._driver):
            return self.first(statement, **params)
        if self._loop_reads is None:
            from lexlogic.engine.store.loop_reads import LoopReads

            url = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            self._loop_reads = LoopReads(url)
        return await self._loop_reads.first(self._compiled(statement), params)

    def _compiled(self, statement: Executable) -> str:
        known = self._sql.get(id(statement))
        if known is None or known[0] is not statement:
            sql = str(cast(ClauseElement, statement).compile(dialect=self.engine.dialect))
            known = self._sql[id(statement)] = (statement, sql)
        return known[1]

    def _driver_first(self, statement: Executable, params: dict[str, Any]) -> Any:
        """The read on the driver's connection; its errors as SQLAlchemy's (the API's 503 / retry read those)."""
        import psycopg
        from psycopg.rows import namedtuple_row

        sql = self._compiled(statement)
        pooled = self.engine.raw_connection()
        driver = pooled.driver_connection
        assert driver is not None  # a connection checked out of the pool
        try:
            with driver.cursor(row_factory=namedtuple_row) as cur:
                return cur.execute(sql, params).fetchone()
        except psycopg.Error as exc:
            dropped = isinstance(exc, psycopg.OperationalError)  # the server dropped it: never pool it again
            if dropped:
                pooled.invalidate(exc)
            raise DBAPIError.instance(sql, params, exc, psycopg.Error, connection_invalidated=dropped) from exc
        finally:
            pooled.close()

    def dispose(self) -> None:
        if self._loop_reads is not None:
            self._loop_reads.close()
        self.engine.dispose()


_READS: weakref.WeakKeyDictionary[Engine, PointReads] = weakref.WeakKeyDictionary()
_READS_LOCK = threading.Lock()


def point_reads(engine: Engine) -> PointReads:
    """``engine``'s ``PointReads`` (made on first use, disposed with ``dispose_engine`` or with the engine)."""
    with _READS_LOCK:
        reads = _READS.get(engine)
        if reads is None:
            reads = _READS[engine] = PointReads(engine)
        return reads


def dispose_engine(engine: Engine) -> None:
    """Close ``engine``'s connections and those of its point reads."""
    with _READS_LOCK:
        reads = _READS.pop(engine, None)
    if reads is not None and reads.engine is not engine:
        reads.dispose()
    engine.dispose()


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
