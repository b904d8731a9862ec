"""Issue 34, faults on a private PostgreSQL: no fault strands a batch item, none is done twice.

Each test runs the real `lexlogic batch` client as a subprocess and compares its results file with the same
batch run without a fault (``clean_run``): identical bytes, each item done once (``repeats`` 0), each run's
history as long as the clean run's (no step persisted twice).
- database outage mid-batch: PostgreSQL stopped (immediate) after the first items, restarted 8 s later;
  the client says why it waits, resumes, exits 0, no traceback;
- clock skew beyond the lease: a second client whose clock runs 10 s ahead (lease 3 s) works on the same
  batch: no takeover of a live lease (every item claimed once);
- client killed -9 (local pool of 2): its pool children die within seconds; an immediate rerun completes
  every item and exits 0.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.faults.conftest import batch_cmd, cli_env, done_count, snapshots, sql
from tests.faults.services import PrivatePostgres

pytestmark = pytest.mark.timeout(900)


def _wait_done(db: str, n: int, proc: subprocess.Popen[bytes], limit: float = 600) -> None:
    deadline = time.monotonic() + limit
    while done_count(db) < n:
        assert proc.poll() is None, f"client ended early: rc {proc.returncode}"
        assert time.monotonic() < deadline, f"fewer than {n} items done after {limit} s"
        time.sleep(0.2)


def _once_each(db: str, clean: dict[str, int]) -> None:
    rows = sql(db, "SELECT key, status, repeats FROM batch_items ORDER BY key")
    assert [(k, s) for k, s, _ in rows] == [(k, "done") for k in sorted(clean)]
    assert all(rep == 0 for _, _, rep in rows), rows
    assert snapshots(db) == clean  # no step persisted twice, none missing


def test_database_outage_mid_batch(pg: PrivatePostgres, portfolio: Path, clean_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    clean_text, clean_states = clean_run
    db = pg.create_db("outage")
    out = tmp_path / "results.jsonl"
    env = cli_env(tmp_path, LEXLOGIC_STEP_DELAY="0.15", LEXLOGIC_RUN_LEASE_SECONDS="3")
    proc = subprocess.Popen(
        batch_cmd(portfolio, db, out, "-c", "1"), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _wait_done(db, 2, proc)
    pg.stop()
    t_down = time.monotonic()
    time.sleep(8)
    pg.start()
    outage = time.monotonic() - t_down
    _, err = proc.communicate(timeout=900)
    stderr = err.decode(errors="replace")
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr
    assert "unavailable (OperationalError" in stderr and "resuming" in stderr, stderr[-2000:]
    assert out.read_text(encoding="utf-8") == clean_text
    _once_each(db, clean_states)
    print(f"outage {outage:.1f} s; client notices: {stderr.count('unavailable (')}")


SKEWED = (
    "import sys, time; _t = time.time; time.time = lambda: _t() + {skew}; "
    "sys.argv = ['lexlogic', *sys.argv[1:]]; from lexlogic.api.cli import main; main()"
)


def test_clock_skew_beyond_the_lease(pg: PrivatePostgres, portfolio: Path, clean_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two clients on one batch, the second one's clock 10 s ahead, leases of 3 s."""
    clean_text, clean_states = clean_run
    db = pg.create_db("skew")
    env = cli_env(tmp_path, LEXLOGIC_STEP_DELAY="0.1", LEXLOGIC_RUN_LEASE_SECONDS="3")
    a_out, b_out = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a = subprocess.Popen(batch_cmd(portfolio, db, a_out, "-c", "1"), env=env, stderr=subprocess.PIPE)
    _wait_done(db, 1, a)
    b_cmd = [sys.executable, "-c", SKEWED.format(skew=10.0), *batch_cmd(portfolio, db, b_out, "-c", "1")[1:]]
    b = subprocess.Popen(b_cmd, env=env, stderr=subprocess.PIPE)
    _, a_err = a.communicate(timeout=900)
    _, b_err = b.communicate(timeout=900)
    assert a.returncode == 0, a_err.decode(errors="replace")[-3000:]
    assert b.returncode == 0, b_err.decode(errors="replace")[-3000:]
    attempts = {k: (n, r) for k, n, r in sql(db, "SELECT key, attempts, repeats FROM batch_items ORDER BY key")}
    assert all(n == 1 for n, _ in attempts.values()), f"live leases taken over (attempts, repeats): {attempts}"
    assert a_out.read_text(encoding="utf-8") == clean_text == b_out.read_text(encoding="utf-8")
    _once_each(db, clean_states)


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return stat[0] not in ("Z", "X")


def test_client_kill9_children_die_rerun_completes(
    pg: PrivatePostgres, portfolio: Path, clean_run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    clean_text, clean_states = clean_run
    db = pg.create_db("kill")
    out = tmp_path / "results.jsonl"
    env = cli_env(tmp_path, LEXLOGIC_STEP_DELAY="0.15")
    proc = subprocess.Popen(batch_cmd(portfolio, db, out, "-c", "2"), env=env, stderr=subprocess.DEVNULL)
    _wait_done(db, 2, proc)
    kids = _children(proc.pid)
    assert kids, "the local pool has no children"
    os.kill(proc.pid, signal.SIGKILL)  # the client only: its children must end by themselves
    proc.wait(10)
    t0 = time.monotonic()
    while any(_alive(k) for k in kids) and time.monotonic() - t0 < 10:
        time.sleep(0.1)
    survivors = [k for k in kids if _alive(k)]
    for k in survivors:
        os.kill(k, signal.SIGKILL)
    assert not survivors, f"pool children still running 10 s after their client was killed: {survivors}"
    print(f"pool children gone {time.monotonic() - t0:.1f} s after the client")
    assert done_count(db) < len(clean_states), "the batch ended before the kill: nothing tested"
    rerun = subprocess.run(batch_cmd(portfolio, db, out, "-c", "2"), env=env, capture_output=True, timeout=900)
    assert rerun.returncode == 0, rerun.stderr.decode(errors="replace")[-3000:]
    assert out.read_text(encoding="utf-8") == clean_text
    _once_each(db, clean_states)


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A 3 MB tmpfs (root only): a batch of 8 items needs about 6 MB of SQLite state."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)], capture_output=True)
    if res.returncode:
        pytest.skip(f"cannot mount a tmpfs: {res.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_disk_full_one_line_state_intact(portfolio: Path, clean_run, small_disk: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    clean_text, _ = clean_run
    db = f"sqlite:///{small_disk / 'state.db'}"
    out = tmp_path / "results.jsonl"
    env = cli_env(small_disk)
    res = subprocess.run(batch_cmd(portfolio, db, out, "-c", "1"), env=env, capture_output=True, timeout=900)
    err = res.stderr.decode(errors="replace")
    assert res.returncode == 1, err[-3000:]
    assert "Traceback" not in err
    # the per-item progress lines of the items done before (stderr) may precede it: one error line, the last
    lines = [ln for ln in err.strip().splitlines() if ln.strip() and not ln.startswith("[")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no space left" in lines[0].lower(), err[-2000:]
    assert err.strip().splitlines()[-1] == lines[0]
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    with sqlite3.connect(small_disk / "state.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        done_before = conn.execute("SELECT count(*) FROM batch_items WHERE status = 'done'").fetchone()[0]
    assert 0 < done_before < 8 or done_before == 0
    rerun = subprocess.run(batch_cmd(portfolio, db, out, "-c", "1"), env=env, capture_output=True, timeout=900)
    assert rerun.returncode == 0, rerun.stderr.decode(errors="replace")[-3000:]
    assert out.read_text(encoding="utf-8") == clean_text
    print(f"disk full after {done_before} items: {lines[0][:160]}")
