"""Response headers that keep the page out of frames and its content types from being guessed.

Why: the page set no CSP, no nosniff and no frame policy (issue 34: a red team could frame it and plant a
key). Every response says ``nosniff``; the page and its static files also carry a Content-Security-Policy
(only this origin's scripts, no framing by anyone, no plugins, no base or form hijack) and no referrer.
The OpenAPI pages (/docs) load their viewer from a CDN: they keep FastAPI's defaults.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


def _is_page(path: str) -> bool:
    return path == "/" or path.startswith("/static/")


class SecurityHeadersMiddleware:
    """Adds the headers above to responses (never overriding one a route set itself)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(b"x-content-type-options", b"nosniff")] + (PAGE_HEADERS if _is_page(scope.get("path", "")) else [])

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                headers = list(message.get("headers", [])) + [(k, v) for k, v in extra if k not in have]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
