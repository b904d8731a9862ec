"""A pack's extraction specifications (``extraction.yaml``): how perception looks for each fact.

Pack data, not engine code: for every fact, the question it answers (also the e5 query), the cue lemmas
that select candidate sentences, the typed reader that takes the value out of a sentence, the units, the
values of an enum with their own cues, and which party's own document turns an assertion into an
allegation. The engine's generic extractor knows no fact name; it reads these.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexlogic.logic.errors import LexlogicError

Reader = Literal["date", "months", "percent", "amounts_by_year", "bool", "enum", "party", "count"]
Party = Literal["claimant", "defence"]


class ExtractionError(LexlogicError, ValueError):
    """A malformed ``extraction.yaml`` (file: message)."""


class FactExtraction(BaseModel):
    """How one fact is found and read."""

    model_config = ConfigDict(extra="forbid")
    question: str = ""
    reader: Reader
    cues: list[str] = Field(default_factory=list, description="lemmas or lowercase phrases; one selects a sentence")
    negative_cues: list[str] = Field(
        default_factory=list, description="cues that select a sentence when negated (« ne renouvellerons pas »)"
    )
    exclude: list[str] = Field(default_factory=list, description="a sentence with one of these is not a candidate")
    context: list[str] = Field(default_factory=list, description="bool: a cue counts only with one of these too")
    values: dict[str, list[str]] = Field(default_factory=dict, description="enum value → its own cues, in order")
    guess_from: str | None = Field(
        default=None, description="enum: first value a guess far from the party's name may give (later ones too)"
    )
    default_value: str | None = Field(default=None, description="enum value when a cue is met but no value cue")
    zero: list[str] = Field(default_factory=list, description="months: phrases that mean none (0)")
    role: Party | None = None
    alleged_in: list[Party] = Field(default_factory=list, description="whose own document makes it an allegation")
    negatable: bool = True
    conditional_blocks: bool = True
    from_document_date: bool = Field(default=False, description="date: the author's own letter dates it")
    weak_cues: list[str] = Field(
        default_factory=list, description="date: cues that select a sentence only for « depuis <date> » or a length"
    )
    relative_years: list[str] = Field(default_factory=list, description="date: « depuis N ans » style cues")
    window: int | None = Field(default=None, description="enum: value cues searched this many characters after the cue")
    min_similarity: float = 0.0


class ExtractionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    speech_verbs: list[str] = Field(default_factory=list, description="« X soutient que »: an allegation by X")
    conditional_cues: list[str] = Field(default_factory=list)
    denial_verbs: list[str] = Field(default_factory=list, description="lemmas that deny what their sentence says")
    negation_words: list[str] = Field(default_factory=list)
    party_words: dict[Party, list[str]] = Field(default_factory=dict)
    termination_cues: list[str] = Field(default_factory=list)
    supply_verbs: list[str] = Field(
        default_factory=list, description="lemmas whose subject supplies its object (the victim's usual side)"
    )
    event_fact: str | None = Field(
        default=None, description="the fact whose reading means the triggering event is reported (parties need it)"
    )
    prefer: list[str] = Field(
        default_factory=list, description="facts this reader reads better than the structural readers in prose"
    )
    facts: dict[str, FactExtraction]


@lru_cache(maxsize=8)
def _load(path: Path, stamp: float) -> ExtractionSpec:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return ExtractionSpec.model_validate(raw)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise ExtractionError(f"{path}: {exc}") from exc


def load_extraction(pack_dir: Path | str) -> ExtractionSpec | None:
    """The pack's extraction specification, or None when the pack declares none."""
    path = Path(pack_dir) / "extraction.yaml"
    if not path.is_file():
        return None
    return _load(path.resolve(), path.stat().st_mtime)
