"""Real RabbitMQ and PostgreSQL for the distributed tests: workers as subprocesses, killed at teardown.

Each session gets its own queue prefix and its own PostgreSQL schema, so leftover messages or rows of
another run cannot interfere; the queues are deleted at the end. Without a reachable broker (or
PostgreSQL) the tests are skipped and say why.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PG_UP, PG_URL
from tests.distributed.make_cases import write_cases

BROKER_URL = os.environ.get("LEXLOGIC_TEST_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//")
LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")


def _broker_up() -> str | None:
    try:
        from kombu import Connection

        with Connection(BROKER_URL, connect_timeout=2) as conn:
            conn.ensure_connection(max_retries=1)
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


BROKER_DOWN = _broker_up()


def require_services() -> None:
    if BROKER_DOWN:
        pytest.skip(f"no message broker at {BROKER_URL} ({BROKER_DOWN}): the distributed tests need RabbitMQ")
    if not PG_UP:
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: the distributed tests keep their state there")


class Cluster:
    """The session's database schema, queue prefix and worker processes."""

    def __init__(self, db_url: str, prefix: str, home: Path) -> None:
        self.db_url, self.prefix, self.home = db_url, prefix, home
        self.workers: dict[str, subprocess.Popen] = {}

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "LEXLOGIC_DATABASE_URL": self.db_url,
            "LEXLOGIC_BROKER_URL": BROKER_URL,
            "LEXLOGIC_QUEUE_PREFIX": self.prefix,
            "LEXLOGIC_HOME": str(self.home),
            "LEXLOGIC_RESUME_INTERVAL": "1",
            "LEXLOGIC_BUSY_RETRY_SECONDS": "1",
        }
        env.update(extra)
        return env

    def start(self, name: str, *, step_delay: float = 0.0, concurrency: int = 1) -> subprocess.Popen:
        log = (self.home / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [LEXLOGIC, "worker", "-c", str(concurrency), "-n", f"{name}-{self.prefix}@%h", "--log-level", "info"],
            env=self.env(LEXLOGIC_STEP_DELAY=str(step_delay)),
            cwd=self.home,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: kill -9 takes the pool with it
        )
        self.workers[name] = proc
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if b" ready." in (self.home / f"{name}.log").read_bytes():
                return proc
            if proc.poll() is not None:
                self.kill9(name)
                raise AssertionError((self.home / f"{name}.log").read_text(errors="replace")[-3000:])
            time.sleep(0.2)
        self.kill9(name)
        raise AssertionError(f"worker {name} not ready after 90 s")

    def group(self, name: str) -> set[int]:
        """The pids of a worker's process group (its main process and its pool)."""
        pgid = self.workers[name].pid
        pids = set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.getpgid(int(entry.name)) == pgid:
                        pids.add(int(entry.name))
                except ProcessLookupError:
                    continue
        return pids

    def kill9(self, name: str) -> None:
        proc = self.workers.pop(name)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(20)

    def stop_all(self) -> None:
        for name in list(self.workers):
            self.kill9(name)

    def purge(self) -> None:
        from lexlogic.engine.jobs.tasks import celery_app
        from lexlogic.settings import Settings

        app = celery_app(Settings(), BROKER_URL)
        with app.connection_for_write() as conn:
            channel = conn.default_channel
            for q in ("ingest", "analysis"):
                try:
                    channel.queue_delete(f"{self.prefix}.{q}")
                except Exception:
                    pass


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:  # type: ignore[no-untyped-def]
    require_services()
    import psycopg

    schema = f"d_{uuid.uuid4().hex[:12]}"
    raw = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    home = tmp_path_factory.mktemp("cluster")
    c = Cluster(f"{PG_URL}?options=-csearch_path%3D{schema}", f"lexlogic-test-{uuid.uuid4().hex[:8]}", home)
    try:
        yield c
    finally:
        c.stop_all()
        c.purge()
        with psycopg.connect(raw, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(scope="module")
def portfolio(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("portfolio")
    write_cases(out, 40)
    return out


@pytest.fixture
def as_client(cluster: Cluster, monkeypatch) -> Cluster:  # type: ignore[no-untyped-def]
    """This process speaks to the cluster (enqueues, reads the database)."""
    for k, v in cluster.env().items():
        if k.startswith("LEXLOGIC_"):
            monkeypatch.setenv(k, v)
    return cluster
