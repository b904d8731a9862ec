"""Batch throughput: cases/s on the local pool and on 1 and 2 Celery workers, and the projection for 10,000 cases.

Needs RabbitMQ (``LEXLOGIC_BROKER_URL``, default amqp://guest:guest@127.0.0.1:5672//) and PostgreSQL
(``LEXLOGIC_TEST_PG_URL``, default the local ``test`` database; a fresh schema is used and dropped).
Usage: ``.venv/bin/python benchmarks/batch.py [--cases 40]``. Workers are started and killed here.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.batch import run_batch
from tests.distributed.make_cases import write_cases

LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")
BROKER = os.environ.get("LEXLOGIC_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//")
PG = os.environ.get("LEXLOGIC_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def start_worker(name: str, env: dict[str, str], home: Path) -> subprocess.Popen:
    log = home / f"{name}.log"
    proc = subprocess.Popen(
        [LEXLOGIC, "worker", "-c", "1", "-n", f"{name}@%h", "--log-level", "info"],
        env=env,
        cwd=home,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while b" ready." not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            kill(proc)
            raise SystemExit(f"worker {name} failed: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    return proc


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(20)


def timed(root: Path, db: str, **kw: object) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its finished children) for one fresh batch."""
    cpu0 = os.times()
    t0 = time.perf_counter()
    report = run_batch(root, db_url=db, batch_id=f"bench-{uuid.uuid4().hex[:8]}", **kw)  # type: ignore[arg-type]
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    assert len(report.results) == len(list(root.glob("*.json"))), report.summary
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    cpu += (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=40)
    args = ap.parse_args()
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    raw = PG.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    db = f"{PG}?options=-csearch_path%3D{schema}"
    prefix = f"lexlogic-bench-{uuid.uuid4().hex[:6]}"
    workers: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        cases, warm = home / "cases", home / "warm"
        write_cases(cases, args.cases)
        write_cases(warm, 2)
        env = {
            **os.environ,
            "LEXLOGIC_DATABASE_URL": db,
            "LEXLOGIC_BROKER_URL": BROKER,
            "LEXLOGIC_QUEUE_PREFIX": prefix,
            "LEXLOGIC_HOME": str(home),
        }
        os.environ.update({k: v for k, v in env.items() if k.startswith("LEXLOGIC_")})
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {args.cases} cases")
        rows = []
        try:
            timed(warm, db, distributed=False, concurrency=1)  # imports and the first evaluation
            wall, cpu = timed(cases, db, distributed=False, concurrency=1)
            per_case_cpu = cpu / args.cases
            rows.append(("in-process, 1 (sequential)", wall, args.cases / wall))
            for n in (1, 2):
                while len(workers) < n:
                    workers.append(start_worker(f"bench{len(workers) + 1}-{prefix}", env, home))
                    timed(warm, db, distributed=True, timeout=300)  # warm each worker's pool process
                wall, _ = timed(cases, db, distributed=True, timeout=600)
                rows.append((f"Celery, {n} worker{'s' if n > 1 else ''} (-c 1)", wall, args.cases / wall))
        finally:
            for w in workers:
                kill(w)
            from lexlogic.engine.tasks import celery_app

            with celery_app(BROKER).connection_for_write() as conn:
                for q in ("ingest", "analysis"):
                    conn.default_channel.queue_delete(f"{prefix}.{q}")
            with psycopg.connect(raw, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    print("\n| mode | wall (s) | cases/s |\n|---|---:|---:|")
    for name, wall, rate in rows:
        print(f"| {name} | {wall:.2f} | {rate:.2f} |")
    print(f"\nper-case CPU (in-process, warm): {per_case_cpu * 1000:.0f} ms")
    print("\nprojection for 10,000 cases (per-case CPU × cases / workers, one core each):")
    for w in (1, 2, 8, 32):
        print(f"  {w:>3} workers: {10_000 * per_case_cpu / w / 60:7.1f} min")
    r1, r2 = rows[1][2], rows[2][2]
    print(
        f"measured here: 1 worker {10_000 / r1 / 60:.1f} min, 2 workers {10_000 / r2 / 60:.1f} min "
        f"(scaling ×{r2 / r1:.2f} on {os.cpu_count()} shared CPUs)"
    )


if __name__ == "__main__":
    main()
