"""`lexlogic serve --workers N`: N server processes, each with its OWN listening socket on the same port.

Why not uvicorn's own ``workers=N``: its processes share one listening socket, and whichever wakes first accepts
every connection waiting — sixteen keep-alive clients connecting together all landed on one process while the
other stayed idle (measured: 689 answers of 689 from one process, issue 33). With one socket per process
(``SO_REUSEPORT``, Linux) the kernel spreads new connections over the processes itself. Each process builds its
app from its environment (``create_app()``: its own services, verdict cache and memo); runs, cases and keys
live in the database they share (PostgreSQL; an SQLite file works for a few processes on one machine).

The supervisor starts the processes, restarts one that dies, and stops them all on SIGINT/SIGTERM.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import threading
import time
from multiprocessing.process import BaseProcess
from typing import Any

APP = "lexlogic.api.app:create_app"
HTTP = "lexlogic.api.slow_clients:TimedH11Protocol"  # read timeouts for slow clients (issue 34)
STARTUP_SECONDS = 10.0  # a process that ends this soon after its start may not be able to start at all:
QUICK_ENDS = 3  # after this many such ends, stop (a bad setting, the database unreachable) instead of looping
log = logging.getLogger("lexlogic.api.serve")


def port_free(host: str, port: int) -> bool:
    """Whether nothing listens on (host, port) — bound WITHOUT ``SO_REUSEPORT``, so that an earlier server of the
    same user (which the kernel would let us join) counts as taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port) that other processes may bind too (the kernel balances them)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle off (TCP_NODELAY) only on connections whose socket says TCP; with
    # proto 0 a response's head and body, written apart, waited for the client's delayed ACK (~40 ms: measured,
    # one client's slider ranking 60–72 ms instead of 20–26 ms at the same CPU)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve_one(host: str, port: int, options: dict[str, Any]) -> None:
    """One worker process: its own socket, its own app (built from the environment by ``create_app()``)."""
    import uvicorn

    sock = reuse_port_socket(host, port)
    config = uvicorn.Config(APP, factory=True, host=host, port=port, http=HTTP, **options)
    uvicorn.Server(config).run(sockets=[sock])


class Workers:
    """The supervisor: ``n`` processes of ``serve_one``, kept alive until stopped."""

    def __init__(self, n: int, host: str, port: int, options: dict[str, Any]) -> None:
        self.n, self.host, self.port, self.options = n, host, port, options
        self._ctx = multiprocessing.get_context("spawn")  # no state inherited from the supervisor
        self._stop = threading.Event()
        self.processes: list[BaseProcess] = []
        self._started: dict[int, float] = {}  # pid → when it was started

    def _spawn(self) -> BaseProcess:
        p = self._ctx.Process(target=serve_one, args=(self.host, self.port, self.options), name="lexlogic-serve")
        p.start()
        self._started[p.pid or 0] = time.monotonic()
        return p

    def run(self) -> int:
        """Start the processes; restart any that ends while running; on SIGINT/SIGTERM stop them all. Returns
        the exit code: 0, or 1 when a process failed at start (a bad setting, the database unreachable)."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: self._stop.set())
        self.processes = [self._spawn() for _ in range(self.n)]
        quick = 0  # processes that ended within STARTUP_SECONDS of their start
        while quick < QUICK_ENDS and not self._stop.wait(0.5):
            for i, p in enumerate(self.processes):
                if p.is_alive() or self._stop.is_set():
                    continue
                quick += time.monotonic() - self._started.pop(p.pid or 0, 0.0) < STARTUP_SECONDS
                log.warning("server process %s ended (exit code %s): restarted", p.pid, p.exitcode)
                self.processes[i] = self._spawn()
        if quick >= QUICK_ENDS:
            log.error("%d server processes ended right after their start: stopping (see their errors above)", quick)
        self.stop()
        return 1 if quick >= QUICK_ENDS else 0

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (uvicorn finishes the requests in flight), then SIGKILL after ``timeout`` seconds."""
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(timeout)
            if p.is_alive():
                p.kill()
                p.join()
