"""Claims checked against a case's documents (engine.claims): VERIFIED, CONTRADICTED, AMBIGUOUS or UNKNOWN,
each with the evidence span. The evidence index lives in the case's own directory
(``<data_dir>/<tenant>/<case>/evidence``), reached only through the owning tenant's case (404 otherwise)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from lexlogic.api.deps import Case, Svc, Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.logic.model_defaults import new_list

router = APIRouter(prefix="/v1/cases/{case_id}/claims", tags=["claims"])


class ClaimsRequest(BaseModel):
    model_config = ConfigDict(strict=True)

    claims: list[str] = Field(default_factory=new_list, max_length=50, description="claims to check (French)")
    submission: str | None = Field(
        default=None,
        max_length=100_000,
        description="a submission's text: its factual claims are extracted and checked",
    )
    k: int = Field(default=10, ge=1, le=50, description="passages (sentences) read by the judge")


class ClaimsOut(BaseModel):
    results: list[dict[str, Any]] = Field(
        description="claim, status, confidence, evidence (with grounding), contradictory, readings, judge"
    )
    sentences: list[dict[str, Any]] = Field(
        default_factory=new_list,
        description="with a submission: EVERY sentence, verified or set aside as NOT_A_CLAIM with its kind and reason",
    )


@router.post(
    "/verify",
    response_model=ClaimsOut,
    summary="Check claims against the case's documents",
    responses=problem_responses(401, 404, 409, 413, 422),
)
def verify_claims(
    case: Case,
    tenant: Tenant,
    svc: Svc,
    body: ClaimsRequest = Body(
        openapi_examples={
            "claim": {"summary": "one claim", "value": {"claims": ["La rupture a été notifiée par écrit."]}}
        }
    ),
) -> ClaimsOut:
    from lexlogic.engine.claims.batch import account_submission, classify, split_submission
    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.claims.verify import default_judge, verify_all
    from lexlogic.engine.documents.cache import scoped
    from lexlogic.engine.documents.ingest import ingest_dossier
    from lexlogic.engine.documents.isolated import IngestLimits, isolated_reader

    claims = [c.strip() for c in body.claims if c.strip()]
    has_claims = bool(claims) or bool(
        body.submission and any(classify(x)[0] == "claim" for x in split_submission(body.submission))
    )
    if not has_claims:
        raise ProblemError(
            422, "$.claims: give at least one claim (or a submission with factual claims)", slug="validation"
        )
    if not svc.cases.list_documents(tenant, case.id):
        raise ProblemError(409, "this case has no documents: upload some first", slug="no-documents")
    folder = svc.dossier_dir(case)
    lock = svc.case_lock(f"claims:{case.id}")
    with lock:  # one index build per case at a time
        core = svc.settings.core  # the uploads as the upload read them (the tenant's cache), else a child
        read = isolated_reader(IngestLimits.from_settings(core), scoped(core.documents_cache, tenant))
        memory = HybridMemory.open(folder.parent / "evidence", ingest_dossier(folder, read=read))
    judge = default_judge(svc.llm)
    results = verify_all(memory, claims, k=body.k, judge=judge) if claims else []
    sentences: list[dict[str, Any]] = []
    if body.submission:
        account = account_submission(memory, body.submission, k=body.k, judge=judge)
        sentences = [row.model_dump(mode="json", exclude={"result"}) for row in account.sentences]
        results += [row.result for row in account.sentences if row.result is not None]
    return ClaimsOut(results=[r.model_dump(mode="json") for r in results], sentences=sentences)
