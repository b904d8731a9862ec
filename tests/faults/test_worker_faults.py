"""Issue 34 on Celery workers: a PostgreSQL outage mid-batch strands nothing.

A private PostgreSQL and a private Redis (broker), one `lexlogic worker`, the `lexlogic batch` client in
distributed mode. PostgreSQL is stopped (immediate) after the first items and restarted 8 s later.
Before: a task failing on the database was acknowledged as done and batch items were enqueued without a
lease, so 38 of 60 items were stranded for good and the client crashed (OperationalError traceback).
Now: the task is retried with backoff (not acknowledged as done), each item is enqueued under a queued
lease the resumer can find, and the client waits the outage out. Every item done once, results identical
to the local clean run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.conftest import (
    LEXLOGIC,
    batch_cmd,
    cli_env,
    done_count,
    first_frames,
    outage_env,
    snapshots,
    sql,
    through_outage,
)
from tests.faults.services import PrivatePostgres, PrivateRedis

pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path / "redis")
    try:
        yield server
    finally:
        server.stop()


def _worker(env: dict[str, str], home: Path) -> subprocess.Popen[bytes]:
    log = (home / "worker.log").open("wb")
    proc = subprocess.Popen(
        [LEXLOGIC, "worker", "-c", "1", "-n", f"w34-{os.getpid()}@%h", "--log-level", "info"],
        env=env,
        cwd=home,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while b" ready." not in (home / "worker.log").read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError((home / "worker.log").read_text(errors="replace")[-3000:])
        time.sleep(0.2)
    return proc


def test_database_outage_mid_batch_on_workers(
    pg: PrivatePostgres, redis: PrivateRedis, portfolio: Path, clean_run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    clean_text, clean_states = clean_run
    db = pg.create_db("workers")
    env = outage_env(tmp_path, db, redis.url(), "f34", LEXLOGIC_STEP_DELAY="0.15")
    worker = _worker(env, tmp_path)
    try:
        out = tmp_path / "results.jsonl"
        cmd = [c for c in batch_cmd(portfolio, db, out, "--timeout", "600") if c != "--local"]
        client = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        through_outage(pg, client, db, after=2, poll=0.2)
        assert out.read_text(encoding="utf-8") == clean_text
        rows = sql(db, "SELECT key, status, repeats FROM batch_items ORDER BY key")
        assert all(s == "done" and rep == 0 for _, s, rep in rows), rows
        assert snapshots(db) == clean_states
        log = (tmp_path / "worker.log").read_text(errors="replace")
        print(f"worker retries on the outage: {log.count('unavailable, retry in')}")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(20)


RESENT = "its message was lost by the broker: sent again"


def _first_line_after(log: Path, text: str, client: subprocess.Popen, deadline: float) -> float | None:  # type: ignore[type-arg]
    """When ``text`` first appears in ``log`` (monotonic time), watching while ``client`` runs; None if never."""
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return time.monotonic()
        if client.poll() is not None:
            return None
        time.sleep(0.25)
    return None


def test_broker_restart_loses_messages_resumer_sends_them_again(
    pg: PrivatePostgres, redis: PrivateRedis, portfolio: Path, clean_run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The private Redis (no persistence) is restarted mid-batch: every queued message is lost. Before, their
    queued leases (1 h) kept the resumer away and the client waited with 43 of 60 items stranded. Now the
    resumer sees fewer messages in the queue than queued leases and sends the missing ones again within a
    minute: every item done once, results identical to the clean run."""
    clean_text, clean_states = clean_run
    db = pg.create_db("broker_restart")
    env = cli_env(
        tmp_path,
        LEXLOGIC_DATABASE_URL=db,
        LEXLOGIC_BROKER_URL=redis.url(),
        LEXLOGIC_QUEUE_PREFIX="r34",
        LEXLOGIC_STEP_DELAY="0.15",
        LEXLOGIC_RUN_LEASE_SECONDS="3",
        LEXLOGIC_RESUME="1",
        LEXLOGIC_BUSY_RETRY_SECONDS="1",
        # the resume interval (10 s) and the lost-message grace (20 s) are the DEFAULTS: « re-sent within a
        # minute » is asserted as a deployment would see it
    )
    worker = _worker(env, tmp_path)
    try:
        out = tmp_path / "results.jsonl"
        cmd = [c for c in batch_cmd(portfolio, db, out, "--timeout", "600") if c != "--local"]
        client_err = tmp_path / "client.err"  # files, not pipes: the client is watched, not read, meanwhile
        with open(tmp_path / "client.out", "wb") as so, open(client_err, "wb") as se:
            client = subprocess.Popen(cmd, env=env, stdout=so, stderr=se)
        deadline = time.monotonic() + 600
        while done_count(db) < 2:
            assert client.poll() is None and time.monotonic() < deadline, "batch ended or stalled before the restart"
            time.sleep(0.2)
        queued_before = int(sql(db, "SELECT count(*) FROM case_run_leases WHERE owner LIKE 'queued:%'")[0][0])
        redis.restart()  # no persistence: every message waiting in the broker is gone
        restarted = time.monotonic()
        first_resend = _first_line_after(tmp_path / "worker.log", RESENT, client, restarted + 300)
        client.wait(timeout=300)  # the queued leases last 1 h: only a resend ends it sooner
        took = time.monotonic() - restarted
        assert first_resend is not None and first_resend - restarted < 60, "no lost message re-sent within a minute"
        stderr = client_err.read_text(errors="replace")
        assert client.returncode == 0, first_frames(stderr)
        assert "Traceback" not in stderr
        assert out.read_text(encoding="utf-8") == clean_text
        rows = sql(db, "SELECT key, status, repeats FROM batch_items ORDER BY key")
        assert all(s == "done" and rep == 0 for _, s, rep in rows), rows
        assert snapshots(db) == clean_states
        log = (tmp_path / "worker.log").read_text(errors="replace")
        resent = log.count(RESENT)
        assert queued_before >= 1 and resent >= 1, (queued_before, resent)
        print(
            f"queued at the restart: {queued_before}; sent again: {resent}, the first "
            f"{first_resend - restarted:.1f} s after it; batch done {took:.1f} s after it"
        )
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(20)
