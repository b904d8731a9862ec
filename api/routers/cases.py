"""Cases: create (from a facts JSON, or empty to receive documents), list, get."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Svc, Tenant
from lexlogic.api.etags import verdict_key
from lexlogic.api.openapi_examples import EXAMPLES
from lexlogic.api.problems import FieldError, ProblemError, problem_responses
from lexlogic.api.routers._state import head
from lexlogic.engine.case.machine import CaseState, Phase
from lexlogic.logic.facts import CaseFileError, parse_case
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import PackError

router = APIRouter(prefix="/v1/cases", tags=["cases"])


class CaseCreate(BaseModel):
    name: str | None = Field(
        default=None, max_length=200, description="display name (default: the case file's case_id)"
    )
    pack: str | None = Field(
        default=None,
        max_length=100,
        description="rule pack (default: the case file's, else the rules folder's default pack)",
    )
    case_file: dict[str, Any] | None = Field(
        default=None, description="a facts JSON (`lexlogic analyze` input); omit to build the case from documents"
    )


class CaseOut(BaseModel):
    id: str = Field(examples=["5f0c2d9e4b1a4c0e9a7d3b2f1e6c8a90"])
    name: str
    pack: str
    origin: Literal["facts", "documents"]
    created_at: datetime
    phase: str = Field(examples=["VERDICT"])
    status: str = Field(examples=["verdict"])
    head_seq: int = Field(description="number of the latest persisted state")


class CaseDetail(CaseOut):
    message: str = ""
    case_file: dict[str, Any] | None = None
    answers: dict[str, Any] = Field(default_factory=dict)
    pending_question: dict[str, Any] | None = None
    log: list[str] = Field(default_factory=new_list)


class CaseList(BaseModel):
    items: list[CaseOut]
    limit: int
    offset: int


def case_out(svc: Svc, case: Case, detail: bool = False) -> CaseOut | CaseDetail:
    seq, state = head(svc, case)
    base = {**case.as_dict(), "phase": state.phase.value, "status": state.status, "head_seq": seq}
    if not detail:
        return CaseOut(**base)
    return CaseDetail(
        **base,
        message=state.message,
        case_file=state.case_file,
        answers=state.answers,
        pending_question=state.pending_question,
        log=state.log[-50:],
    )


@router.post(
    "", status_code=201, response_model=CaseDetail, summary="Create a case", responses=problem_responses(401, 413, 422)
)
def create_case(
    tenant: Tenant,
    svc: Svc,
    body: CaseCreate = Body(
        openapi_examples={
            "from_facts": {
                "summary": "from a facts JSON",
                "value": {"name": EXAMPLES.case_name, "case_file": EXAMPLES.case_file},
            },
            "for_documents": {
                "summary": "empty, documents to follow",
                "value": {"name": EXAMPLES.case_name, "pack": EXAMPLES.pack},
            },
        }
    ),
) -> CaseDetail:
    pack_name = body.pack or (
        str(body.case_file.get("pack")) if body.case_file and body.case_file.get("pack") else svc.packs.default_name()
    )
    try:
        pack = svc.packs.pack(pack_name)
    except PackError:
        raise ProblemError(
            422,
            f"no rule pack named {pack_name!r}",
            slug="unknown-pack",
            errors=[FieldError(location="body", path="$.pack", message="unknown rule pack")],
        ) from None
    case_file = None
    if body.case_file is not None:
        raw = {"pack": pack.name, **body.case_file}
        try:
            parsed = parse_case(raw, pack, "case_file")
        except CaseFileError as exc:
            path = "$.case_file" + exc.path[1:]
            raise ProblemError(
                422,
                f"{path}: {exc.message}",
                slug="case-file",
                errors=[FieldError(location="body", path=path, message=exc.message)],
            ) from exc
        case_file = parsed.model_dump(mode="json")
    name = (body.name or (str(case_file["case_id"]) if case_file else "case"))[:200]  # the column's width
    case = svc.cases.create_case(tenant, name, pack.name, "facts" if case_file else "documents")
    if case_file:
        state = CaseState(
            case_id=case.run_id, pack=pack.name, source="api:facts", phase=Phase.PLANNING, case_file=case_file
        )
        note = "created from a facts JSON"
    else:
        state = CaseState(case_id=case.run_id, pack=pack.name, source=str(svc.dossier_dir(case)))
        note = "created, awaiting documents"
    seq = svc.runs.save(
        case.run_id,
        state.model_dump(mode="json"),
        phase=state.phase.value,
        status=state.status,
        state_hash=state.logical_hash(),
        note=note,
        source=state.source,
    )
    if case_file:  # its verdict computed off the request thread, ready (or under way) for the first GET
        svc.warmer.submit(case.id, verdict_key(svc.packs, case, seq, a={}, p={}), case_file)
    return case_out(svc, case, detail=True)  # type: ignore[return-value]


@router.get("", response_model=CaseList, summary="List this tenant's cases", responses=problem_responses(401, 422))
def list_cases(
    tenant: Tenant, svc: Svc, limit: int = Query(50, ge=1, le=500), offset: int = Query(0, ge=0, le=1_000_000)
) -> CaseList:
    rows = svc.cases.list_cases(tenant, limit, offset)
    return CaseList(items=[case_out(svc, c) for c in rows], limit=limit, offset=offset)  # type: ignore[misc]


@router.get(
    "/{case_id}",
    response_model=CaseDetail,
    summary="Get a case (its head state)",
    responses=problem_responses(401, 404, 422),
)
def get_case(case: Case, svc: Svc) -> CaseDetail:
    return case_out(svc, case, detail=True)  # type: ignore[return-value]
