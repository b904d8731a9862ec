"""Point reads awaited on the event loop (PostgreSQL, psycopg's async connections): the API's per-request reads
(API key, run head) no longer stop the loop during their round trip.

Why: after the reads were made one round trip each (``db.PointReads``), a cached GET …/verdict cost the server
~1.7 ms of CPU, yet one uvicorn process served only ~160–270 of them a second with its CPU a third used: each
read blocked the event loop until PostgreSQL answered, and on 2 loaded cores the server's backend process waits
its turn to run — milliseconds, during which no other request moved. Awaited, the 16 clients' round trips
overlap. A thread-pool hop would not block either, but cost ~2 ms of CPU a read here (session 4's measure).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import psycopg
from psycopg.rows import namedtuple_row
from sqlalchemy.exc import DBAPIError

SIZE = 4  # connections per event loop: reads beyond that wait for one (the server's connections are shared)


class LoopReads:
    """A few autocommit connections per event loop (an async connection belongs to the loop that made it)."""

    def __init__(self, conninfo: str, size: int = SIZE) -> None:
        self.conninfo, self.size = conninfo, size
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pool] = weakref.WeakKeyDictionary()

    async def first(self, sql: str, params: dict[str, Any]) -> Any:
        """The first row (a named tuple) or None; a connection the server dropped costs one more try on a
        fresh one; errors as SQLAlchemy's (the API answers them 503 / 500 as before)."""
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            pool = self._pools[loop] = _Pool(self.conninfo, self.size)
        for attempt in (0, 1):
            try:
                return await pool.first(sql, params)
            except psycopg.OperationalError as exc:
                if attempt:
                    raise DBAPIError.instance(sql, params, exc, psycopg.Error, connection_invalidated=True) from exc
            except psycopg.Error as exc:
                raise DBAPIError.instance(sql, params, exc, psycopg.Error) from exc
        return None  # unreachable: the second attempt returns or raises

    def close(self) -> None:
        """Close every loop's idle connections (synchronously: their loop may be gone)."""
        for pool in list(self._pools.values()):
            pool.close()
        self._pools.clear()


class _Pool:
    def __init__(self, conninfo: str, size: int) -> None:
        self.conninfo = conninfo
        self.free: list[psycopg.AsyncConnection[Any]] = []
        self.slots = asyncio.Semaphore(size)

    async def first(self, sql: str, params: dict[str, Any]) -> Any:
        async with self.slots:
            conn = (
                self.free.pop() if self.free else await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
            )
            try:
                async with conn.cursor(row_factory=namedtuple_row) as cur:
                    await cur.execute(sql, params)
                    row = await cur.fetchone()
            except BaseException:
                conn.pgconn.finish()  # never reused: a failed or interrupted read leaves it in doubt
                raise
            self.free.append(conn)
            return row

    def close(self) -> None:
        while self.free:
            self.free.pop().pgconn.finish()
