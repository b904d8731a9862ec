"""When the claims judge may decide (issue 29, point 2): VERIFIED or CONTRADICTED only at or above the
confidence from which its decisions were right at least 97 % of the time on the transfer set; below, the
status is UNKNOWN, the judge's decision is kept as a proposal and the passages stay attached.

Why data, not a constant: the threshold is measured (``engine/claims/data/decision.yaml`` says how and on
what), and a new measurement changes the file, not the code."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from lexlogic.engine.claims.models import Status
from lexlogic.logic import yaml_load

FILE = Path(__file__).resolve().parent / "data" / "decision.yaml"


class DecisionThreshold(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int
    decide_from: float = Field(ge=0.0, le=1.0, description="lowest confidence of a VERIFIED/CONTRADICTED")
    provenance: str


@lru_cache(maxsize=1)
def shipped() -> DecisionThreshold:
    return DecisionThreshold.model_validate(yaml_load.safe_load(FILE.read_text(encoding="utf-8")))


def gate(status: Status, confidence: float, threshold: float) -> tuple[Status, Status | None]:
    """(the status given, the judge's own decision when it is withheld)."""
    if status in (Status.VERIFIED, Status.CONTRADICTED) and confidence < threshold:
        return Status.UNKNOWN, status
    return status, None
