"""The what-if sliders ranked by their influence on P(target), in one call, cached per case state and
hypotheses (the page asks once after a case loads instead of two what-if calls per slider)."""

from __future__ import annotations

from fastapi import APIRouter, Body
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from lexlogic.api.deps import Case, Svc
from lexlogic.api.problems import problem_responses
from lexlogic.api.routers._state import case_file_of, head
from lexlogic.engine.verdict.build import slider_list, validate_inputs
from lexlogic.engine.verdict.model import Magnitude
from lexlogic.engine.verdict.sensitivity import Sensitivity, rank_sliders
from lexlogic.logic.canonical import canonical_hash

router = APIRouter(prefix="/v1/cases/{case_id}", tags=["verdicts"])


class Hypotheses(BaseModel):
    """The hypotheses the ranking starts from (the page's current slider positions)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)

    priors: dict[str, float] = Field(default_factory=dict, description="as in POST …/what-if")
    weights: dict[str, Magnitude] = Field(default_factory=dict, description="as in POST …/what-if")


@router.post(
    "/sensitivity",
    response_model=Sensitivity,
    summary="The what-if sliders ranked by how much each moves P(target)",
    responses=problem_responses(401, 404, 409, 413, 422),
)
def sensitivity(case: Case, svc: Svc, body: Hypotheses = Body(default_factory=Hypotheses)) -> Response:
    """Each slider at its minimum and its maximum, the others as given: |ΔP| most influential first."""
    state, cf = case_file_of(svc, case)
    case_file = svc.verdicts.read(cf)  # the edge: the stored case, typed once
    memos = svc.verdicts.memos(case_file)  # the service's: the same case model as its verdicts
    validate_inputs(case_file, {}, body.priors, body.weights, saved=dict(state.answers), packs=svc.packs, memos=memos)
    seq, _ = head(svc, case)
    answers = dict(state.answers)
    key = {"kind": "sensitivity", "run": case.run_id, "seq": seq, "p": body.priors, "w": body.weights}

    def compute() -> bytes:  # the sliders from the cached case model: no verdict computed (issue 33)
        sliders = slider_list(svc.packs, case_file, answers, body.priors, dict(body.weights), memos)
        weights = dict(body.weights)
        ranked = rank_sliders(
            svc.packs, case_file, answers, body.priors, weights, sliders, limits=svc.verdicts.limits, memos=memos
        )
        return ranked.model_dump_json().encode()

    out, hit = svc.verdicts.verdicts.get_or_compute(canonical_hash(key), compute)
    return Response(bytes(out), media_type="application/json", headers={"X-Cache": "hit" if hit else "miss"})
