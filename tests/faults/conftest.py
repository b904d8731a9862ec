"""Fault-test fixtures: a private PostgreSQL per module, a portfolio of case files, the CLI as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.distributed.make_cases import write_cases
from tests.faults.services import PrivatePostgres

LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")
N_CASES = 8


@pytest.fixture(scope="module")
def pg() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def portfolio(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("portfolio")
    write_cases(out, N_CASES)
    return out


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXLOGIC_")}
    env.update({"LEXLOGIC_HOME": str(home), "LEXLOGIC_RESUME": "0"})
    env.update(extra)
    return env


def outage_env(home: Path, db: str, broker: str, prefix: str, **extra: str) -> dict[str, str]:
    """A worker's and its client's environment for an outage test: short leases, a resumer every second, a
    busy run retried after 1 s and an outage's backoff capped at 4 s, so a stopped service is waited out fast."""
    return cli_env(
        home,
        LEXLOGIC_DATABASE_URL=db,
        LEXLOGIC_BROKER_URL=broker,
        LEXLOGIC_QUEUE_PREFIX=prefix,
        LEXLOGIC_RUN_LEASE_SECONDS="3",
        LEXLOGIC_RESUME="1",
        LEXLOGIC_RESUME_INTERVAL="1",
        LEXLOGIC_BUSY_RETRY_SECONDS="1",
        LEXLOGIC_OUTAGE_RETRY_MAX_SECONDS="4",
        **extra,
    )


def first_frames(stderr: str) -> str:
    """The lexlogic frames of a traceback and its last lines (what failed, where)."""
    ours = [ln for ln in stderr.splitlines() if "/wt-" in ln or "lexlogic" in ln and "site-packages" not in ln]
    return "\n".join(ours[:40]) + "\n…\n" + stderr[-1500:]


def through_outage(pg: PrivatePostgres, client: subprocess.Popen, db: str, after: int, poll: float) -> tuple[int, str]:  # type: ignore[type-arg]
    """Stop ``pg`` (immediate) once ``after`` items are recorded while ``client`` runs, start it again 8 s later,
    wait for the client: the items recorded before the outage and the client's stderr (it must exit 0)."""
    deadline = time.monotonic() + 600
    while (done := done_count(db)) < after:
        assert client.poll() is None and time.monotonic() < deadline, "batch ended or stalled before the outage"
        time.sleep(poll)
    pg.stop()
    time.sleep(8)
    pg.start()
    _, err = client.communicate(timeout=800)
    stderr = err.decode(errors="replace")
    assert client.returncode == 0, first_frames(stderr)
    assert "Traceback" not in stderr
    return done, stderr


def batch_cmd(portfolio: Path, db: str, out: Path, *more: str) -> list[str]:
    return [LEXLOGIC, "batch", str(portfolio), "--local", "--db", db, "-o", str(out), *more]


@pytest.fixture(scope="module")
def clean_run(pg: PrivatePostgres, portfolio: Path, tmp_path_factory) -> tuple[str, dict[str, int]]:  # type: ignore[no-untyped-def]
    """The batch run without a fault: its results file and each item's number of snapshots."""
    home = tmp_path_factory.mktemp("clean")
    db = pg.create_db("clean")
    out = home / "results.jsonl"
    res = subprocess.run(batch_cmd(portfolio, db, out, "-c", "1"), env=cli_env(home), capture_output=True, timeout=900)
    assert res.returncode == 0, res.stderr.decode(errors="replace")[-3000:]
    return out.read_text(encoding="utf-8"), snapshots(db)


def sql(db: str, query: str) -> list[tuple]:  # type: ignore[type-arg]
    import psycopg

    with psycopg.connect(db.replace("postgresql+psycopg", "postgresql"), connect_timeout=3) as conn:
        return list(conn.execute(query).fetchall())


def snapshots(db: str) -> dict[str, int]:
    """Each batch item's number of persisted states (a step done twice would show one more)."""
    rows = sql(
        db,
        "SELECT b.key, count(s.id) FROM batch_items b JOIN case_states s ON s.case_id = b.run_id GROUP BY b.key",
    )
    return {k: int(n) for k, n in rows}


def done_count(db: str) -> int:
    try:
        return int(sql(db, "SELECT count(*) FROM batch_items WHERE status = 'done'")[0][0])
    except Exception:
        return 0
