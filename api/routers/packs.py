"""Rule packs: list, describe, check, run their YAML tests. Packs ship with the service (shared by all
tenants, read-only); tenant-owned rules are the dynamic rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from lexlogic.api.deps import Services, Svc, Tenant, too_many
from lexlogic.api.openapi_examples import EXAMPLES
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.engine.tenancy.quota import QuotaExceeded
from lexlogic.engine.workbench.check import check_pack
from lexlogic.engine.workbench.ruletests import check_test, pack_tests
from lexlogic.logic.facts import facts_json_schema
from lexlogic.logic.pack import PackError, RulePack

router = APIRouter(prefix="/v1/packs", tags=["rule packs"])


class PackOut(BaseModel):
    name: str = Field(examples=[EXAMPLES.pack])
    title: str
    jurisdiction: str
    version: str
    target: str
    facts: int
    checks: list[str]


class FactOut(BaseModel):
    name: str
    type: str
    label: str
    values: list[str] | None = None
    question: str | None = None
    cost: float


class PackDetail(PackOut):
    vocabulary: list[FactOut]
    sources: dict[str, str] = Field(description="source id → citation")


class PackProblem(BaseModel):
    location: str = Field(examples=[EXAMPLES.rule_location])
    message: str


class PackCheckReport(BaseModel):
    pack: str
    ok: bool
    problems: list[PackProblem]


class TestResult(BaseModel):
    name: str
    location: str
    passed: bool
    failures: list[str]


class TestReport(BaseModel):
    pack: str
    passed: int
    failed: int
    results: list[TestResult]


def _pack(svc: Services, name: str) -> RulePack:
    try:
        pack = svc.packs.pack(name)
    except PackError:
        raise ProblemError(404, f"no rule pack named {name!r}", slug="not-found") from None
    return pack


def _out(pack: RulePack) -> dict[str, Any]:
    m = pack.manifest
    return {
        "name": m.name,
        "title": m.title,
        "jurisdiction": m.jurisdiction,
        "version": m.version,
        "target": m.target,
        "facts": len(pack.facts),
        "checks": [c.id for c in m.checks],
    }


@router.get("", response_model=list[PackOut], summary="Installed rule packs", responses=problem_responses(401))
def list_packs(_: Tenant, svc: Svc) -> list[PackOut]:
    out = []
    for name in svc.packs.names():
        try:
            out.append(PackOut(**_out(svc.packs.pack(name))))
        except PackError:
            continue  # a broken pack is reported by …/check, not listed
    return out


@router.get(
    "/{name}",
    response_model=PackDetail,
    summary="A pack's manifest and fact vocabulary",
    responses=problem_responses(401, 404),
)
def get_pack(name: str, _: Tenant, svc: Svc) -> PackDetail:
    pack = _pack(svc, name)
    return PackDetail(
        **_out(pack),
        vocabulary=[
            FactOut(name=n, type=s.type.value, label=s.label, values=s.values, question=s.question, cost=s.cost)
            for n, s in pack.facts.items()
        ],
        sources={k: v.cite() for k, v in pack.manifest.sources.items()},
    )


@router.get(
    "/{name}/schema",
    summary="JSON Schema of a case file for this pack",
    response_model=dict[str, Any],
    responses=problem_responses(401, 404),
)
def pack_schema(name: str, _: Tenant, svc: Svc) -> dict[str, Any]:
    return facts_json_schema(_pack(svc, name))


def _relative(text: str, pack: RulePack) -> str:
    """No server path in a response: paths under the pack (or the rules folder) become relative."""
    for root in (str(pack.root), str(Path(pack.root).parent)):
        text = text.replace(root.rstrip("/") + "/", "").replace(root, "")
    return text


def _pack_stamp(pack: RulePack) -> tuple[Any, ...]:
    """Changes when any file of the pack changes (the cache key of its check and test results)."""
    return tuple(sorted((str(p), p.stat().st_mtime_ns) for p in Path(pack.root).rglob("*") if p.is_file()))


def _cached(kind: str, pack: RulePack, tenant: str, svc: Svc, compute: Any) -> Any:
    """Packs are shared and read-only: one computation per pack version serves every tenant; a miss is
    charged to the caller's quota (a test run costs about a second of CPU). Kept by the app's services
    (``svc.pack_results``), never at module level: two apps do not share them."""
    key = (kind, pack.name, _pack_stamp(pack))
    with svc.pack_results_lock:
        hit = svc.pack_results.get(key)
    if hit is not None:
        return hit
    try:
        with svc.quotas.run(tenant):
            value = compute()
    except QuotaExceeded as exc:
        raise too_many(exc) from None
    with svc.pack_results_lock:
        if len(svc.pack_results) > 64:
            svc.pack_results.clear()
        svc.pack_results[key] = value
    return value


@router.post(
    "/{name}/check",
    response_model=PackCheckReport,
    summary="Check a pack (lexlogic check)",
    responses=problem_responses(401, 404, 429),
)
def check(name: str, tenant: Tenant, svc: Svc) -> PackCheckReport:
    pack = _pack(svc, name)
    problems = _cached("check", pack, tenant, svc, lambda: check_pack(pack.root))
    return PackCheckReport(
        pack=name,
        ok=not problems,
        problems=[
            PackProblem(location=_relative(p.location(), pack), message=_relative(p.message, pack)) for p in problems
        ],
    )


@router.post(
    "/{name}/test",
    response_model=TestReport,
    summary="Run a pack's YAML tests (lexlogic test)",
    responses=problem_responses(401, 404, 422, 429),
)
def test(
    name: str,
    tenant: Tenant,
    svc: Svc,
    only: str | None = Query(None, max_length=200, description="run only tests whose name contains this"),
) -> TestReport:
    pack = _pack(svc, name)

    def run_all() -> list[TestResult]:
        out = []
        for t in pack_tests(pack):
            o = check_test(pack.root, t, memos=svc.packs.memos)  # the app's library's
            out.append(
                TestResult(
                    name=t.name,
                    location=_relative(f"{t.file}:{t.line}", pack),
                    passed=o.passed,
                    failures=[_relative(f, pack) for f in o.failures],
                )
            )
        return out

    results = [r for r in _cached("test", pack, tenant, svc, run_all) if not only or only in r.name]
    passed = sum(r.passed for r in results)
    return TestReport(pack=name, passed=passed, failed=len(results) - passed, results=results)
