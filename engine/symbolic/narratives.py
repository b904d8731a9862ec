"""A case file's narratives: the claimant's (A) and the defence's (B) readings of its ambiguous facts.

Typed case in, typed case out (``CaseFile``; nothing is re-parsed): answers collapse an ambiguity to the
chosen reading, ``split_worlds`` gives one case file per narrative (each ambiguity collapsed to that
narrative's reading) with the readings' relative weight, ``apply_priors`` moves the weight of an
ambiguity's readings. The input case is never changed (copies share the readings they do not change).
"""

from __future__ import annotations

from typing import Any

from lexlogic.logic.facts import CaseFile, FactValue, Reading, World
from lexlogic.logic.grounding import Grounding, SourceKind


def ambiguous_facts(case: CaseFile) -> list[str]:
    """The facts of the case file that carry alternative readings."""
    return [k for k, fv in case.facts.items() if fv.alternatives]


def with_facts(case: CaseFile, facts: dict[str, FactValue]) -> CaseFile:
    """The case with these facts replaced or added."""
    return case.model_copy(update={"facts": {**case.facts, **facts}})


def answered(fact: str, value: Any) -> FactValue:
    """An answer as a SHARED fact, grounded in the user's answer (``value`` already checked against the pack)."""
    note = f"réponse : {value}"
    return FactValue(
        value=value, confidence=1.0, world=World.SHARED, grounding=[Grounding(kind=SourceKind.USER_ANSWER, note=note)]
    )


def apply_answers(case: CaseFile, answers: dict[str, Any] | None) -> CaseFile:
    """Answers become SHARED facts (an answered ambiguity collapses to the chosen reading)."""
    if not answers:
        return case
    return with_facts(case, {fact: answered(fact, value) for fact, value in answers.items()})


def _alone(r: Reading) -> FactValue:
    """One reading as a fact of its own (no alternatives)."""
    return FactValue.model_construct(**{name: getattr(r, name) for name in Reading.model_fields}, alternatives=[])


def split_worlds(case: CaseFile) -> list[tuple[World, float, CaseFile]]:
    """One case file per narrative (each ambiguity collapsed to that narrative's reading), weighted by the
    product of its readings' confidences (normalised)."""
    worlds: dict[World, dict[str, FactValue]] = {}
    weights: dict[World, float] = {}
    for name, fv in case.facts.items():
        for r in [fv, *fv.alternatives] if fv.alternatives else []:
            worlds.setdefault(r.world, {})[name] = _alone(r)
            weights[r.world] = weights.get(r.world, 1.0) * float(r.confidence)
    if not worlds:
        return [(World.SHARED, 1.0, case)]
    total = sum(weights.values()) or 1.0
    return [(w, weights[w] / total, with_facts(case, overrides)) for w, overrides in worlds.items()]


def apply_priors(case: CaseFile, priors: dict[str, float]) -> CaseFile:
    """Set the weight of each ambiguous fact's first reading to p (the others share 1 − p). Keys that are
    not ambiguous facts (model variables) are left to the probabilistic model's what-if."""
    amb = set(ambiguous_facts(case))
    priors = {k: v for k, v in priors.items() if k in amb}
    if not priors:
        return case
    moved: dict[str, FactValue] = {}
    for fact, p in priors.items():
        fv = case.facts[fact]
        rest = (1.0 - float(p)) / len(fv.alternatives)
        alternatives = [r.model_copy(update={"confidence": rest}) for r in fv.alternatives]
        moved[fact] = fv.model_copy(update={"confidence": float(p), "alternatives": alternatives})
    return with_facts(case, moved)


def without_confidences(case: CaseFile) -> dict[str, Any]:
    """The case file (as JSON) without confidences: what the symbolic analysis reads (a cache key)."""
    stored = case.model_dump(mode="json")
    for fv in stored["facts"].values():
        fv.pop("confidence", None)
        for r in fv.get("alternatives") or []:
            r.pop("confidence", None)
    return stored
