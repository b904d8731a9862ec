"""Issue 34: slow bodies and headers were held open with no read timeout (slowloris). Served by
``lexlogic serve``'s protocol (api.slow_clients.TimedH11Protocol, deadlines shortened here), a request head
or body that does not arrive in time gets 408 and its connection is closed; a normal request is untouched.
On plain uvicorn (the old serving) both slow clients were still connected at the end of the wait."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from lexlogic.api.slow_clients import TimedH11Protocol


class Quick(TimedH11Protocol):
    head_seconds = 1.0
    body_seconds = 1.5


@pytest.fixture
def base(tmp_path: Path) -> Iterator[tuple[str, int]]:
    app = create_app(ApiSettings(db_url=f"sqlite:///{tmp_path / 'api.db'}", data_dir=tmp_path / "data"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=Quick))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}", port
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def _read_all(sock: socket.socket, wait: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes (or ``wait`` s pass), and when it closed."""
    sock.settimeout(wait)
    got, t0 = b"", time.monotonic()
    try:
        while chunk := sock.recv(4096):
            got += chunk
    except TimeoutError:
        return got, float("inf")
    return got, time.monotonic() - t0


def test_trickled_headers_get_408_and_the_connection_closes(base) -> None:  # type: ignore[no-untyped-def]
    _, port = base
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
        for _ in range(3):  # a header byte now and then: never the blank line that ends the head
            time.sleep(0.2)
            sock.sendall(b"X")
        got, closed_after = _read_all(sock, 10)
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert closed_after < 5


def test_trickled_body_gets_408_and_the_connection_closes(base) -> None:  # type: ignore[no-untyped-def]
    _, port = base
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST /v1/cases HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"
        )
        got, closed_after = _read_all(sock, 10)
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert closed_after < 6


def test_normal_requests_are_untouched(base) -> None:  # type: ignore[no-untyped-def]
    url, _ = base
    with httpx.Client(base_url=url, timeout=10) as client:  # keep-alive: several requests on one connection
        for _ in range(3):
            assert client.get("/v1/health").status_code == 200
            time.sleep(0.6)  # idle between requests is the keep-alive's business, not a slow request
        r = client.post("/v1/cases", json={"name": "x"})
        assert r.status_code in (401, 403, 422), r.text  # answered (no key), not cut off
