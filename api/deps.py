"""Settings, shared services and the tenant dependency of the HTTP API."""

from __future__ import annotations

import os
import threading
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from lexlogic.api.problems import ProblemError
from lexlogic.engine.store.api_cases import ApiCase, ApiCaseStore
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.store.db import default_url, make_engine
from lexlogic.engine.store.tenants import TenantStore


class Settings(BaseModel):
    db_url: str | None = Field(default=None, description="SQLAlchemy URL; None → LEXLOGIC_DATABASE_URL or SQLite")
    data_dir: Path | None = Field(
        default=None, description="uploaded documents (per tenant/case); None → $LEXLOGIC_HOME/api"
    )
    max_body_bytes: int = 1_000_000
    max_upload_bytes: int = 20_000_000
    sync_upload_bytes: int = Field(default=5_000_000, description="larger uploads are read in the background (202)")
    verdict_cache_size: int = 256
    quota_limits: Any = Field(default=None, description="sandbox.quota.QuotaLimits; None → from the environment")

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            db_url=os.environ.get("LEXLOGIC_DATABASE_URL") or None,
            data_dir=Path(os.environ["LEXLOGIC_API_DATA"]) if os.environ.get("LEXLOGIC_API_DATA") else None,
        )

    def resolved_data_dir(self) -> Path:
        return self.data_dir or Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic")) / "api"


class Services:
    """Everything the routes share, built once per app (one SQLAlchemy engine for all stores)."""

    def __init__(self, settings: Settings) -> None:
        from lexlogic.engine.verdict_service import VerdictService

        self.settings = settings
        url = settings.db_url or default_url()
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine = make_engine(url)
        self.tenants = TenantStore(engine=self.engine)
        self.cases = ApiCaseStore(engine=self.engine)
        self.runs = CaseStore(url)  # the orchestrator's snapshots (its own pool on the same database)
        self.data_dir = settings.resolved_data_dir()
        self.verdicts = VerdictService(settings.verdict_cache_size)
        self.heads: dict[str, tuple[int, object]] = {}  # run id → (seq, parsed CaseState)
        self._case_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    @cached_property
    def dynamic_rules(self):  # type: ignore[no-untyped-def]
        """The dynamic-rule store on the API's database (created on first use: an optional router)."""
        from lexlogic.engine.dynamic_rules import DynamicRuleStore

        return DynamicRuleStore(self.engine)

    @cached_property
    def upload_jobs(self):  # type: ignore[no-untyped-def]
        """Background uploads of this process (api.routers.documents.UploadJobs)."""
        from lexlogic.api.routers.documents import UploadJobs

        return UploadJobs()

    @cached_property
    def quotas(self):  # type: ignore[no-untyped-def]
        """Per-tenant quotas on the shared sandbox and other costly calls (sandbox.quota)."""
        from lexlogic.sandbox.quota import QuotaLimits, TenantQuotas

        return TenantQuotas(self.settings.quota_limits or QuotaLimits.from_env())

    @cached_property
    def kg(self):  # type: ignore[no-untyped-def]
        """The evidence-graph store on the API's database (created on first use: an optional router)."""
        from lexlogic.engine.kg.store import KGStore

        return KGStore(engine=self.engine)

    def case_lock(self, case_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._case_locks.setdefault(case_id, threading.Lock())

    def dossier_dir(self, case: ApiCase) -> Path:
        return self.data_dir / case.tenant_id / case.id / "dossier"

    def close(self) -> None:
        self.engine.dispose()
        self.runs.close()


async def services(request: Request) -> Services:
    return request.app.state.services


_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="API key `llx_<id>_<secret>`")
_bearer = HTTPBearer(auto_error=False, description="the same API key as a bearer token")


async def tenant_id(
    request: Request,
    key: Annotated[str | None, Depends(_api_key)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The caller's tenant, from ``X-API-Key`` or ``Authorization: Bearer``; 401 otherwise."""
    given = key or (bearer.credentials if bearer else None)
    # async on purpose: one indexed lookup is cheaper inline than a thread-pool hop per dependency
    found = request.app.state.services.tenants.principal(given)
    tid = found[0] if found else None
    if found:
        request.state.key_id = found[1]  # who acts, for approvals (api_rule_principals)
    if tid is None:
        raise ProblemError(
            401,
            "missing or invalid API key" if given else "an API key is required (X-API-Key)",
            slug="unauthorized",
            headers={"WWW-Authenticate": 'Bearer realm="lexlogic"'},
        )
    return tid


Tenant = Annotated[str, Depends(tenant_id)]
Svc = Annotated[Services, Depends(services)]


async def owned_case(case_id: str, tenant: Tenant, svc: Svc) -> ApiCase:
    """The case if this tenant owns it; 404 otherwise (another tenant's id is indistinguishable)."""
    case = svc.cases.get_case(tenant, case_id) if len(case_id) <= 64 else None
    if case is None:
        raise ProblemError(404, f"no case {case_id!r}", slug="not-found")
    return case


Case = Annotated[ApiCase, Depends(owned_case)]


def too_many(exc: Exception) -> ProblemError:
    """A quota refusal (sandbox.quota.QuotaExceeded) as 429 with Retry-After."""
    retry = int(getattr(exc, "retry_after", 1))
    return ProblemError(429, str(exc), slug="quota", headers={"Retry-After": str(retry)})


def key_id(request: Request) -> str | None:
    """The id of the API key of this request (set by `tenant_id`)."""
    return getattr(request.state, "key_id", None)
