"""Settings, shared services and the tenant dependency of the HTTP API."""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from lexlogic.api.problems import ProblemError
from lexlogic.api.uploads import UploadJobs
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.store.api_cases import ApiCase, ApiCaseStore, run_of
from lexlogic.engine.store.cases import CaseStore, LeaseTimes
from lexlogic.engine.store.db import dispose_engine, make_engine
from lexlogic.engine.store.tenants import TenantStore
from lexlogic.settings import Settings


class ApiSettings(BaseModel):
    """The HTTP face's own limits, beside the one ``Settings`` of the distribution (``core``)."""

    core: Settings = Field(default_factory=Settings, description="the distribution's settings (LEXLOGIC_*)")
    db_url: str | None = Field(default=None, description="SQLAlchemy URL; None → core.database")
    data_dir: Path | None = Field(
        default=None, description="uploaded documents (per tenant/case); None → $LEXLOGIC_HOME/api"
    )
    max_body_bytes: int = 1_000_000
    max_upload_bytes: int = 20_000_000
    sync_upload_bytes: int = Field(default=5_000_000, description="larger uploads are read in the background (202)")
    verdict_cache_size: int = 256
    verdict_workers: int = Field(
        default=2, ge=1, description="verdicts computed at once (what-ifs, new cases); others wait their turn"
    )
    quota_limits: Any = Field(default=None, description="engine.tenancy.quota.QuotaLimits; None → from core")

    def resolved_data_dir(self) -> Path:
        return self.data_dir or self.core.api_data or self.core.home / "api"


class Services:
    """Everything the routes share, built once per app (one SQLAlchemy engine for all stores)."""

    def __init__(self, settings: ApiSettings) -> None:
        from lexlogic.api.warm import VerdictWarmer
        from lexlogic.engine.prob.inference_plan import InferenceLimits
        from lexlogic.engine.verdict.build import VerdictService

        self.settings = settings
        # the rule packs of this process, passed to every route (re-read when a pack's files change)
        self.packs = PackLibrary(settings.core.rules_dir, settings.core.default_pack, watch=True)
        url = settings.db_url or settings.core.database
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine = make_engine(url)
        self.tenants = TenantStore(engine=self.engine)
        self.cases = ApiCaseStore(engine=self.engine)
        # the orchestrator's snapshots (its own pool on the same database), with the settings' lease times
        self.runs = CaseStore(url, LeaseTimes.from_settings(settings.core))
        # the key and a case's head can be read in one statement (``deps.tenant_id``) when both stores are one database
        memory = self.engine.dialect.name == "sqlite" and self.engine.url.database in (None, "", ":memory:")
        self.one_database = self.runs.engine.url == self.engine.url and not memory
        self.data_dir = settings.resolved_data_dir()
        # the packs' check and test results per pack version (``routers/packs``), the app's own
        self.pack_results: dict[tuple[str, str, tuple[Any, ...]], Any] = {}
        self.pack_results_lock = threading.Lock()
        self.verdicts = VerdictService(
            self.packs, settings.verdict_cache_size, settings.verdict_workers, InferenceLimits.of(settings.core)
        )
        self.warmer = VerdictWarmer(self.verdicts)  # new cases' verdicts, off the request thread
        self.heads: dict[str, tuple[int, object]] = {}  # run id → (seq, parsed CaseState)
        self._case_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    @cached_property
    def body_version(self) -> str:
        """What the verdict routes' ETags add to a body's key: the code serving it and the deployment's inference
        limits (``api.etags.code_version``), the same in every process of one deployment; read on first use."""
        from lexlogic.api.etags import code_version

        return code_version(self.verdicts.limits)

    @cached_property
    def dynamic_rules(self):  # type: ignore[no-untyped-def]
        """The dynamic-rule store on the API's database (created on first use: an optional router)."""
        from lexlogic.engine.extensions.dynamic_rules import DeploymentPolicy, DynamicRuleStore

        return DynamicRuleStore(self.engine, DeploymentPolicy.from_settings(self.settings.core))

    @cached_property
    def upload_jobs(self) -> UploadJobs:
        """Background uploads of this process (api.uploads)."""
        return UploadJobs()

    @cached_property
    def quotas(self):  # type: ignore[no-untyped-def]
        """Per-tenant quotas on the shared sandbox and other costly calls (engine.tenancy.quota)."""
        from lexlogic.engine.tenancy.quota import QuotaLimits, TenantQuotas

        return TenantQuotas(self.settings.quota_limits or QuotaLimits.from_settings(self.settings.core))

    @cached_property
    def sandbox(self):  # type: ignore[no-untyped-def]
        """The process's dynamic-rule sandbox pool (``core.sandbox_workers`` processes, made on first use)."""
        from lexlogic.sandbox.pool import default_pool

        return default_pool(self.settings.core.sandbox_workers)

    @cached_property
    def llm(self):  # type: ignore[no-untyped-def]
        """The configured LLM endpoint (``core.llm_*``), or None: offline."""
        from lexlogic.bridges.llm import LLMClient

        return LLMClient.from_settings(self.settings.core)

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
        self.warmer.close()
        dispose_engine(self.engine)
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
    # async on purpose: one indexed read (one round trip, engine.store.db.PointReads) awaited on the event loop
    # (engine.store.loop_reads: other requests move during the round trip), cheaper than a thread-pool hop
    # (measured: ~2 ms more CPU a request in hops and GIL hand-offs under 16 clients)
    svc: Services = request.app.state.services
    run = _case_run(request, svc)
    if run is None:
        found = await svc.tenants.aprincipal(given)
    else:  # a case's route: its head's number in the same round trip (``head_seq``)
        found, seq = await svc.tenants.aprincipal_and_head(given, run)
        request.state.head = (run, seq)
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


def _case_run(request: Request, svc: Services) -> str | None:
    """The run of the case the path names (``/v1/cases/{case_id}/…``), if its head can be read with the key."""
    case_id = request.path_params.get("case_id")
    if not svc.one_database or not isinstance(case_id, str) or len(case_id) > 64 or "\x00" in case_id:
        return None
    return run_of(case_id)


async def head_seq(request: Request, svc: Services, case: ApiCase) -> int:
    """The case's head number as read with the request's API key (``tenant_id``: one round trip for both, at the
    request's start), else awaited now (``CaseStore.ahead_seq``)."""
    read = getattr(request.state, "head", None)
    if read is not None and read[0] == case.run_id:
        return int(read[1])
    return await svc.runs.ahead_seq(case.run_id)


Tenant = Annotated[str, Depends(tenant_id)]
Svc = Annotated[Services, Depends(services)]


async def owned_case(case_id: str, tenant: Tenant, svc: Svc) -> ApiCase:
    """The case if this tenant owns it; 404 otherwise (another tenant's id is indistinguishable)."""
    case = await svc.cases.aget_case(tenant, case_id) if len(case_id) <= 64 else None
    if case is None:
        raise ProblemError(404, f"no case {case_id!r}", slug="not-found")
    return case


Case = Annotated[ApiCase, Depends(owned_case)]


def too_many(exc: Exception) -> ProblemError:
    """A quota refusal (engine.tenancy.quota.QuotaExceeded) as 429 with Retry-After."""
    retry = int(getattr(exc, "retry_after", 1))
    return ProblemError(429, str(exc), slug="quota", headers={"Retry-After": str(retry)})


def key_id(request: Request) -> str | None:
    """The id of the API key of this request (set by `tenant_id`)."""
    return getattr(request.state, "key_id", None)
