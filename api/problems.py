"""RFC 9457 problem details for every error the API returns (``application/problem+json``).

Validation errors carry the JSON path of each offending value (``$.facts.some_fact``), the same
notation the CLI uses for case files, so a client can point at the field.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list

PROBLEM_MEDIA = "application/problem+json"
log = logging.getLogger("lexlogic.api")


class FieldError(BaseModel):
    location: str = Field(description="body | query | path | header | case")
    path: str = Field(description="JSON path of the offending value, e.g. $.facts.some_fact")
    message: str


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = Field(default="about:blank", examples=["https://lexlogic.dev/problems/not-found"])
    title: str = Field(examples=["Not Found"])
    status: int = Field(examples=[404])
    detail: str | None = Field(default=None, examples=["no case 3f2a… for this tenant"])
    instance: str | None = Field(default=None, examples=["/v1/cases/3f2a…"])
    errors: list[FieldError] = Field(default_factory=new_list)


TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class ProblemError(LexlogicError):
    """Raise from a route to answer with a problem (any status, a slug, located errors, headers).

    A ``LexlogicError`` like every other: the one handler below answers it.
    """

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        slug: str | None = None,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status, self.detail, self.slug, self.errors, self.headers = status, detail, slug, errors or [], headers

    @property
    def kind(self) -> str | None:
        return self.slug

    @property
    def issues(self) -> list[FieldError]:
        return self.errors


class BodyTooLarge(LexlogicError):
    """A request body over the limit, found while streaming it (413)."""

    status = 413
    kind = "too-large"

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body exceeds {limit} bytes")
        self.limit = limit


def problem_response(
    status: int,
    detail: str | None,
    *,
    instance: str | None = None,
    slug: str | None = None,
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    title = TITLES.get(status, "Error")
    body = Problem(
        type=f"https://lexlogic.dev/problems/{slug}" if slug else "about:blank",
        title=title,
        status=status,
        detail=detail,
        instance=instance,
        errors=errors or [],
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=status, media_type=PROBLEM_MEDIA, headers=headers)


def json_path(loc: tuple[Any, ...] | list[Any]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries declaring problem+json bodies."""
    return {
        s: {
            "model": Problem,
            "description": TITLES.get(s, "Error"),
            "content": {PROBLEM_MEDIA: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for s in statuses
    }


def install(app: FastAPI) -> None:
    @app.exception_handler(LexlogicError)
    async def _lexlogic(request: Request, exc: LexlogicError) -> JSONResponse:
        """Every lexlogic error, mapped once: its ``status``, its located issues, Retry-After on 503.

        The problem's type is the error's ``kind`` when it has one (``None``: about:blank), else its class.
        """
        issues = getattr(exc, "issues", None) or []
        errors = [FieldError(location=i.location, path=i.path, message=i.message) for i in issues]
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status == 503:
            headers.setdefault("Retry-After", "5")
        return problem_response(
            exc.status,
            str(exc),
            instance=request.url.path,
            slug=getattr(exc, "kind", type(exc).__name__),
            errors=errors,
            headers=headers or None,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, BodyTooLarge):  # FastAPI wraps body-read errors in a 400
            return problem_response(413, str(exc.__cause__), instance=request.url.path, slug="too-large")
        detail = exc.detail if isinstance(exc.detail, str) else None
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:  # Starlette lists only the first matching route's methods
            headers = {**(headers or {}), "Allow": ", ".join(_allowed(app, request.url.path))}
        return problem_response(exc.status_code, detail, instance=request.url.path, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = []
        for err in exc.errors():
            loc = list(err.get("loc", ()))
            where = str(loc.pop(0)) if loc else "body"
            errors.append(FieldError(location=where, path=json_path(loc), message=str(err.get("msg", "invalid"))))
        first = errors[0] if errors else None
        detail = f"{first.location} {first.path}: {first.message}" if first else "invalid request"
        return problem_response(422, detail, instance=request.url.path, slug="validation", errors=errors)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - last resort
        log.exception("unhandled error on %s", request.url.path)
        return problem_response(500, f"internal error ({type(exc).__name__})", instance=request.url.path)


def _allowed(app: FastAPI, path: str) -> list[str]:
    """Every method the schema documents for ``path`` (all routes sharing the template)."""
    table = getattr(app.state, "_allow_table", None)
    if table is None:
        table = []
        for template, ops in app.openapi().get("paths", {}).items():
            rx = re.compile("^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$")
            table.append((rx, sorted(m.upper() for m in ops)))
        app.state._allow_table = table
    methods = {m for rx, ms in table if rx.match(path) for m in ms}
    return sorted(methods)


class BodyLimitMiddleware:
    """Refuse bodies over the limit: at once from Content-Length, else while streaming (chunked)."""

    def __init__(self, app: ASGIApp, *, default_limit: int, upload_limit: int) -> None:
        self.app, self.default_limit, self.upload_limit = app, default_limit, upload_limit

    def limit_for(self, scope: Scope) -> int:
        path: str = scope.get("path", "")
        return self.upload_limit if path.rstrip("/").endswith("/documents") else self.default_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = False
                if too_big:
                    resp = problem_response(
                        413, f"request body exceeds {limit} bytes", instance=scope.get("path"), slug="too-large"
                    )
                    await resp(scope, receive, send)
                    return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return msg

        await self.app(scope, limited, send)
