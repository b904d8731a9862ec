"""Issue 33: a PostgreSQL outage while portfolio chunks run on a Celery worker strands nothing.

A private PostgreSQL and a private Redis (broker), one `lexlogic worker`, the `lexlogic batch --portfolio`
client with the broker configured (its chunks go to the worker). PostgreSQL is stopped (immediate) once the
first cases are recorded, and restarted 8 s later: the worker's chunk tasks fail on the database and are
retried with backoff (not acknowledged as done), the client waits the outage out and says so. Every case
recorded once, result lines identical to the per-case path's clean run.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.faults.conftest import LEXLOGIC, N_CASES, outage_env, sql, through_outage
from tests.faults.services import PrivatePostgres
from tests.faults.test_worker_faults import _worker, redis  # noqa: F401 (the fixture)

pytestmark = pytest.mark.timeout(900)


def test_database_outage_while_chunks_run_on_a_worker(
    pg: PrivatePostgres,
    redis,  # noqa: F811
    portfolio: Path,
    clean_run,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    clean_text, _ = clean_run
    db = pg.create_db("chunks")
    env = outage_env(tmp_path, db, redis.url(), "c33")
    worker = _worker(env, tmp_path)
    try:
        out = tmp_path / "results.jsonl"
        cmd = [LEXLOGIC, "batch", str(portfolio), "--portfolio", "--db", db, "-o", str(out), "--timeout", "600"]
        client = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        done, stderr = through_outage(pg, client, db, after=1, poll=0.05)
        assert done < N_CASES, "every case was recorded before the outage: nothing was tested"
        assert "unavailable (" in stderr and "back after" in stderr  # the client said why it waited
        assert out.read_text(encoding="utf-8") == clean_text  # the per-case path's lines
        rows = sql(db, "SELECT key, status, repeats FROM batch_items ORDER BY key")
        assert len(rows) == N_CASES and all(s == "done" and rep == 0 for _, s, rep in rows), rows
        assert sql(db, "SELECT count(*) FROM case_run_leases")[0][0] == 0
        log = (tmp_path / "worker.log").read_text(errors="replace")
        retries = log.count("unavailable, retry in")
        print(f"chunk retries on the outage: {retries}; cases recorded before it: {done}/{N_CASES}")
        assert retries >= 1  # a chunk met the outage and was retried, not acknowledged as done
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(20)
