"""Read timeouts for slow clients (issue 34): uvicorn bounds the idle time between requests
(``timeout_keep_alive``) but not the time a client takes to SEND one, so a client trickling its headers or
its body a byte at a time held a connection (and, for a body, a request handler) for as long as it liked.

``TimedH11Protocol`` is uvicorn's h11 protocol with two deadlines: the request head must arrive whole within
``head_seconds`` (10 s) of its first byte, and the body within ``body_seconds`` (120 s) of the head. Past either, the
client gets ``408 Request Timeout`` (if nothing was answered yet) and the connection is closed. Served with
``uvicorn.run(..., http=TimedH11Protocol)`` by ``lexlogic serve``; behind a proxy, the proxy's own limits
(nginx ``client_header_timeout``/``client_body_timeout``) do the same job (docs/deployment.md).
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: 42\r\n\r\nrequest not received in time: closed (408)"
)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline on reading each request's head and body (module docstring)."""

    head_seconds = 10.0
    body_seconds = 120.0  # 20 MB (the upload limit) at 170 kB/s
    _timer: asyncio.TimerHandle | None = None
    _watched: object = None  # the request cycle whose body is being timed

    def data_received(self, data: bytes) -> None:
        if self._timer is None and (self.cycle is None or self.cycle.response_complete):
            self._timer = self.loop.call_later(self.head_seconds, self._too_slow)  # a new request's head begins
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return
        if cycle is not self._watched:  # its head arrived: time its body, if it has one
            self._watched = cycle
            self._cancel()
            if cycle.more_body:
                self._timer = self.loop.call_later(self.body_seconds, self._too_slow)
        elif not cycle.more_body:
            self._cancel()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self.transport.write(TIMEOUT_RESPONSE)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.logger.warning("client %s too slow to send its request: closed", self.client)
        self.transport.close()
