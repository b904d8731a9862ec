"""Labelled argument sets (calibration, evaluation): YAML lists of {label, text[, fallacy]}."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from lexlogic.engine.fallacies.taxonomy import DATA_DIR, TaxonomyError
from lexlogic.logic import yaml_load

CALIBRATION_SET = DATA_DIR / "calibration_fr.yaml"
NONE = "none"


class LabelledArgument(BaseModel):
    label: str  # a family id of the built-in taxonomy, or "none"
    text: str
    fallacy: str | None = None


def load_labelled(path: Path | str) -> list[LabelledArgument]:
    path = Path(path)
    try:
        raw = yaml_load.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TaxonomyError(f"{path}: cannot read labelled set: {exc}") from exc
    if not isinstance(raw, list):
        raise TaxonomyError(f"{path}: expected a YAML list of {{label, text}}")
    out = []
    for i, item in enumerate(raw):
        try:
            out.append(LabelledArgument.model_validate(item))
        except ValidationError as exc:
            raise TaxonomyError(f"{path}: item [{i}]: {exc.errors()[0]['msg']}") from exc
    return out


def file_sha256(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
