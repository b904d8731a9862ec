"""`lexlogic serve --workers 2` (issue 33, 33t): each process listens on its own socket (uvicorn's one shared
socket gave every connection of a burst to one process in two benchmark runs of four), clients that connect
together are served by both, a process killed is restarted, and SIGTERM stops them all. A real server on a real port, an SQLite file for its database."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(c) for c in f.read().split()]


def _workers(pid: int) -> set[int]:
    """The supervisor's server processes (multiprocessing's resource tracker, if any, has no listening socket:
    told apart by its command line)."""
    out = set()
    for c in _children(pid):
        with open(f"/proc/{c}/cmdline", "rb") as f:
            if b"resource_tracker" not in f.read():
                out.add(c)
    return out


def _listening(pid: int, port: int) -> set[int]:
    """The inodes of the sockets process ``pid`` holds that listen on ``port`` (``/proc/net/tcp``, state 0A)."""
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    listen = {int(r[9]) for r in rows if r[3] == "0A" and int(r[1].split(":")[1], 16) == port}
    held = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            held.add(int(target[8:-1]))
    return held & listen


def _start(tmp: Path, port: int) -> subprocess.Popen[bytes]:

    db = f"sqlite:///{tmp / 'api.db'}"
    env = {**os.environ, "LEXLOGIC_DATABASE_URL": db, "LEXLOGIC_HOME": str(tmp / "home")}
    env.pop("LEXLOGIC_BROKER_URL", None)
    cmd = [sys.executable, "-m", "lexlogic.api", "serve", "--workers", "2", "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--log-level", "warning"], env=env, cwd=tmp, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
        try:
            if (
                httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200
                and len(_workers(proc.pid)) == 2
            ):
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not start")


def _serving(workers: set[int], port: int, client_port: int) -> int | None:
    """The worker holding the accepted end of the connection from ``client_port`` (``/proc/net/tcp``: its socket's
    inode; then the workers' descriptors). The ETags no longer tell the processes apart: they agree."""
    with open("/proc/net/tcp") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    ends = {f"socket:[{r[9]}]" for r in rows if _port(r[1]) == port and _port(r[2]) == client_port}
    for pid in workers:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in ends:
                    return pid
            except OSError:
                continue
    return None


def _port(address: str) -> int:
    return int(address.rsplit(":", 1)[1], 16)


def _answers_of_a_burst(
    port: int, path: str, key: str, n: int = 16, workers: set[int] | None = None, etag: str = "", status: int = 200
) -> list[Any]:
    """``n`` connections opened together (before any request, as a load generator's clients do), then one GET on
    each (with ``If-None-Match: etag`` if given; answered ``status``): each answer's ETag and, given the
    ``workers``, the process that served it."""
    conns = [socket.create_connection(("127.0.0.1", port), timeout=120) for _ in range(n)]
    match = f"If-None-Match: {etag}\r\n" if etag else ""
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n{match}\r\n".encode()
    out: list[Any] = []
    for c in conns:
        c.sendall(request)
    for c in conns:
        with c, c.makefile("rb") as f:
            head = [f.readline().decode().strip()]
            while head[-1]:
                head.append(f.readline().decode().strip())
            assert f" {status} " in head[0], head
            fields = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
            f.read(int(fields.get("content-length", 0)))
            who = _serving(workers, port, c.getsockname()[1]) if workers else None
            out.append((fields["etag"], who))
    return out


def _serving_a_case(tmp: Path) -> tuple[subprocess.Popen[bytes], int, str, str]:
    """`serve --workers 2` on a new database holding one key, and the example posted: (process, port, key, path of
    its verdict). The schema is made before two processes open the database."""
    from lexlogic.engine.store.tenants import TenantStore

    store = TenantStore(f"sqlite:///{tmp / 'api.db'}")
    _, key = store.create_key("t")
    store.close()
    port = _free_port()
    proc = _start(tmp, port)
    try:
        base = f"http://127.0.0.1:{port}"
        cid = httpx.post(base + "/v1/cases", json={"case_file": EXAMPLE}, headers={"X-API-Key": key}, timeout=60)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, port, key, f"/v1/cases/{cid.json()['id']}/verdict"


def test_two_workers_share_a_burst_restart_a_killed_one_and_stop_on_sigterm(tmp_path: Path) -> None:
    proc, port, key, path = _serving_a_case(tmp_path)
    try:
        sockets = [_listening(pid, port) for pid in _workers(proc.pid)]
        assert all(len(s) == 1 for s in sockets) and sockets[0] != sockets[1]  # one listening socket each
        answers = _answers_of_a_burst(port, path, key, workers=_workers(proc.pid))
        assert len({who for _, who in answers}) == 2 and None not in {who for _, who in answers}  # both answered
        killed = min(_workers(proc.pid))
        os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while (killed in _workers(proc.pid) or len(_workers(proc.pid)) < 2) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert killed not in _workers(proc.pid) and len(_workers(proc.pid)) == 2  # restarted
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_two_workers_give_one_etag_and_a_304_for_each_others(tmp_path: Path) -> None:
    """A client revalidating on the other process gets its 304: both processes name a body alike (before, each
    ETag ended with a token drawn at its process's start: a 200 and the whole body again)."""
    proc, port, key, path = _serving_a_case(tmp_path)
    try:
        workers = _workers(proc.pid)
        answers = _answers_of_a_burst(port, path, key, workers=workers)
        assert {who for _, who in answers} == workers  # both computed and served it …
        assert len({tag for tag, _ in answers}) == 1  # … under one ETag
        etag = answers[0][0]
        held = _answers_of_a_burst(port, path, key, workers=workers, etag=etag, status=304)
        assert {who for _, who in held} == workers and {tag for tag, _ in held} == {etag}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_worker_socket_serves_without_nagle() -> None:
    """asyncio turns Nagle off only on connections whose socket says TCP: a socket made with proto 0 left it on,
    and a response's head and body, written apart, waited ~40 ms for the client's delayed ACK (one client's slider
    ranking took 60–72 ms instead of 20–26 ms on two workers)."""
    import asyncio

    from lexlogic.api.serve_workers import reuse_port_socket

    seen: list[int] = []

    async def main() -> None:
        sock = reuse_port_socket("127.0.0.1", _free_port())

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=sock)
        _, w = await asyncio.open_connection(*sock.getsockname()[:2])
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.02)
        w.close()
        server.close()
        await server.wait_closed()

    asyncio.run(main())
    assert seen and seen[0] != 0
