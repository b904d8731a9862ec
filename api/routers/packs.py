"""Rule packs: list, describe, check, run their YAML tests. Packs ship with the service (shared by all
tenants, read-only); tenant-owned rules are the dynamic rules."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from lexlogic.api.deps import Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.engine.pack_check import check_pack
from lexlogic.engine.packs import pack_by_name, rules_dir
from lexlogic.engine.ruletests import check_test, pack_tests
from lexlogic.logic.facts import facts_json_schema
from lexlogic.logic.pack import PackError, RulePack, find_packs

router = APIRouter(prefix="/v1/packs", tags=["rule packs"])


class PackOut(BaseModel):
    name: str = Field(examples=["rupture_brutale"])
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
    location: str = Field(examples=["rules/rupture_brutale/brutalite.lp:12"])
    message: str


class CheckResult(BaseModel):
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


def _pack(name: str) -> RulePack:
    try:
        pack, _ = pack_by_name(name)
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
def list_packs(_: Tenant) -> list[PackOut]:
    out = []
    for root in find_packs(rules_dir()):
        try:
            out.append(PackOut(**_out(pack_by_name(root.name)[0])))
        except PackError:
            continue  # a broken pack is reported by …/check, not listed
    return out


@router.get(
    "/{name}",
    response_model=PackDetail,
    summary="A pack's manifest and fact vocabulary",
    responses=problem_responses(401, 404),
)
def get_pack(name: str, _: Tenant) -> PackDetail:
    pack = _pack(name)
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
def pack_schema(name: str, _: Tenant) -> dict[str, Any]:
    return facts_json_schema(_pack(name))


@router.post(
    "/{name}/check",
    response_model=CheckResult,
    summary="Check a pack (lexlogic check)",
    responses=problem_responses(401, 404),
)
def check(name: str, _: Tenant) -> CheckResult:
    pack = _pack(name)
    problems = check_pack(pack.root)
    return CheckResult(
        pack=name, ok=not problems, problems=[PackProblem(location=p.location(), message=p.message) for p in problems]
    )


@router.post(
    "/{name}/test",
    response_model=TestReport,
    summary="Run a pack's YAML tests (lexlogic test)",
    responses=problem_responses(401, 404, 422),
)
def test(
    name: str,
    _: Tenant,
    only: str | None = Query(None, max_length=200, description="run only tests whose name contains this"),
) -> TestReport:
    pack = _pack(name)
    results = []
    for t in pack_tests(pack):
        if only and only not in t.name:
            continue
        o = check_test(pack.root, t)
        results.append(TestResult(name=t.name, location=f"{t.file}:{t.line}", passed=o.passed, failures=o.failures))
    passed = sum(r.passed for r in results)
    return TestReport(pack=name, passed=passed, failed=len(results) - passed, results=results)
