"""Several processes (two workers, a batch) creating the schema at the same moment must all succeed."""

from __future__ import annotations

import threading

from sqlalchemy import create_engine

from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchRow
from lexlogic.engine.store.db import create_tables


def test_concurrent_creators_all_succeed(db_url: str) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def create() -> None:
        engine = create_engine(db_url)
        try:
            start.wait()
            create_tables(engine, [BatchRow.__table__, BatchItemRow.__table__])
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=create) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
