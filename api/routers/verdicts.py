"""Verdict (with proof and why-not), what-if (priors/answers → new verdict, saved only on request),
questions and answers, and the argument graph for the page."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from lexlogic.api.deps import Case, Services, Svc, head_seq
from lexlogic.api.etags import etag, verdict_key
from lexlogic.api.openapi_examples import EXAMPLES
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.api.routers._state import case_file_of, fresh_head, head, orchestrator
from lexlogic.engine.case.machine import Orchestrator
from lexlogic.engine.present.argument_graph import ArgumentGraph, build_graph
from lexlogic.engine.symbolic.narratives import ambiguous_facts, apply_priors
from lexlogic.engine.verdict.build import Proofs, cache_key, validate_inputs
from lexlogic.engine.verdict.model import Magnitude, Question, Verdict

router = APIRouter(prefix="/v1/cases/{case_id}", tags=["verdicts"])

ProofsQuery = Annotated[
    Proofs,
    Query(
        description=(
            "`target` (default): the target's proof tree in `proof` / `why_not`, each outcome's status, value, "
            "missing facts and open reasons, its tree `outcomes.*.proof` null (about a third of the size); "
            "`all`: every outcome's proof tree too (`outcomes.*.proof`), as before 2026-11-28"
        )
    ),
]


def _etag(svc: Services, key: dict[str, Any]) -> str:
    """The same in every process serving this code, packs and settings (``api.etags``)."""
    return etag(key, svc.body_version)


def _cached(body: bytes, etag: str, request: Request | None = None) -> Response:
    """A cached verdict: 304 when the client already holds it (If-None-Match), else its bytes."""
    headers = {"X-Cache": "hit", "ETag": etag, "Cache-Control": "private, no-cache"}
    if request is not None and etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


class WhatIf(BaseModel):
    # strict: schema-invalid input is refused, not coerced; no NaN/±Infinity weights or priors (issue 21)
    model_config = ConfigDict(strict=True, allow_inf_nan=False)

    answers: dict[str, Any] = Field(default_factory=dict, description="fact → value, as if answered")
    priors: dict[str, float] = Field(
        default_factory=dict,
        description=(
            "an ambiguous fact → weight of its first reading (narrative A's), or an uncertain yes/no variable of "
            "the model (see the verdict's `sliders` with group `priors`) → its prior probability"
        ),
    )
    weights: dict[str, Magnitude] = Field(
        default_factory=dict,
        description=(
            "an Alexy magnitude of a soft rule, `<rule>.I1|W1|R1|I2|W2|R2` (1 = claimant, 2 = defence) → a number > 0 "
            "or a level (l/m/s = 1/2/4, r/p/e = 1/0.5/0.25)"
        ),
    )
    persist: bool = Field(
        default=False,
        description=(
            "save the answers and the ambiguity weights into the case (a new state); variable priors and Alexy "
            "magnitudes are hypotheses of this request only (422 with persist)"
        ),
    )


class Answers(BaseModel):
    answers: dict[str, Any] = Field(min_length=1, description="fact → value (bool, number, date, enum option)")


class Questions(BaseModel):
    pending: Question | None = Field(default=None, description="the question the orchestrator waits on")
    questions: list[Question] = Field(description="ranked by EIG / cost")


def _verdict(svc: Svc, case: Case) -> Verdict:
    """The head's verdict as GET …/verdict serves it (the same cache entry; no outcome trees)."""
    state, cf = case_file_of(svc, case)
    return svc.verdicts.verdict(case.id, cf, dict(state.answers), {}, proofs="target")


def _verdict_response(
    svc: Svc,
    case: Case,
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any] | None = None,
    proofs: Proofs = "target",
    seq: int | None = None,
) -> Response:
    """``seq``: the head's number the request read (None: read it here)."""
    seq, state = head(svc, case, seq)
    if not state.case_file:
        case_file_of(svc, case, seq)  # raises the 409
    weights = weights or {}
    key = verdict_key(svc.packs, case, seq, a=answers, p=priors)  # the head fixes case file + answers
    if weights:
        key["w"] = weights
    body, hit = svc.verdicts.verdict_json(
        case.id, state.case_file or {}, {**state.answers, **answers}, priors, key=key, weights=weights, proofs=proofs
    )
    headers = {"X-Cache": "hit" if hit else "miss", "ETag": _etag(svc, cache_key(key, proofs))}
    return Response(body, media_type="application/json", headers={**headers, "Cache-Control": "private, no-cache"})


@router.get(
    "/verdict",
    response_model=Verdict,
    summary="Verdict with proof tree and why-not",
    responses={
        304: {"description": "Not Modified: the ETag sent in If-None-Match is this state's verdict"},
        **problem_responses(401, 404, 409, 422),
    },
)
async def get_verdict(case: Case, svc: Svc, request: Request, proofs: ProofsQuery = "target") -> Response:
    """The head's verdict. Async: a cache hit is a dict lookup (the head's number came with the API key's read), its bytes
    serialised once when computed (never parsed or validated again); a miss computes in a worker thread.
    ETag / If-None-Match: 304 when the client holds this state's verdict already."""
    seq = await head_seq(request, svc, case)  # read with the API key (deps.tenant_id): no round trip of its own
    key = cache_key(verdict_key(svc.packs, case, seq, a={}, p={}), proofs)
    hit = svc.verdicts.peek(key)
    if hit is not None:
        return _cached(hit, _etag(svc, key), request)
    return await run_in_threadpool(_verdict_response, svc, case, {}, {}, None, proofs)


def _save(svc: Svc, case: Case, answers: dict[str, Any], priors: dict[str, float]) -> None:
    lock = svc.case_lock(case.id)
    if not lock.acquire(blocking=False):
        raise ProblemError(409, "this case is running", slug="busy")
    try:
        _, state = fresh_head(svc, case)
        orch = orchestrator(svc, case)
        if priors:
            weighed = apply_priors(svc.verdicts.read(state.case_file or {}), priors)
            state.case_file = weighed.model_dump(mode="json")
            state.log.append("priors: " + ", ".join(f"{k}={v}" for k, v in priors.items()))
        if answers:
            state = Orchestrator.add_answers(state, answers)
        orch.persist(state, "what-if saved" if not answers else "answers: " + ", ".join(answers))
        if state.status == "running":
            orch.run(state)
    finally:
        lock.release()


@router.post(
    "/what-if",
    response_model=Verdict,
    summary="Verdict under changed priors / answers",
    responses=problem_responses(401, 404, 409, 413, 422),
)
async def what_if(
    case: Case,
    svc: Svc,
    request: Request,
    proofs: ProofsQuery = "target",
    body: WhatIf = Body(
        openapi_examples={
            "prior": {
                "summary": "weight narrative A's reading of an ambiguity",
                "value": {"priors": {EXAMPLES.enum_fact: 0.9}, "persist": False},
            },
            "variable": {
                "summary": "the prior of an uncertain fact",
                "value": {"priors": {EXAMPLES.uncertain_fact: 0.4}},
            },
            "alexy": {
                "summary": "the claimant's interest weighs more (Alexy intensity: serious)",
                "value": {"weights": {f"{EXAMPLES.soft_rule}.I1": "s", f"{EXAMPLES.soft_rule}.R2": 0.5}},
            },
            "answer": {"summary": "as if a question were answered", "value": {"answers": {EXAMPLES.bool_fact: True}}},
        }
    ),
) -> Response:
    """Async: a what-if asked before is a cache hit served on the event loop (no query of its own: the head's
    number came with the API key's; no thread hop), never validated or modelled again; anything else runs in a
    worker thread."""
    seq = None
    if not body.persist:
        seq = await head_seq(request, svc, case)  # read with the API key (deps.tenant_id): no round trip of its own
        raw = cache_key(_asked(svc, case, seq, body), proofs)
        hit = svc.verdicts.peek(raw)
        if hit is not None:
            return _cached(hit, _etag(svc, raw))
    return await run_in_threadpool(_what_if, svc, case, body, proofs, seq)


def _asked(svc: Services, case: Case, seq: int, body: WhatIf) -> dict[str, Any]:
    """A what-if's identity as asked (before its inputs are checked): what a repeated request finds."""
    return verdict_key(svc.packs, case, seq, **{"what-if": [body.answers, body.priors, body.weights]})


def _what_if(svc: Svc, case: Case, body: WhatIf, proofs: Proofs, seq: int | None = None) -> Response:
    """A what-if not in the cache: validated, computed (or saved with ``persist``), then remembered under the
    request as asked at the head it started from. ``seq``: that head's number, read once by the route (the
    what-if is computed and kept at that head; three more reads of it here cost ~1 ms of a new what-if's CPU)."""
    seq = svc.runs.head_seq(case.run_id) if seq is None else seq
    raw = _asked(svc, case, seq, body)
    state, cf = case_file_of(svc, case, seq)
    case_file = svc.verdicts.read(cf)  # the edge: the stored case, typed once
    answers = validate_inputs(
        case_file,
        body.answers,
        body.priors,
        body.weights,
        saved=dict(state.answers),
        packs=svc.packs,
        memos=svc.verdicts.memos(case_file),
    )
    if body.persist:
        amb = set(ambiguous_facts(case_file))
        transient = [f"$.priors.{k}" for k in body.priors if k not in amb] + [f"$.weights.{k}" for k in body.weights]
        if transient:
            raise ProblemError(
                422,
                f"{transient[0]}: only answers and ambiguity weights can be saved; variable "
                "priors and Alexy magnitudes are what-if hypotheses (persist=false)",
                slug="validation",
            )
        _save(svc, case, answers, body.priors)
        return _verdict_response(svc, case, {}, {}, proofs=proofs)
    response = _verdict_response(svc, case, answers, body.priors, body.weights, proofs, seq)
    svc.verdicts.remember(cache_key(raw, proofs), bytes(response.body))  # only valid inputs reach this line
    return response


@router.get(
    "/questions",
    response_model=Questions,
    summary="Questions ranked by EIG/cost",
    responses=problem_responses(401, 404, 409, 422),
)
def questions(case: Case, svc: Svc) -> Questions:
    _, state = head(svc, case)
    v = _verdict(svc, case)
    pending = Question.model_validate(state.pending_question) if state.pending_question else None
    return Questions(pending=pending or v.best_question, questions=v.questions)


@router.post(
    "/answers",
    response_model=Verdict,
    summary="Answer questions (saved; the case runs on)",
    responses=problem_responses(401, 404, 409, 413, 422),
)
def answer(
    case: Case,
    svc: Svc,
    proofs: ProofsQuery = "target",
    body: Answers = Body(
        openapi_examples={"bool": {"summary": "a yes/no fact", "value": {"answers": {EXAMPLES.bool_fact: False}}}}
    ),
) -> Response:
    state, cf = case_file_of(svc, case)
    answers = validate_inputs(svc.verdicts.read(cf), body.answers, {}, saved=dict(state.answers), packs=svc.packs)
    _save(svc, case, answers, {})
    return _verdict_response(svc, case, {}, {}, proofs=proofs)


@router.get(
    "/graph",
    response_model=ArgumentGraph,
    summary="Argument graph (from the proof trees of each narrative)",
    responses=problem_responses(401, 404, 409, 422),
)
def graph(case: Case, svc: Svc) -> ArgumentGraph:
    state, cf = case_file_of(svc, case)
    worlds = [(w.value, p, c, a) for w, p, c, a in svc.verdicts.worlds(svc.verdicts.read(cf), dict(state.answers), {})]
    main = _verdict(svc, case).main_world  # the most probable narrative under the probabilistic model
    return build_graph(case.id, worlds, main.value)
