"""Private services for fault tests: a PostgreSQL cluster and a Redis server started by the test itself,
on free ports under a temporary directory, never the machine's shared instances (which they may stop).

PostgreSQL refuses to run as root: as root, its commands run as the ``postgres`` user (``runuser``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class PrivatePostgres:
    """``initdb`` + ``pg_ctl`` on its own port; ``stop()``/``start()`` make an outage."""

    def __init__(self) -> None:
        if not shutil.which("initdb") or not shutil.which("pg_ctl"):
            pytest.skip("initdb/pg_ctl not installed: the fault tests start their own PostgreSQL")
        # its own directory in /tmp (pytest's tmp dirs are root-only: the postgres user could not enter)
        self.base = base = Path(tempfile.mkdtemp(prefix="lexlogic-pg-"))
        self.data = base / "pgdata"
        self.port = free_port()
        os.chmod(base, 0o755)
        if os.geteuid() == 0:
            shutil.chown(base, "postgres")
        self._run(["initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        conf = (
            f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{base}'\n"
            "fsync = off\nmax_connections = 60\nshared_buffers = 16MB\n"
        )
        with (self.data / "postgresql.conf").open("a") as fh:
            fh.write(conf)
        self.start()

    def _run(self, cmd: list[str]) -> None:
        res = subprocess.run(_as_postgres(cmd), capture_output=True, timeout=120)
        if res.returncode:
            raise AssertionError(f"{cmd[0]} failed: {res.stderr.decode(errors='replace')[-2000:]}")

    def start(self) -> None:
        self._run(["pg_ctl", "-D", str(self.data), "-l", str(self.base / "pg.log"), "-w", "-t", "60", "start"])

    def stop(self) -> None:
        """An outage: the server stops at once (connections cut, no clean shutdown)."""
        self._run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def create_db(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        try:
            self._run(["pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        except AssertionError:
            pass
        shutil.rmtree(self.base, ignore_errors=True)


class PrivateRedis:
    """``redis-server`` on its own port, no persistence; ``restart()`` loses every message."""

    def __init__(self, base: Path) -> None:
        if not shutil.which("redis-server"):
            pytest.skip("redis-server not installed")
        self.base, self.port = base, free_port()
        base.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.base),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("private redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def restart(self) -> None:
        self.stop()
        self.start()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"
