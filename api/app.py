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

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from lexlogic.api import problems
from lexlogic.api.deps import Services, Settings

STATIC = Path(__file__).resolve().parent / "static"
CORE_ROUTERS = ("cases", "documents", "runs", "verdicts", "packs")
OPTIONAL_ROUTERS: tuple[str, ...] = ("fallacies", "evidence_graph", "dynamic_rules", "claims")
log = logging.getLogger("lexlogic.api")


class Health(BaseModel):
    status: str = "ok"
    version: str
    routers: list[str]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    svc = Services(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
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
    problems.install(app)
    app.add_middleware(
        problems.BodyLimitMiddleware, default_limit=settings.max_body_bytes, upload_limit=settings.max_upload_bytes
    )
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

    @app.get("/v1/health", response_model=Health, tags=["service"], summary="Liveness (no key needed)")
    def health() -> Health:
        return Health(version=app.version, routers=loaded)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _tidy_openapi(app)
    return app


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
        comps = schema.get("components", {}).get("schemas", {})
        comps.pop("HTTPValidationError", None)
        comps.pop("ValidationError", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
