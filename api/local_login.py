"""Local single-user mode: `lexlogic serve` on a loopback address makes a key at start and prints a one-click
URL carrying a one-time login token (never the key itself: a URL lands in history, logs and screenshots).

The page posts the token to ``POST /v1/login``, which answers the key once: the token is single-use and
expires after ``ttl`` seconds; the page then strips it from the address bar. Tokens live in this process
only (local mode runs one uvicorn worker).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class LoginTokens:
    """One-time tokens → API keys, in memory."""

    def __init__(self, clock=time.monotonic) -> None:  # type: ignore[no-untyped-def]
        self._tokens: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def issue(self, key: str, ttl: float = 300.0) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._tokens[token] = (key, self._clock() + ttl)
        return token

    def redeem(self, token: str) -> str | None:
        """The key once, then never again; None for an unknown, used or expired token."""
        with self._lock:
            now = self._clock()
            for t, (_, exp) in list(self._tokens.items()):
                if exp < now:
                    del self._tokens[t]
            found = next((t for t in self._tokens if hmac.compare_digest(t, token)), None)
            if found is None:
                return None
            return self._tokens.pop(found)[0]
