"""Fallacy analysis of an argument (engine.fallacies): confirmed fallacies, or "no fallacy" with the reason.

Nothing is stored, so there is no id to scope; the route still needs a tenant's key. The navigator is
the LLM when one is configured (``LEXLOGIC_LLM_BASE_URL``), else the offline embedding navigator.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from lexlogic.api.deps import Svc, Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.logic.model_defaults import new_list

router = APIRouter(prefix="/v1/fallacies", tags=["fallacies"])
_TAXONOMY: list[Any] = []


class FallacyRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # schema-invalid input is refused, not coerced

    text: str = Field(
        min_length=1,
        max_length=4000,
        description="the argument, French or English (the embedding model reads 512 tokens)",
    )
    navigator: Literal["auto", "offline", "llm"] = "auto"
    beam: int = Field(default=2, ge=1, le=8, description="branches opened per step")
    trace: bool = Field(default=False, description="include the navigation trace")


class FallacyOut(BaseModel):
    outcome: Literal["fallacies", "no_fallacy"]
    confirmed: list[dict[str, Any]] = Field(
        default_factory=new_list, description="id, path, trail, FR/EN names, family, confidence, justification"
    )
    reason: str | None = None
    stopped_by: str
    navigator: str
    taxonomy: str
    trace: list[dict[str, Any]] = Field(default_factory=new_list)


def _taxonomy() -> Any:
    if not _TAXONOMY:
        from lexlogic.engine.fallacies.taxonomy import load_taxonomy

        _TAXONOMY.append(load_taxonomy(None))
    return _TAXONOMY[0]


@router.post(
    "/analyse",
    response_model=FallacyOut,
    summary="Analyse an argument for fallacies",
    responses=problem_responses(401, 413, 422, 502),
)
def analyse_text(
    _: Tenant,
    svc: Svc,
    body: FallacyRequest = Body(
        openapi_examples={
            "authority": {
                "summary": "an appeal to authority",
                "value": {
                    "text": "Le professeur X, sommité du droit, l'a dit : cette clause est donc forcément valable."
                },
            }
        }
    ),
) -> FallacyOut:
    from lexlogic.bridges.llm import LLMError
    from lexlogic.engine.fallacies.analyse import NavigatorUnavailable, analyse, make_navigator

    if not body.text.strip():
        raise ProblemError(422, "$.text: the argument is empty", slug="validation")
    try:
        result = analyse(
            body.text,
            _taxonomy(),
            make_navigator(body.navigator, svc.llm, svc.settings.core.fallacies_cache),
            beam_width=body.beam,
        )
    except NavigatorUnavailable as exc:
        raise ProblemError(422, str(exc), slug="navigator-unavailable") from exc
    except LLMError as exc:
        raise ProblemError(502, f"LLM navigator: {exc}", slug="llm-failed") from exc
    data = result.model_dump(mode="json")
    return FallacyOut(
        outcome=result.outcome,
        confirmed=data["confirmed"],
        reason=result.reason,
        stopped_by=result.stopped_by,
        navigator=result.navigator,
        taxonomy=result.taxonomy,
        trace=data["trace"] if body.trace else [],
    )
