"""One poll of a portfolio client on the workers (``BatchStore.finished_since``) on a large batch in PostgreSQL,
with the index of migration 0002 and without it (issue 33: the client's share at 10^6 cases).

A scratch database on the shared server (dropped after): ``--items`` done items finished one second apart, then
the poll « finished in the last 60 s » (60 rows) repeated; medians in ms, and the ratio, in the same run.

    .venv/bin/python benchmarks/batch_poll.py [--items 300000] [--server postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
from sqlalchemy import Engine, text

from lexlogic.engine.jobs.batch_store import BatchStore
from lexlogic.engine.store.cases import CaseStore

FILL = """INSERT INTO batch_items (batch_id, key, kind, path, digest, run_id, status, attempts, repeats, finished_at)
SELECT 'b', 'k' || g, 'case', '/p', 'd', 'r' || g, 'done', 0, 0, now() - (g || ' seconds')::interval
FROM generate_series(1, :n) g"""


def poll_ms(engine: Engine, since: datetime, repeat: int = 15) -> tuple[float, int]:
    """The median of ``repeat`` polls, and how many rows one returns."""
    bstore, times, rows = BatchStore.on(engine), [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        rows = len(bstore.finished_since("b", since))
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, rows


def measure(server: str, items: int) -> None:
    name = f"lexlogic_poll_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
    url = server.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + f"/{name}"
    try:
        store = CaseStore(url)  # migrated to the head: the index is there
        with store.engine.begin() as conn:
            conn.execute(
                text("INSERT INTO batches (id, root, total, created_at) VALUES ('b', '/x', :n, now())"), {"n": items}
            )
            conn.execute(text(FILL), {"n": items})
            conn.execute(text("ANALYZE batch_items"))
        since = datetime.now(UTC) - timedelta(seconds=60)
        with_index = poll_ms(store.engine, since)
        with store.engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_batch_items_batch_finished"))
            conn.execute(text("ANALYZE batch_items"))
        without = poll_ms(store.engine, since)
        print(f"load average {os.getloadavg()[0]:.1f}; {items:,} items, a poll returns {with_index[1]} rows")
        print(
            f"finished_since median: with the index {with_index[0]:.2f} ms, without {without[0]:.2f} ms "
            f"(×{without[0] / with_index[0]:.1f})"
        )
        store.close()
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=300_000)
    ap.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/test")
    a = ap.parse_args()
    measure(a.server, a.items)
