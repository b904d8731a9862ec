"""The evidence graph of a case (engine.kg): extract assertions from the case's documents, promote them
into tiers, and query an entity with its tiers.

Scoping: the graph of an API case is journaled under its run id ``api-<case id>``; only the owning
tenant reaches it (the ``Case`` dependency answers 404 to anyone else). The journal is append-only, so
extraction is idempotent per document: a document already journaled is skipped, never counted twice.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Svc, Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.logic.model_defaults import new_list

router = APIRouter(prefix="/v1/cases/{case_id}/evidence-graph", tags=["evidence graph"])


class ExtractOut(BaseModel):
    documents: list[str] = Field(description="documents extracted by this call")
    skipped: list[str] = Field(default_factory=new_list, description="already journaled")
    assertions: int = Field(description="assertions journaled by this call")
    abstentions: dict[str, int] = Field(default_factory=dict, description="reason → count (this call)")
    attributed: int = Field(
        default=0, description="relations reported as a speaker's claim ('alleged by X'): recorded, never asserted"
    )
    method: Literal["PATTERN", "HYBRID"]
    promoted: int = Field(description="promoted relations after this call's promotion")
    by_tier: dict[str, int] = Field(default_factory=dict)
    canonical: int


class QueryOut(BaseModel):
    entity: str
    level: str = Field(description="STRICT | EXTENDED | EXPERIMENTAL | TEXT | NONE: where the answer came from")
    tried: list[str]
    edges: list[dict[str, Any]] = Field(description="traversed edges, each with its grade and tier")
    passages: list[dict[str, Any]] = Field(default_factory=new_list, description="anchored text (escalation)")


def _journaled(svc: Svc, kg_case: str) -> set[str]:
    done = {s.doc_id for a in svc.kg.assertions(kg_case) for s in a.bundle.spans}
    return done | {x.span.doc_id for x in svc.kg.abstentions(kg_case)}


@router.post(
    "/extract",
    response_model=ExtractOut,
    summary="Extract from the case's documents, then promote",
    responses=problem_responses(401, 404, 409, 422),
)
def extract_case(case: Case, tenant: Tenant, svc: Svc) -> ExtractOut:
    from lexlogic.engine.kg.extract import extract
    from lexlogic.engine.kg.hybrid import confirm

    docs = svc.cases.list_documents(tenant, case.id)
    if not docs:
        raise ProblemError(409, "this case has no documents: upload some first", slug="no-documents")
    lock = svc.case_lock(f"kg:{case.id}")
    if not lock.acquire(blocking=False):
        raise ProblemError(409, "an extraction of this case is running", slug="busy")
    try:
        done = _journaled(svc, case.run_id)
        llm = svc.llm
        extracted: list[str] = []
        skipped: list[str] = []
        n = 0
        alleged = 0
        reasons: dict[str, int] = {}
        for d in docs:
            if d.doc_id in done:
                skipped.append(d.doc_id)
                continue
            result = extract(d.text, d.doc_id)
            if llm is not None:
                result = confirm(result, llm)
            n += svc.kg.append(case.run_id, result.assertions)
            svc.kg.record_abstentions(case.run_id, result.abstentions)
            alleged += len(result.attributed)
            for x in result.abstentions:
                reasons[x.reason.value] = reasons.get(x.reason.value, 0) + 1
            extracted.append(d.doc_id)
        promoted = svc.kg.promote(case.run_id)
    finally:
        lock.release()
    return ExtractOut(
        documents=extracted,
        skipped=skipped,
        assertions=n,
        abstentions=reasons,
        attributed=alleged,
        method="HYBRID" if llm is not None else "PATTERN",
        promoted=len(promoted.relations),
        by_tier=promoted.by_tier(),
        canonical=len(promoted.log),
    )


@router.get(
    "/entities/{entity}",
    response_model=QueryOut,
    summary="Walk the promoted graph from an entity",
    responses=problem_responses(401, 404, 422),
)
def query_entity(
    case: Case,
    svc: Svc,
    entity: str,
    tiers: Literal["strict", "extended"] = Query(
        default="strict", description="strict: STRICT only; extended: + EXTENDED"
    ),
    depth: int = Query(default=3, ge=1, le=10),
    escalate: bool = Query(default=False, description="STRICT → EXTENDED → anchored text"),
) -> QueryOut:
    from lexlogic.engine.kg.traverse import TIER_SETS, query

    if not entity.strip() or len(entity) > 300:
        raise ProblemError(422, "entity: 1 to 300 characters", slug="validation")
    r = query(
        svc.kg.graph(case.run_id),
        entity,
        TIER_SETS[tiers],
        depth,
        escalate,
        text_search=svc.kg.text_search(case.run_id),
    )
    data = r.model_dump(mode="json")
    return QueryOut(entity=r.entity, level=r.level, tried=r.tried, edges=data["edges"], passages=data["passages"])
