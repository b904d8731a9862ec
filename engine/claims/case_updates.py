"""Into the case: verification results become prior updates or ambiguities (two worlds) on named facts.

A pure function over the results and a declarative map (``fact_map.yaml``): no state, no I/O beyond
reading the map, so the orchestrator decides what to do with the proposals. Each proposal carries its
evidence as Grounding, so the proof tree can quote the span that raised or split the fact.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from lexlogic.engine.claims import facets as fx
from lexlogic.engine.claims.models import Evidence, Status, VerificationResult
from lexlogic.logic.grounding import Grounding

VERIFIED_PRIOR = 0.9  # a claim a memory explicitly confirms
CONTRADICTED_PRIOR = 0.1  # a claim a memory explicitly contradicts (bool facts: the claimed value)
MAP_PATH = Path(__file__).with_name("fact_map.yaml")


class FactRule(BaseModel):
    fact: str
    when: list[list[str]]
    take: str


class PriorUpdate(BaseModel):
    """Set the prior of ``fact`` taking ``value`` to ``probability`` (raised when VERIFIED, lowered when
    CONTRADICTED)."""

    fact: str
    value: Any
    probability: float
    claim: str
    status: Status
    grounding: list[Grounding] = Field(default_factory=list)


class World(BaseModel):
    value: Any
    grounding: list[Grounding] = Field(default_factory=list)
    note: str = ""


class Ambiguity(BaseModel):
    """Open two worlds on ``fact``: A (the claim's side) and B (the other memory's side)."""

    fact: str
    claim: str
    status: Status
    world_a: World
    world_b: World


class CaseUpdates(BaseModel):
    priors: list[PriorUpdate] = Field(default_factory=list)
    ambiguities: list[Ambiguity] = Field(default_factory=list)
    unmapped: list[str] = Field(default_factory=list, description="decisive claims no fact rule matched")


@lru_cache(maxsize=4)
def load_map(path: str = str(MAP_PATH)) -> tuple[FactRule, ...]:
    return tuple(FactRule.model_validate(e) for e in yaml.safe_load(Path(path).read_text(encoding="utf-8")))


def match_fact(claim: str, rules: tuple[FactRule, ...]) -> FactRule | None:
    stems = fx.read(claim).content | {fx.stem(w) for w in fx.fold(claim).replace("'", " ").split()}
    for rule in rules:
        for alt in rule.when:
            if all(any(s.startswith(p) for s in stems) for p in alt):
                return rule
    return None


def value_of(text: str, take: str) -> Any:
    """The value ``text`` gives a fact of kind ``take`` (None when the text does not state it)."""
    f = fx.read(text)
    if take == "polarity":
        return not f.sentence_negated
    if take == "date":
        if not f.dates:
            return None
        d = f.dates[0]
        return (
            "-".join(f"{x:02d}" if i else f"{x:04d}" for i, x in enumerate((d.year, d.month, d.day)) if x is not None)
            if d.year
            else str(d)
        )
    if take == "duration":
        return f.durations[0] if f.durations else None
    if take == "amount":
        return f.amounts[0][0] if f.amounts else None
    if take == "percent":
        return f.percents[0] if f.percents else None
    if take == "count":
        return next(iter(f.counts.values()), None)
    if take == "amount_by_year":
        years = [d.year for d in f.dates if d.year]
        return {str(years[0]): f.amounts[0][0]} if f.amounts and years else None
    raise ValueError(f"{MAP_PATH}: unknown take {take!r}")


def _world(ev: Evidence, take: str) -> World:
    return World(value=value_of(ev.content, take), grounding=[ev.grounding], note=ev.nuance)


def updates_for(results: list[VerificationResult], rules: tuple[FactRule, ...] | None = None) -> CaseUpdates:
    """VERIFIED → raise the prior of the claimed value; CONTRADICTED → lower it (bool facts) or open two
    worlds (valued facts: the claim's value vs the memory's); AMBIGUOUS → two worlds, one per memory."""
    rules = rules if rules is not None else load_map()
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
            if rule.take == "polarity":
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
                    Ambiguity(
                        fact=rule.fact,
                        claim=r.claim,
                        status=r.status,
                        world_a=World(value=claimed, note="affirmé par la partie, sans pièce à l'appui"),
                        world_b=_world(r.evidence, rule.take),
                    )
                )
        else:  # AMBIGUOUS: the supporting memory against the first contradicting one
            other = r.contradictory[0] if r.contradictory else None
            out.ambiguities.append(
                Ambiguity(
                    fact=rule.fact,
                    claim=r.claim,
                    status=r.status,
                    world_a=_world(r.evidence, rule.take),
                    world_b=_world(other, rule.take) if other else World(value=None),
                )
            )
    return out
