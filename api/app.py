"""The HTTP API: ``create_app(settings)`` builds the FastAPI app (versioned under /v1) and the page at /.

Each capability is a router module of its own (``api/routers/<area>.py``); optional ones are included
only when their engine module imports, so the schema never advertises an endpoint that cannot work.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from lexlogic.api import problems
from lexlogic.api.boundary import BoundaryMiddleware
from lexlogic.api.deps import ApiSettings, Services
from lexlogic.api.local_login import LoginTokens
from lexlogic.api.security_headers import SecurityHeadersMiddleware

STATIC = Path(__file__).resolve().parent / "static"
CORE_ROUTERS = ("cases", "documents", "runs", "verdicts", "sensitivity", "packs", "login")
OPTIONAL_ROUTERS: tuple[str, ...] = ("fallacies", "evidence_graph", "dynamic_rules", "claims")
log = logging.getLogger("lexlogic.api")


RETRY_AFTER = 5


class Health(BaseModel):
    status: str = Field(default="ok", description="ok | degraded (a dependency is down: HTTP 503)")
    version: str
    routers: list[str]
    database: str = Field(default="ok", description="ok | unavailable (error class)")
    broker: dict[str, Any] | None = Field(default=None, description="embedded, or the broker and its workers")


def _server_paths(svc: Services) -> list[str]:
    """Folders whose absolute paths must never reach a client (scrubbed from error bodies and streams)."""
    paths = [Path(__file__).resolve().parents[1], svc.data_dir, svc.settings.core.home]
    out = []
    for p in paths:
        out += [str(p), str(p.resolve())] if p.is_absolute() else [str(p.resolve())]
    return out


def _database_ok(svc: Services) -> str:
    """One `SELECT 1` on the API's engine (pre-ping pool: a dead connection is replaced first)."""
    from sqlalchemy import text

    try:
        with svc.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return "ok"
    except Exception as exc:  # any failure means "not usable now"
        return f"unavailable ({type(exc).__name__})"


def _install_unavailable(app: FastAPI) -> None:
    """A database that is down or refusing connections is a 503 with Retry-After, never a 500. The
    message names the error class only: driver messages carry host names and SQL."""
    from sqlalchemy.exc import DBAPIError, OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        if isinstance(exc, DBAPIError) and not isinstance(exc, OperationalError) and not exc.connection_invalidated:
            log.exception("database error on %s", request.url.path)
            return problems.problem_response(500, f"internal error ({type(exc).__name__})", instance=request.url.path)
        log.warning("database unavailable on %s: %s", request.url.path, type(exc).__name__)
        return problems.problem_response(
            503,
            f"the database is unavailable ({type(exc).__name__}); retry later",
            instance=request.url.path,
            slug="unavailable",
            headers={"Retry-After": str(RETRY_AFTER)},
        )

    for cls in (OperationalError, PoolTimeout, DBAPIError):
        app.add_exception_handler(cls, unavailable)


def create_app(settings: ApiSettings | None = None) -> FastAPI:
    settings = settings or ApiSettings()
    svc = Services(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from lexlogic.engine.jobs.tasks import Resumer

        resumer = Resumer(svc.runs, settings.core).start()  # interrupted runs resume by themselves (issue 21, point 4)
        yield
        resumer.stop()
        svc.close()

    app = FastAPI(
        title="lexlogic",
        version="1.0.0",
        lifespan=lifespan,
        summary="Neuro-symbolic legal reasoning: verdicts with proof traces, narratives, what-if.",
        description="Every route under /v1 needs an API key (`X-API-Key: llx_…` or `Authorization: Bearer llx_…`; "
        "`lexlogic keys create --tenant NAME`). Cases, documents and states belong to the key's tenant: "
        "another tenant's id answers 404. Errors are RFC 9457 problem details "
        "(`application/problem+json`).",
        openapi_tags=[
            {"name": n}
            for n in (
                "cases",
                "documents",
                "runs",
                "verdicts",
                "rule packs",
                "dynamic rules",
                "evidence graph",
                "fallacies",
                "claims",
                "service",
            )
        ],
    )
    app.state.services = svc
    app.state.login_tokens = LoginTokens()  # local mode's one-time login links (`lexlogic serve`)
    problems.install(app)
    _install_unavailable(app)
    app.add_middleware(  # inside the body limit: it buffers at most that much
        BoundaryMiddleware, server_paths=_server_paths(svc)
    )
    app.add_middleware(
        problems.BodyLimitMiddleware, default_limit=settings.max_body_bytes, upload_limit=settings.max_upload_bytes
    )
    app.add_middleware(SecurityHeadersMiddleware)  # outermost: every answer, errors included
    loaded: list[str] = []
    for name in CORE_ROUTERS + OPTIONAL_ROUTERS:
        try:
            module = importlib.import_module(f"lexlogic.api.routers.{name}")
        except ImportError as exc:
            if name in CORE_ROUTERS:
                raise
            log.warning("router %s not available: %s", name, exc)
            continue
        app.include_router(module.router, responses=problems.problem_responses(400, 500))
        loaded.append(name)

    @app.get(
        "/v1/health",
        response_model=Health,
        tags=["service"],
        summary="Liveness and the database (no key needed)",
        responses={503: {"model": Health, "description": "the database is unreachable"}},
    )
    def health() -> Any:
        db = _database_ok(svc)
        from lexlogic.engine.jobs.tasks import broker_status

        body = Health(status="ok" if db == "ok" else "degraded", version=app.version, routers=loaded, database=db)
        body.broker = broker_status(settings.core)
        if db != "ok":
            return JSONResponse(body.model_dump(), status_code=503, headers={"Retry-After": str(RETRY_AFTER)})
        return body

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _tidy_openapi(app)
    return app


class RunEventStart(BaseModel):
    case_id: str
    phase: str
    status: str


class RunEventTransition(BaseModel):
    seq: int
    phase: str
    status: str
    message: str = ""
    log: str = ""


class RunEventError(BaseModel):
    status: int
    detail: str


class RunEvent(BaseModel):
    """One server-sent event of POST …/run: the `event:` line names it, the `data:` line is this JSON."""

    event: str = Field(description="start | transition | done | error")
    data: RunEventStart | RunEventTransition | dict[str, Any] | RunEventError = Field(
        description="start → RunEventStart, transition → RunEventTransition, done → RunResult, error → RunEventError"
    )


def _event_stream_schemas(schema: dict[str, Any], comps: dict[str, Any]) -> None:
    """SSE bodies are sequences of JSON objects, not strings; and every referenced model must exist
    (RunResult was referenced by hand and missing from the components)."""
    from lexlogic.api.routers import runs

    models: list[type[BaseModel]] = [RunEvent, RunEventStart, RunEventTransition, RunEventError]
    if hasattr(runs, "RunResult"):
        models.append(runs.RunResult)
    for model in models:
        sub = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, d in sub.pop("$defs", {}).items():
            comps.setdefault(name, d)
        comps.setdefault(model.__name__, sub)
    for where, path in schema.get("paths", {}).items():
        if not where.endswith("/run"):
            continue
        for op in path.values():
            for resp in op.get("responses", {}).values():
                content = resp.get("content", {}) if isinstance(resp, dict) else {}
                if "text/event-stream" in content:
                    content["text/event-stream"]["schema"] = {
                        "type": "array",
                        "description": "the stream, one RunEvent per `event:`/`data:` block",
                        "items": {"$ref": "#/components/schemas/RunEvent"},
                    }


def _tidy_openapi(app: FastAPI) -> None:
    """Validation errors are problem+json too: replace FastAPI's default 422 schema everywhere."""
    base = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = base()
        for path in schema.get("paths", {}).values():
            for op in path.values():
                resp = op.get("responses", {})
                if "422" in resp:
                    resp["422"] = {
                        "description": "Unprocessable Content (JSON path of each error)",
                        "content": {problems.PROBLEM_MEDIA: {"schema": {"$ref": "#/components/schemas/Problem"}}},
                    }
        comps = schema.setdefault("components", {}).setdefault("schemas", {})
        comps.pop("HTTPValidationError", None)
        comps.pop("ValidationError", None)
        _event_stream_schemas(schema, comps)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
