"""The request path's one-statement reads (API key, case owner, run head: ``engine.store.db.PointReads``) run
without the pool's pre-ping: a connection the server has dropped must cost a retry, not an error."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, select, text

from lexlogic.engine.store.db import dispose_engine, make_engine, point_reads
from lexlogic.engine.store.tenants import ApiKey, TenantStore


def test_a_dropped_connection_is_read_again_on_a_fresh_one(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has no server connection to drop")
    store = TenantStore(db_url)
    try:
        _, key = store.create_key("tenant-a")
        found = store.principal(key)  # the read pool now holds one connection
        assert found is not None
        reads = point_reads(store.engine)
        with reads.engine.connect() as conn:  # the pooled connection: its backend pid, then drop it
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        admin = make_engine(db_url)
        with admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
            conn.commit()
        admin.dispose()
        assert store.principal(key) == found  # read again on a fresh connection, no error
        assert reads.first(select(ApiKey.key_id).where(ApiKey.key_id == found[1])) is not None
    finally:
        dispose_engine(store.engine)


def test_an_awaited_read_survives_a_dropped_connection_and_leaves_the_loop_free(db_url: str) -> None:
    """The API's reads are awaited (``engine.store.loop_reads``): a connection the server dropped costs a retry,
    and while a read waits on the server the event loop runs other work (a blocking read would stop it)."""
    import asyncio

    if db_url.startswith("sqlite"):
        pytest.skip("SQLite has no server connection to drop")
    store = TenantStore(db_url)
    reads = point_reads(store.engine)
    slow = select(ApiKey.key_id).where(ApiKey.key_id == bindparam("k"), text("pg_sleep(0.3) IS NOT NULL"))
    try:
        _, key = store.create_key("tenant-a")

        async def scenario() -> None:
            found = await store.aprincipal(key)
            assert found is not None and found == store.principal(key)
            pool = reads._loop_reads._pools[asyncio.get_running_loop()]  # this loop's idle connection: drop it
            admin = make_engine(db_url)
            with admin.connect() as conn:
                conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pool.free[0].pgconn.backend_pid})
                conn.commit()
            admin.dispose()
            assert await store.aprincipal(key) == found  # read again on a fresh connection, no error
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0.01)

            task = asyncio.create_task(ticker())
            row = await reads.afirst(slow, k=found[1])
            task.cancel()
            assert row is not None and ticks >= 10, ticks  # the loop ran while the server slept 0.3 s

        asyncio.run(scenario())
    finally:
        dispose_engine(store.engine)
