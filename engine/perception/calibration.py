"""The reader's confidences made probabilities: a pack's calibration of the offline reader, applied when a
reading is made (issue 29, point 2).

Why: the reader scores a reading by the cue that found it (0.75, 0.8, 0.9…); those scores were not
frequencies. The calibration maps (fact, raw score) to the frequency with which such readings were right
on the development sets: an isotonic map of the raw score (all readings pooled), then a shift in log-odds
for the fact's value type and for the fact itself, each shrunk toward its parent by a pseudo-count (few
readings per fact: a fact read 4 times moves little from its type). It is data
(``rules/<pack>/calibration/reader.yaml``, with its provenance), fitted by ``scripts/calibrate_reader.py``.

A reading whose calibrated confidence is at or above the pack's ``as_given_from`` (the lowest confidence
from which the readings were right at least 97 % of the time on the transfer set) enters the model as if
given; below, it enters as P(value) = confidence and is proposed for confirmation. A pack without a
calibration file keeps the reader's raw scores and nothing enters as given.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from lexlogic.logic import yaml_load
from lexlogic.logic.facts import Allegation

FILE = Path("calibration") / "reader.yaml"


class ReaderCalibration(BaseModel):
    """One pack's calibration of the offline reader (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")
    version: int
    reader: str = "offline"
    provenance: str
    fitted_on: list[str]
    pseudo_count: float = Field(gt=0)
    raw_points: list[tuple[float, float]] = Field(min_length=1, description="isotonic map: (raw score, frequency)")
    by_type: dict[str, float] = Field(default_factory=dict, description="log-odds shift per value type")
    by_fact: dict[str, float] = Field(default_factory=dict, description="log-odds shift per fact")
    alleged: float = Field(0.0, description="log-odds shift of a reading marked as a party's allegation")
    as_given_from: float | None = Field(
        None, description="calibrated confidence from which a reading enters as given (None: never)"
    )
    as_given_provenance: str = ""

    def base(self, raw: float) -> float:
        """The isotonic map, linear between its points and flat beyond them."""
        pts = sorted(self.raw_points)
        if raw <= pts[0][0]:
            return pts[0][1]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if raw <= x1:
                return y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1
        return pts[-1][1]

    def confidence(self, fact: str, value_type: str, raw: float, alleged: bool = False) -> float:
        """The calibrated confidence of one reading."""
        z = logit(self.base(raw)) + self.by_type.get(value_type, 0.0) + self.by_fact.get(fact, 0.0)
        z += self.alleged if alleged else 0.0
        return round(min(max(sigmoid(z), 0.01), 0.995), 4)

    def enters_as_given(self, confidence: float) -> bool:
        return self.as_given_from is not None and confidence >= self.as_given_from


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def load(pack_root: Path, pointer: str | None = None) -> ReaderCalibration | None:
    """The pack's calibration (``pointer``: pack.yaml's ``files.calibration``, else ``calibration/reader.yaml``),
    or None when it ships none. A file the pack points at but lacks, or a malformed one, is an error naming it."""
    from lexlogic.logic.errors import LexlogicError

    path = Path(pack_root) / (pointer or FILE)
    if not path.is_file():
        if pointer:
            raise LexlogicError(f"{path}: no such file (pack.yaml files.calibration)")
        return None

    try:
        raw = yaml_load.safe_load(path.read_text(encoding="utf-8")) or {}
        return ReaderCalibration.model_validate(raw)
    except (yaml.YAMLError, ValueError) as exc:
        raise LexlogicError(f"{path}: invalid reader calibration: {exc}") from exc


def apply(findings: list[Any], calibration: ReaderCalibration, types: dict[str, str]) -> None:
    """Replace each finding's raw score by its calibrated confidence (the raw score is kept beside it) and
    mark those that enter as given."""
    for f in findings:
        if f.raw_confidence is not None:  # already calibrated
            continue
        alleged = f.allegation == Allegation.ALLEGED
        f.raw_confidence = f.confidence
        f.confidence = calibration.confidence(f.fact, types.get(f.fact, "str"), f.confidence, alleged)
        f.as_given = not alleged and f.ambiguity is None and calibration.enters_as_given(f.confidence)
