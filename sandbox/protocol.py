"""Length-prefixed frames over a pair of pipes (parent ⇄ worker). Stdlib only: the worker imports it.

A frame is a 4-byte big-endian length then that many bytes. The parent reads with a deadline and a
size cap, so a worker that stalls or floods is detected without trusting it.
"""

from __future__ import annotations

import os
import select
import struct
import time

from lexlogic.logic.errors import LexlogicError

HEADER = struct.Struct(">I")


class FrameError(LexlogicError):
    """The peer closed the pipe, stalled past the deadline, or announced an oversized frame."""

    def __init__(self, reason: str, message: str, size: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason  # "eof" | "timeout" | "too_large"
        self.size = size


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def write_frame(fd: int, payload: bytes, deadline: float | None = None) -> None:
    write_all(fd, frame(payload), deadline)


def write_all(fd: int, raw: bytes, deadline: float | None = None) -> None:
    """Write bytes (one or several frames at once: one syscall, one wake-up of the peer)."""
    data = memoryview(raw)
    while data:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FrameError("timeout", "timed out writing to the worker")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
        try:
            n = os.write(fd, data)
        except BrokenPipeError:
            raise FrameError("eof", "the worker's pipe is closed") from None
        data = data[n:]


class FrameReader:
    """Buffered frame reader: reads what the pipe has (up to 1 MiB) and cuts frames from it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = bytearray()

    def _fill(self, n: int, deadline: float | None) -> None:
        while len(self._buf) < n:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise FrameError("timeout", "timed out waiting for the worker")
                readable, _, _ = select.select([self.fd], [], [], remaining)
                if not readable:
                    continue
            chunk = os.read(self.fd, min(max(n - len(self._buf), 1 << 16), 1 << 20))
            if not chunk:
                raise FrameError("eof", "the worker closed its pipe")
            self._buf += chunk

    def read(self, max_size: int, deadline: float | None = None) -> bytes:
        self._fill(HEADER.size, deadline)
        (size,) = HEADER.unpack_from(self._buf)
        if size > max_size:
            raise FrameError("too_large", f"frame of {size} bytes exceeds the cap of {max_size}", size)
        self._fill(HEADER.size + size, deadline)
        out = bytes(self._buf[HEADER.size : HEADER.size + size])
        del self._buf[: HEADER.size + size]
        return out


def read_frame(fd: int, max_size: int, deadline: float | None = None) -> bytes:
    """Unbuffered: reads exactly one frame (the worker side, where requests come one at a time)."""
    header = _read_exact(fd, HEADER.size, deadline)
    (size,) = HEADER.unpack(header)
    if size > max_size:
        raise FrameError("too_large", f"frame of {size} bytes exceeds the cap of {max_size}", size)
    return _read_exact(fd, size, deadline)


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    while n > 0:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FrameError("timeout", "timed out waiting for the worker")
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise FrameError("eof", "the worker closed its pipe")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
