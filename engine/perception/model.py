"""What perception produces: findings (one reading of one fact, with grounding), ambiguity nodes,
and the conversion to the CASE FILE dict that `lexlogic analyze` consumes.

A plain dict is produced (the contract); ``validate_case_file`` checks it with the lead's
``logic.facts.parse_case`` when the pack is loadable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.logic.facts import Allegation, CaseFile, DateInterval, World
from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.ontology import CaseOntology
from lexlogic.logic.pack import RulePack

PACKS_DIR = (
    Path(__file__).resolve().parents[2] / "rules"
)  # the shipped packs (``engine.packs.rules_dir`` honours --rules)


class Finding(BaseModel):
    fact: str
    value: Any
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    world: World = World.SHARED
    grounding: list[Grounding] = Field(default_factory=new_list)
    note: str | None = None
    ambiguity: str | None = Field(default=None, description="id of the ambiguity node this reading belongs to")
    source: str = Field(
        default="offline", description="offline (structural readers) | offline:pack (the pack's per-fact reader) | llm"
    )
    allegation: Allegation | None = Field(default=None, description="alleged: only a party's own assertion")
    alleged_by: str | None = None
    interval: DateInterval | None = Field(default=None, description="a date known to the month or year only")
    raw_confidence: float | None = Field(default=None, description="the reader's own score, before calibration")
    as_given: bool = Field(default=False, description="calibrated confidence above the pack's as-given threshold")


class Ambiguity(BaseModel):
    """An ambiguous statement: one branch (a Finding) per reading, each feeding a world."""

    id: str
    statement: Grounding
    question: str
    readings: list[Finding]


class Perception(BaseModel):
    findings: list[Finding] = Field(default_factory=new_list)
    ambiguities: list[Ambiguity] = Field(default_factory=new_list)
    ontology: CaseOntology = Field(default_factory=CaseOntology)
    conflicts: list[str] = Field(default_factory=new_list)

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)


def _g(g: Grounding) -> dict[str, Any]:
    return g.model_dump(mode="json", exclude_none=True)


def _reading(f: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "value": f.value,
        "confidence": round(f.confidence, 4),
        "world": f.world.value,
        "grounding": [_g(g) for g in f.grounding],
    }
    if f.note:
        out["note"] = f.note
    if f.allegation is not None:
        out["allegation"] = Allegation(f.allegation).value
        if f.alleged_by:
            out["alleged_by"] = f.alleged_by
    if f.interval is not None:
        out["interval"] = f.interval.model_dump(mode="json")
    if f.raw_confidence is not None:
        out["raw_confidence"] = round(f.raw_confidence, 4)
    return out


def merge_findings(perception: Perception) -> dict[str, dict[str, Any]]:
    """One FactValue per fact: ambiguity readings become alternatives; agreeing findings pool their
    grounding; a disagreement keeps the most confident reading and is recorded as a conflict."""
    by_fact: dict[str, list[Finding]] = {}
    for f in perception.findings:
        by_fact.setdefault(f.fact, []).append(f)
    facts: dict[str, dict[str, Any]] = {}
    for name, found in by_fact.items():
        amb = [f for f in found if f.ambiguity]
        plain = sorted((f for f in found if not f.ambiguity), key=lambda f: -f.confidence)
        if amb:
            amb.sort(key=lambda f: -f.confidence)
            head = _reading(amb[0])
            head["alternatives"] = [_reading(f) for f in amb[1:]]
            facts[name] = head
            continue
        best = plain[0]
        value = _reading(best)
        evidenced = [f for f in plain if f.allegation != Allegation.ALLEGED]
        if not evidenced and isinstance(best.value, bool):
            # only a party's allegation: contested, so the logic does not take it as given (the
            # probabilistic layer weighs the two readings); a defence's exoneration never proves itself
            other_world = World.NARRATIVE_A if best.world == World.NARRATIVE_B else World.NARRATIVE_B
            value["alternatives"] = [
                {
                    "value": not best.value,
                    "confidence": round(1 - best.confidence, 4),
                    "world": other_world.value,
                    "grounding": value["grounding"],  # what is contested is that very statement
                    "note": f"contestation de l'allégation ({best.alleged_by or 'une partie'})",
                }
            ]
            facts[name] = value
            continue
        disputed = [f for f in plain[1:] if f.value != best.value and (f.allegation or best.allegation)]
        if disputed:  # the parties disagree: one reading per narrative, not a silent pick
            value["alternatives"] = [_reading(f) for f in disputed]
            perception.conflicts.append(f"{name}: readings {[best.value] + [f.value for f in disputed]!r}")
            facts[name] = value
            continue
        for other in plain[1:]:
            if other.value == best.value:
                seen = {(g.document_id, g.char_start, g.char_end) for g in best.grounding}
                value["grounding"] += [
                    _g(g) for g in other.grounding if (g.document_id, g.char_start, g.char_end) not in seen
                ]
            else:
                perception.conflicts.append(
                    f"{name}: kept {best.value!r} ({best.confidence}) over {other.value!r} ({other.confidence})"
                )
        if best.as_given and best.allegation != Allegation.ALLEGED:
            value["as_given"] = True  # calibrated above the threshold, undisputed: enters the model as given
        facts[name] = value
    return facts


def to_case_file(perception: Perception, case_id: str, pack: RulePack) -> dict[str, Any]:
    """The case file of ``pack`` (the pack the findings were read for)."""
    return {"pack": pack.name, "case_id": case_id, "facts": merge_findings(perception)}


def validate_case_file(stored: dict[str, Any], pack: RulePack) -> CaseFile:
    """The edge where perception's case file (JSON, as stored) becomes the typed case of its pack
    (CaseFileError with a JSON path)."""
    from lexlogic.logic.facts import parse_case

    return parse_case(stored, pack, source=f"perception:{stored.get('case_id')}")
