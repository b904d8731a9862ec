"""Layer 3: promote canonical relations to traversable semantic relations, and log every decision.

Thresholds (issue §5): EXPLICIT alone needs 1 assertion; DISCURSIVE alone 2 assertions made in ≥ 2
distinct sections; MIXED 1 explicit + 1 discursive. Tier: EXPLICIT and MIXED → STRICT; DISCURSIVE →
STRICT only when its *strong* assertions (see tiers.strength_of) meet the discursive threshold on
their own, else EXTENDED. Every decision — promoted or not — is a PromotionRecord with its metrics.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from pydantic import BaseModel

from lexlogic.engine.kg.aggregate import Accumulator, Aggregator
from lexlogic.engine.kg.ingest import gc_paused
from lexlogic.engine.kg.model import (
    DefensibilityTier,
    PromotionRecord,
    RawAssertion,
    SemanticGrade,
    SemanticRelation,
    relation_id,
)
from lexlogic.engine.kg.tiers import grade_of


class PromotionPolicy(BaseModel):
    explicit_min: int = 1
    discursive_min: int = 2
    discursive_sections_min: int = 2
    mixed_explicit_min: int = 1
    mixed_discursive_min: int = 1


DEFAULT_POLICY = PromotionPolicy()


class PromotionResult(BaseModel):
    run_id: str
    relations: list[SemanticRelation]
    log: list[PromotionRecord]

    def by_tier(self) -> dict[str, int]:
        counts: dict[str, int] = {t.value: 0 for t in DefensibilityTier}
        for r in self.relations:
            counts[r.tier.value] += 1
        return counts


def meets_threshold(acc: Accumulator, policy: PromotionPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    e, d, secs = acc.explicit_count, acc.discursive_count, len(acc.discursive_sections)
    if e >= policy.explicit_min:
        return True, f"explicit support {e} ≥ {policy.explicit_min}"
    if e >= policy.mixed_explicit_min and d >= policy.mixed_discursive_min:
        return True, f"mixed support {e}+{d}"
    if d >= policy.discursive_min and secs >= policy.discursive_sections_min:
        return True, f"discursive support {d} in {secs} sections"
    return False, (
        f"below thresholds: explicit {e}/{policy.explicit_min}, discursive {d}/{policy.discursive_min} "
        f"in {secs}/{policy.discursive_sections_min} sections"
    )


def decide(
    acc: Accumulator, policy: PromotionPolicy = DEFAULT_POLICY
) -> tuple[SemanticGrade | None, DefensibilityTier | None, str]:
    """(grade, tier, reason); grade and tier are None when the relation is not promoted."""
    ok, why = meets_threshold(acc, policy)
    if not ok:
        return None, None, why
    grade = grade_of(acc.explicit_count, acc.discursive_count)
    if grade is not SemanticGrade.DISCURSIVE:
        return grade, DefensibilityTier.STRICT, f"{why}; {grade.value} → STRICT"
    strong, strong_secs = acc.strong_count, len(acc.strong_sections)
    if strong >= policy.discursive_min and strong_secs >= policy.discursive_sections_min:
        return (
            grade,
            DefensibilityTier.STRICT,
            (f"{why}; {strong} strong discursive assertions in {strong_secs} sections → STRICT"),
        )
    return (
        grade,
        DefensibilityTier.EXTENDED,
        (f"{why}; only {strong} strong discursive assertions in {strong_secs} sections → EXTENDED"),
    )


def promote(
    source: Aggregator | Iterable[RawAssertion], policy: PromotionPolicy = DEFAULT_POLICY, run_id: str | None = None
) -> PromotionResult:
    """Promote every canonical relation that meets the thresholds; log each decision.

    The cyclic garbage collector is paused meanwhile: the run creates two small acyclic models per
    canonical relation, and collector passes over the growing heap were a large share of its cost."""
    with gc_paused():
        return _promote(source, policy, run_id)


def _promote(
    source: Aggregator | Iterable[RawAssertion], policy: PromotionPolicy, run_id: str | None
) -> PromotionResult:
    agg = source if isinstance(source, Aggregator) else Aggregator().add_all(source)
    run = run_id or uuid.uuid4().hex[:12]
    relations: list[SemanticRelation] = []
    log: list[PromotionRecord] = []
    for acc in agg.by_key.values():
        grade, tier, reason = decide(acc, policy)
        rid = relation_id(acc.subject, acc.relation, acc.object)
        strength = acc.strength()
        log.append(
            PromotionRecord(
                run_id=run,
                relation_id=rid,
                promoted=tier is not None,
                grade=grade,
                tier=tier,
                strength=strength,
                strong_discursive=acc.strong_count,
                strong_sections=len(acc.strong_sections),
                reason=reason,
            )
        )
        if tier is None or grade is None:
            continue
        relations.append(
            SemanticRelation(
                id=rid,
                subject=acc.subject,
                relation=acc.relation,
                object=acc.object,
                grade=grade,
                tier=tier,
                methods=sorted(acc.methods),
                strength=strength,
                assertion_ids=list(acc.assertion_ids),
                tier_reason=reason,
            )
        )
    return PromotionResult(run_id=run, relations=relations, log=log)
