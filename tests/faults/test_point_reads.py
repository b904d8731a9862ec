"""The request path's one-statement reads (API key, case owner, run head: ``engine.store.db.PointReads``) run
without the pool's pre-ping: a connection the server has dropped must cost a retry, not an error."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text

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
