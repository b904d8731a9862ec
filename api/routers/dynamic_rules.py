"""Dynamic rules per tenant: propose, list, read, approve, retire, run (engine.dynamic_rules + sandbox).

The rule store knows no tenants; ``api_rule_owners`` (engine/store/api_cases.py) records the owning
tenant and the API case a rule is scoped to. Another tenant's rule id answers 404. In the rule store a
tenant's rules are scoped to ``tenant-<id>`` (tenant-wide) or ``api-<case>`` (one case), never to "every
case", so the CLI's global runs and other tenants never pick them up, and the duplicate-text check
never reveals another tenant's rule. Every run goes through the sandbox pool (``sandbox.pool``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Body, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from lexlogic.api.deps import Case, Svc, Tenant, key_id, too_many
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.api.routers._state import case_file_of
from lexlogic.engine.tenancy.quota import QuotaExceeded
from lexlogic.logic.model_defaults import new_list

router = APIRouter(tags=["dynamic rules"])
EXAMPLE_RULE = (
    "def rule(facts):\n    months = facts.get('relation_years', 0) * 1.0\n"
    "    return {'reasonable_notice_months': min(months, 18)}\n"
)


class RuleCreate(BaseModel):
    model_config = ConfigDict(strict=True)  # schema-invalid input is refused, not coerced

    text: str = Field(min_length=1, max_length=64_000, description="Python source defining `def rule(facts)`")
    author: str = Field(min_length=1, max_length=200, examples=["gpt-4o"])
    author_kind: Literal["llm", "person"] = "llm"
    name: str | None = Field(default=None, max_length=200)
    case_id: str | None = Field(default=None, max_length=64, description="scope the rule to one of your cases")
    reliability: float = Field(default=0.7, gt=0, le=1, description="prior that the interpretation is right")
    output_schema: Any = Field(default=None, description='output schema (e.g. {"months": "float"}); null: any JSON')
    description: str = Field(default="", max_length=2000)


class RuleEventOut(BaseModel):
    at: datetime
    actor: str
    from_status: str | None
    to_status: str
    note: str = ""


class RuleOut(BaseModel):
    id: str
    name: str
    case_id: str | None = Field(default=None, description="the API case it is scoped to (null: every case)")
    status: Literal["proposed", "approved", "active", "retired"]
    author: str
    author_kind: str
    reliability: float
    sha256: str
    text: str
    output_schema: Any = None
    description: str = ""
    created_at: datetime
    approved_by: str | None = None
    retired_reason: str | None = None
    history: list[RuleEventOut] = Field(default_factory=new_list)


class Approve(BaseModel):
    model_config = ConfigDict(strict=True)  # schema-invalid input is refused, not coerced

    by: str = Field(min_length=1, max_length=200, description="the approving person (never the author)")
    activate: bool = True
    note: str = Field(default="", max_length=2000)


class Retire(BaseModel):
    model_config = ConfigDict(strict=True)  # schema-invalid input is refused, not coerced

    by: str = Field(min_length=1, max_length=200)
    reason: str = Field(default="", max_length=2000)


class RunBody(BaseModel):
    model_config = ConfigDict(strict=True)  # schema-invalid input is refused, not coerced

    facts: dict[str, Any] = Field(default_factory=dict, description="the facts the rule reads")


class Failure(BaseModel):
    rule_id: str
    kind: str
    code: str
    message: str


class DynamicFactOut(BaseModel):
    name: str
    value: Any
    rule_id: str
    reliability: float
    proof: dict[str, Any] = Field(description="ProofNode (kind DYNAMIC); its premises are named by `premises`")
    premises: str = Field(default="", description="id of the premise list in the response's `provenance.sets`")


class ProvenanceOut(BaseModel):
    nodes: dict[str, dict[str, Any]] = Field(default_factory=dict, description="sha256 → premise ProofNode, once")
    sets: dict[str, list[str]] = Field(default_factory=dict, description="premise-list id → premise digests")


class RunOut(BaseModel):
    facts: list[DynamicFactOut] = Field(default_factory=new_list)
    failures: list[Failure] = Field(default_factory=new_list)
    provenance: ProvenanceOut = Field(default_factory=ProvenanceOut, description="the rules' premises, each once")
    output: Any = Field(default=None, description="the raw output (single-rule runs)")


def _scope(tenant: str, case_id: str | None) -> str:
    return f"api-{case_id}" if case_id else f"tenant-{tenant}"


def _out(svc: Svc, rule: Any, case_id: str | None, history: bool = False) -> RuleOut:
    events = (
        [
            RuleEventOut(
                at=e.at,
                actor=e.actor,
                from_status=e.from_status.value if e.from_status else None,
                to_status=e.to_status.value,
                note=e.note,
            )
            for e in svc.dynamic_rules.history(rule.id)
        ]
        if history
        else []
    )
    return RuleOut(
        id=rule.id,
        name=rule.name,
        case_id=case_id,
        status=rule.status.value,
        author=rule.author,
        author_kind=rule.author_kind.value,
        reliability=rule.reliability,
        sha256=rule.sha256,
        text=rule.text,
        output_schema=rule.output_schema,
        description=rule.description,
        created_at=rule.created_at,
        approved_by=rule.approved_by,
        retired_reason=rule.retired_reason,
        history=events,
    )


def _owned(svc: Svc, tenant: str, rule_id: str) -> tuple[Any, str | None]:
    owner = svc.cases.rule_owner(tenant, rule_id) if len(rule_id) <= 80 else None
    if owner is None:
        raise ProblemError(404, f"no dynamic rule {rule_id!r}", slug="not-found")
    return svc.dynamic_rules.get(rule_id), owner.case_id


def _fact(f: Any) -> DynamicFactOut:
    return DynamicFactOut(
        name=f.name,
        value=f.value,
        rule_id=f.rule_id,
        reliability=f.reliability,
        proof=f.proof.model_dump(mode="json"),
        premises=f.premises,
    )


def _provenance(p: Any) -> ProvenanceOut:
    return ProvenanceOut(**p.model_dump(mode="json"))


@router.post(
    "/v1/dynamic-rules",
    response_model=RuleOut,
    status_code=201,
    summary="Propose a dynamic rule",
    responses=problem_responses(401, 404, 413, 422, 429),
)
def add_rule(
    request: Request,
    tenant: Tenant,
    svc: Svc,
    body: RuleCreate = Body(
        openapi_examples={
            "rule": {
                "summary": "an interpretation proposed by an LLM",
                "value": {
                    "text": EXAMPLE_RULE,
                    "author": "gpt-4o",
                    "reliability": 0.6,
                    "output_schema": {"reasonable_notice_months": "float"},
                },
            }
        }
    ),
) -> RuleOut:
    """Compiled in the sandbox first (a refused rule is never stored: 422 with its line); PROPOSED until a
    person approves it (unless the deployment requires no approval)."""
    from lexlogic.engine.extensions.dynamic_rules import DynamicRuleError
    from lexlogic.sandbox.errors import SandboxError

    if body.case_id is not None and svc.cases.get_case(tenant, body.case_id) is None:
        raise ProblemError(404, f"no case {body.case_id!r}", slug="not-found")
    import uuid

    rule_id = f"t-{uuid.uuid4().hex[:16]}"
    try:
        svc.quotas.propose(tenant)
    except QuotaExceeded as exc:
        raise too_many(exc) from None

    def checker(source: str, filename: str = "<rule>") -> None:
        with svc.quotas.run(tenant):  # a compile check is short: charged after, not reserved
            svc.sandbox.check(source, filename, scope=tenant)

    try:
        rule = svc.dynamic_rules.add(
            body.text,
            author=body.author,
            author_kind=body.author_kind,
            name=body.name,
            rule_id=rule_id,
            case_id=_scope(tenant, body.case_id),
            output_schema=body.output_schema,
            reliability=body.reliability,
            description=body.description,
            checker=checker,
        )
    except QuotaExceeded as exc:
        raise too_many(exc) from None
    except SandboxError as exc:
        raise ProblemError(422, exc.describe(), slug="rule-refused") from exc
    except DynamicRuleError as exc:
        raise ProblemError(422, str(exc), slug="rule-invalid") from exc
    svc.cases.own_rule(tenant, rule.id, body.case_id, key_id(request))
    return _out(svc, rule, body.case_id, history=True)


@router.get(
    "/v1/dynamic-rules",
    response_model=list[RuleOut],
    summary="Your dynamic rules",
    responses=problem_responses(401, 422),
)
def list_rules(
    tenant: Tenant,
    svc: Svc,
    status: Literal["proposed", "approved", "active", "retired"] | None = Query(default=None),
    case_id: str | None = Query(default=None, max_length=64, description="only those that apply to this case"),
) -> list[RuleOut]:
    out = []
    for rid in svc.cases.rule_ids(tenant, case_id):
        rule, scoped = _owned(svc, tenant, rid)
        if status is None or rule.status.value == status:
            out.append(_out(svc, rule, scoped))
    return out


@router.get(
    "/v1/dynamic-rules/{rule_id}",
    response_model=RuleOut,
    summary="A rule with its lifecycle history",
    responses=problem_responses(401, 404, 422),
)
def get_rule(rule_id: str, tenant: Tenant, svc: Svc) -> RuleOut:
    rule, scoped = _owned(svc, tenant, rule_id)
    return _out(svc, rule, scoped, history=True)


def _transition(fn: Any) -> Any:
    from lexlogic.engine.extensions.dynamic_rules import DynamicRuleError

    try:
        return fn()
    except DynamicRuleError as exc:
        raise ProblemError(409, str(exc), slug="lifecycle") from exc


@router.post(
    "/v1/dynamic-rules/{rule_id}/approve",
    response_model=RuleOut,
    summary="Approve (and activate)",
    responses=problem_responses(401, 403, 404, 409, 413, 422),
)
def approve_rule(rule_id: str, request: Request, tenant: Tenant, svc: Svc, body: Approve) -> RuleOut:
    """Approval is tied to who approves: the key must differ from the key that proposed the rule, unless
    it has the ``admin`` scope; the approving key is recorded (api_rule_principals and the event note)."""
    _, scoped = _owned(svc, tenant, rule_id)
    key = key_id(request)
    admin = key is not None and "admin" in svc.tenants.scopes(key)
    principal = svc.cases.rule_principal(rule_id)
    author_key = principal.proposed_by_key if principal else None
    if not admin and (key is None or key == author_key):
        raise ProblemError(
            403,
            "a rule must be approved with another API key than the one that proposed it (or an admin key)",
            slug="forbidden",
        )
    note = (body.note + " " if body.note else "") + f"[approved with key {key}{' (admin)' if admin else ''}]"
    rule = _transition(lambda: svc.dynamic_rules.approve(rule_id, by=body.by, activate=body.activate, note=note))
    svc.cases.record_approval(rule_id, key, admin)
    return _out(svc, rule, scoped, history=True)


@router.post(
    "/v1/dynamic-rules/{rule_id}/retire",
    response_model=RuleOut,
    summary="Retire (final)",
    responses=problem_responses(401, 404, 409, 413, 422),
)
def retire_rule(rule_id: str, tenant: Tenant, svc: Svc, body: Retire) -> RuleOut:
    _, scoped = _owned(svc, tenant, rule_id)
    rule = _transition(lambda: svc.dynamic_rules.retire(rule_id, by=body.by, reason=body.reason))
    return _out(svc, rule, scoped, history=True)


@router.post(
    "/v1/dynamic-rules/{rule_id}/run",
    response_model=RunOut,
    summary="Dry-run one rule on given facts in the sandbox (any status)",
    responses=problem_responses(401, 404, 413, 422, 429),
)
async def run_rule(rule_id: str, tenant: Tenant, svc: Svc, body: RunBody) -> RunOut:
    rule, _ = _owned(svc, tenant, rule_id)

    def call() -> RunOut:

        with svc.quotas.run(tenant, reserve=svc.sandbox.limits.wall_seconds):
            return _run_one(svc.sandbox, rule, body.facts, tenant)

    try:
        return await run_in_threadpool(call)
    except QuotaExceeded as exc:
        raise too_many(exc) from None


def _run_one(pool: Any, rule: Any, facts: dict[str, Any], tenant: str) -> RunOut:
    from lexlogic.engine.extensions.dynamic_rules import rule_facts
    from lexlogic.engine.extensions.provenance import Provenance
    from lexlogic.sandbox.errors import SandboxError
    from lexlogic.sandbox.schema import SchemaError

    if not rule.intact:
        return RunOut(
            failures=[
                Failure(
                    rule_id=rule.id,
                    kind="refused",
                    code="integrity",
                    message="stored text does not match its sha256; not run",
                )
            ]
        )
    try:
        run = pool.run(rule.text, facts, output_schema=rule.output_schema, filename=f"dynamic:{rule.id}", scope=tenant)
    except SandboxError as exc:
        return RunOut(failures=[Failure(rule_id=rule.id, kind=exc.kind.value, code=exc.code, message=exc.describe())])
    except SchemaError as exc:
        return RunOut(failures=[Failure(rule_id=rule.id, kind="output", code="schema_declared", message=str(exc))])
    provenance = Provenance()
    made = rule_facts(rule, run.output, run.reads, facts, missing=run.missing, provenance=provenance)
    return RunOut(facts=[_fact(f) for f in made], output=run.output, provenance=_provenance(provenance))


class _TenantRules:
    """What ``run_active_rules`` needs of a store: the ACTIVE rules of this tenant for this case."""

    def __init__(self, rules: list[Any]) -> None:
        self.rules = rules

    def active_rules(self, case_id: str | None = None) -> list[Any]:
        return [r for r in self.rules if r.status.value == "active"]


@router.post(
    "/v1/cases/{case_id}/dynamic-rules/run",
    response_model=RunOut,
    summary="Run your active rules (tenant-wide and this case's) on the case's facts",
    responses=problem_responses(401, 404, 409, 422, 429),
)
def run_case_rules(case: Case, tenant: Tenant, svc: Svc) -> RunOut:
    from lexlogic.engine.extensions.dynamic_rules import run_active_rules

    _, cf = case_file_of(svc, case)
    facts = {k: (v.get("value") if isinstance(v, dict) else v) for k, v in (cf.get("facts") or {}).items()}
    rules = [svc.dynamic_rules.get(rid) for rid in svc.cases.rule_ids(tenant, case.id)]
    pool = svc.sandbox
    try:  # admitted rule by rule, each reserving the most one run can cost (the pool's wall limit)
        ev = run_active_rules(
            _TenantRules(rules),  # type: ignore[arg-type]
            facts,
            pool=pool,
            admit=lambda: svc.quotas.run(tenant, reserve=pool.limits.wall_seconds),
            scope=tenant,
        )
    except QuotaExceeded as exc:
        raise too_many(exc) from None
    return RunOut(
        facts=[_fact(f) for f in ev.facts],
        failures=[Failure(**f.model_dump()) for f in ev.failures],
        provenance=_provenance(ev.provenance),
    )
