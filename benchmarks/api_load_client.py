"""A cheap HTTP/1.1 client for the load benchmarks: one keep-alive connection per client on asyncio streams.

Why: the load generator shares the machine's 2 cores with the server it measures. httpx costs 7–17 ms of CPU a
request here (session 4's figures), as much as the server; this client parses a status line, the headers and a
``Content-Length`` (or chunked) body and nothing else — well under a millisecond. It is a benchmark tool, not a
general client: no TLS, no redirects, no compression; a broken connection is reopened on the next request.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import os
from typing import Any


class ClientError(Exception):
    """The connection failed or the answer was not HTTP/1.1 (counted as an error by the benchmark)."""


class Answer:
    """What the benchmark reads of a response."""

    __slots__ = ("status_code", "headers", "content")

    def __init__(self, status_code: int, headers: dict[str, str], content: bytes) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content

    def json(self) -> Any:
        return jsonlib.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class RawClient:
    """``async with RawClient(host, port, headers) as c: await c.get(path)`` — the httpx calls the benchmark uses."""

    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None, timeout: float = 60) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.local_port = 0  # this end's port (the serving process is told by it: ``serving_process``)

    async def __aenter__(self) -> RawClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        return await self.request("GET", path, headers=headers)

    async def post(self, path: str, json: Any = None, content: bytes | None = None) -> Answer:
        body = jsonlib.dumps(json).encode() if json is not None else content
        return await self.request("POST", path, content=body, headers={"content-type": "application/json"})

    async def request(
        self, method: str, path: str, content: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        try:
            return await asyncio.wait_for(self._exchange(method, path, content, headers), self.timeout)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self._close()
            raise ClientError(type(exc).__name__) from exc

    async def _exchange(self, method: str, path: str, content: bytes | None, headers: dict[str, str] | None) -> Answer:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            self.local_port = self._writer.get_extra_info("sockname")[1]
        assert self._reader is not None
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        body = content or b""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{self._fixed}{extra}Content-Length: {len(body)}\r\n\r\n"
        )
        self._writer.write(head.encode("latin-1") + body)
        raw = await self._reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
        if "content-length" in fields:
            data = await self._reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            data = await self._chunks()
        else:
            data = b""
        if fields.get("connection", "").lower() == "close":
            self._close()
        return Answer(status, fields, data)

    async def _chunks(self) -> bytes:
        assert self._reader is not None
        parts = []
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self._reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self._reader.readexactly(size))
            await self._reader.readexactly(2)


def connect(base: str, headers: dict[str, str] | None = None, timeout: float = 60) -> RawClient:
    """A client for ``http://host:port`` (the form the benchmarks pass around)."""
    host, _, port = base.removeprefix("http://").rstrip("/").partition(":")
    return RawClient(host, int(port or 80), headers, timeout)


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (``/proc/<pid>/task/<pid>/children``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:  # ended meanwhile
            pass
    return out


def serving_process(server_pid: int, server_port: int, client_port: int) -> int | None:
    """The process under ``server_pid`` holding the accepted end of the connection made from ``client_port``
    (``/proc/net/tcp``: its socket's inode, then the processes' descriptors). Why: the ETags no longer name
    the process that served them (they agree across processes), so the answers per process are counted here."""
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = [line.split() for line in f.readlines()[1:]]
        except OSError:
            continue
        for r in rows:
            if int(r[1].rsplit(":", 1)[1], 16) == server_port and int(r[2].rsplit(":", 1)[1], 16) == client_port:
                inode = f"socket:[{r[9]}]"
    for pid in _tree(server_pid) if inode else []:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == inode:
                    return pid
            except OSError:
                continue
    return None


def _cpu_ticks(pid: int) -> int:
    """utime + stime of one process in clock ticks (0 when it ended meanwhile)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


class Meter:
    """CPU seconds of the server process (``/proc/<pid>/stat``) and of this process over a phase: what each
    request costs each side, the figure that does not move with the machine's load as latency does."""

    def __init__(self, server_pid: int | None) -> None:
        self.pid = server_pid
        self.server = self.client = 0.0

    def _server_now(self) -> float:
        """CPU seconds of the server and of every process under it (uvicorn ``--workers N``: the supervisor and
        its worker processes; one process otherwise)."""
        import os

        if self.pid is None:
            return 0.0
        return sum(_cpu_ticks(p) for p in _tree(self.pid)) / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> Meter:
        import time

        self._s0, self._c0 = self._server_now(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        import time

        self.server, self.client = self._server_now() - self._s0, time.process_time() - self._c0

    def line(self, requests: int) -> str:
        n = max(requests, 1)
        return (
            f"CPU per request: server {self.server / n * 1000:.1f} ms, load generator {self.client / n * 1000:.1f} ms"
        )
