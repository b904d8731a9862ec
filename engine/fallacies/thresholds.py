"""The offline navigator's calibrated thresholds, stored as data next to the taxonomy.

Written by ``python -m engine.fallacies.calibrate`` (never by hand): the file records how, on what set
(and its hash), and the figures measured there, so a reader can re-run and compare.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.taxonomy import DATA_DIR

THRESHOLDS_FILE = DATA_DIR / "thresholds.json"


class NavigatorThresholds(BaseModel):
    margin_conclude: float = Field(
        description="τ: explore only if (best branch similarity − best sound-anchor similarity) ≥ τ; "
        "below it at the root the navigator concludes no fallacy"
    )
    beam_delta: float = Field(default=0.01, description="also open a runner-up branch within this of the best")
    cue_weight: float = Field(
        default=0.0,
        description="β: added to a fallacy's similarity when one of its "
        "cue patterns (data/cues.yaml) fires; fitted with τ on the calibration set",
    )
    logistic_a: float = Field(default=60.0, description="confidence = σ(a·margin + b), fitted on the calibration set")
    logistic_b: float = 0.0
    method: str = ""
    calibrated_on: str = ""
    calibration_sha256: str = ""
    figures: dict[str, float] = Field(default_factory=dict)

    def confidence(self, margin: float) -> float:
        z = self.logistic_a * margin + self.logistic_b
        return round(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), 3)

    def save(self, path: Path = THRESHOLDS_FILE) -> None:
        path.write_text(json.dumps(self.model_dump(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def load_thresholds(path: Path = THRESHOLDS_FILE) -> NavigatorThresholds:
    if not path.exists():  # before the first calibration: a neutral default, said so in `method`
        return NavigatorThresholds(margin_conclude=0.0, method="uncalibrated default")
    return NavigatorThresholds.model_validate_json(path.read_text(encoding="utf-8"))
