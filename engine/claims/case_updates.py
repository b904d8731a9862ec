"""Into the case: verification results become prior updates or ambiguities (two worlds) on named facts.

A pure function over the results and the case's pack's claim→fact map (``claims.yaml``, read by
``fact_map``): no state, no I/O beyond reading the map, so the orchestrator decides what to do with the
proposals. Each proposal carries its
evidence as Grounding, so the proof tree can quote the span that raised or split the fact.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.claims import facets as fx
from lexlogic.engine.claims.fact_map import FactRule, Take, load_map
from lexlogic.engine.claims.models import ClaimEvidence, Status, VerificationResult
from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list

VERIFIED_PRIOR = 0.9  # a claim a memory explicitly confirms
CONTRADICTED_PRIOR = 0.1  # a claim a memory explicitly contradicts (bool facts: the claimed value)

__all__ = ["FactRule", "load_map", "match_fact", "updates_for", "value_of"]


class PriorUpdate(BaseModel):
    """Set the prior of ``fact`` taking ``value`` to ``probability`` (raised when VERIFIED, lowered when
    CONTRADICTED)."""

    fact: str
    value: Any
    probability: float
    claim: str
    status: Status
    grounding: list[Grounding] = Field(default_factory=new_list)


class ClaimWorld(BaseModel):
    value: Any
    grounding: list[Grounding] = Field(default_factory=new_list)
    note: str = ""


class ClaimAmbiguity(BaseModel):
    """Open two worlds on ``fact``: A (the claim's side) and B (the other memory's side)."""

    fact: str
    claim: str
    status: Status
    world_a: ClaimWorld
    world_b: ClaimWorld


class CaseUpdates(BaseModel):
    priors: list[PriorUpdate] = Field(default_factory=new_list)
    ambiguities: list[ClaimAmbiguity] = Field(default_factory=new_list)
    unmapped: list[str] = Field(default_factory=new_list, description="decisive claims no fact rule matched")


def match_fact(claim: str, rules: tuple[FactRule, ...]) -> FactRule | None:
    """The first entry one of whose alternatives the claim meets (each prefix begins a folded word or its
    stem, so « rompu » meets ``ruptur``) and whose reading finds a value in it (« un préavis écrit »
    states no duration, so it goes on to the entry that reads a yes/no)."""
    words = fx.fold(claim).replace("'", " ").replace("-", " ").split()
    stems = fx.read(claim).content | {fx.stem(w) for w in words} | set(words)
    for rule in rules:
        if any(all(any(s.startswith(p) for s in stems) for p in alt) for alt in rule.when):
            if value_of(claim, rule.take) is not None:
                return rule
    return None


def value_of(text: str, take: Take | str) -> Any:
    """The value ``text`` gives a fact of kind ``take`` (None when the text does not state it)."""
    f = fx.read(text)
    take = Take(take)
    if take is Take.DAYS:
        return round(f.durations[0] * 30) if f.durations else None
    if take is Take.POLARITY:
        return not f.sentence_negated
    if take is Take.DATE:
        if not f.dates:
            return None
        d = f.dates[0]
        return (
            "-".join(f"{x:02d}" if i else f"{x:04d}" for i, x in enumerate((d.year, d.month, d.day)) if x is not None)
            if d.year
            else str(d)
        )
    if take is Take.DURATION:
        return f.durations[0] if f.durations else None
    if take is Take.AMOUNT:
        return f.amounts[0][0] if f.amounts else None
    if take is Take.PERCENT:
        return f.percents[0] if f.percents else None
    if take is Take.COUNT:
        return next(iter(f.counts.values()), None)
    if take is Take.AMOUNT_BY_YEAR:
        years = [d.year for d in f.dates if d.year]
        return {str(years[0]): f.amounts[0][0]} if f.amounts and years else None
    raise ValueError(f"unknown take {take!r}")


def _world(ev: ClaimEvidence, take: str) -> ClaimWorld:
    return ClaimWorld(value=value_of(ev.content, take), grounding=[ev.grounding], note=ev.nuance)


def updates_for(results: list[VerificationResult], rules: tuple[FactRule, ...]) -> CaseUpdates:
    """VERIFIED → raise the prior of the claimed value; CONTRADICTED → lower it (bool facts) or open two
    worlds (valued facts: the claim's value vs the memory's); AMBIGUOUS → two worlds, one per memory.
    ``rules``: the case's pack's map (``load_map(pack)``)."""
    out = CaseUpdates()
    for r in results:
        if r.status is Status.UNKNOWN or r.evidence is None:
            continue
        rule = match_fact(r.claim, rules)
        if rule is None:
            out.unmapped.append(r.claim)
            continue
        claimed = value_of(r.claim, rule.take)
        if r.status is Status.VERIFIED:
            out.priors.append(
                PriorUpdate(
                    fact=rule.fact,
                    value=claimed,
                    probability=VERIFIED_PRIOR,
                    claim=r.claim,
                    status=r.status,
                    grounding=[r.evidence.grounding],
                )
            )
        elif r.status is Status.CONTRADICTED:
            if rule.take is Take.POLARITY:
                out.priors.append(
                    PriorUpdate(
                        fact=rule.fact,
                        value=claimed,
                        probability=CONTRADICTED_PRIOR,
                        claim=r.claim,
                        status=r.status,
                        grounding=[r.evidence.grounding],
                    )
                )
            else:
                out.ambiguities.append(
                    ClaimAmbiguity(
                        fact=rule.fact,
                        claim=r.claim,
                        status=r.status,
                        world_a=ClaimWorld(value=claimed, note="affirmé par la partie, sans pièce à l'appui"),
                        world_b=_world(r.evidence, rule.take),
                    )
                )
        else:  # AMBIGUOUS: the supporting memory against the first contradicting one
            other = r.contradictory[0] if r.contradictory else None
            out.ambiguities.append(
                ClaimAmbiguity(
                    fact=rule.fact,
                    claim=r.claim,
                    status=r.status,
                    world_a=_world(r.evidence, rule.take),
                    world_b=_world(other, rule.take) if other else ClaimWorld(value=None),
                )
            )
    return out
