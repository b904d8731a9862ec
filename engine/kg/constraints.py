"""Admission rules of the journal: what a RawAssertion may be, checked before it is written.

- DISCURSIVE only with PATTERN or HYBRID (never the LLM alone, never INFERRED).
- The V1 whitelist for DISCURSIVE: ALTERNATIVE_TO and APPLIES_TO always; REQUIRES only with an explicit
  obligation marker in the evidence; REPLACES and DEPRECATES only with explicit temporality in the
  evidence; CAUSES, PREVENTS, MITIGATES, ENABLES, DEFINES never.
- INFERRED relations are never journaled: they live in the semantic layer with their premises.
A violation is refused with its reason (WHITELIST_VIOLATION) and the rule that refused it.
"""

from __future__ import annotations

from pydantic import BaseModel

from lexlogic.engine.kg.markers import has_obligation, has_temporality
from lexlogic.engine.kg.model import (
    AssertionKind,
    DiscursiveAbstainReason,
    ExtractionMethod,
    RawAssertion,
    RelationType,
)
from lexlogic.logic.errors import LexlogicError

DISCURSIVE_METHODS: frozenset[ExtractionMethod] = frozenset({ExtractionMethod.PATTERN, ExtractionMethod.HYBRID})
WHITELIST_ALWAYS: frozenset[RelationType] = frozenset({RelationType.ALTERNATIVE_TO, RelationType.APPLIES_TO})
NEEDS_OBLIGATION: frozenset[RelationType] = frozenset({RelationType.REQUIRES})
NEEDS_TEMPORALITY: frozenset[RelationType] = frozenset({RelationType.REPLACES, RelationType.DEPRECATES})
FORBIDDEN_DISCURSIVE: frozenset[RelationType] = frozenset(
    {
        RelationType.CAUSES,
        RelationType.PREVENTS,
        RelationType.MITIGATES,
        RelationType.ENABLES,
        RelationType.DEFINES,
    }
)


class ConstraintViolation(BaseModel):
    reason: DiscursiveAbstainReason
    rule: str  # short id of the rule that refused, e.g. "V1.forbidden"
    detail: str


class AssertionRefused(LexlogicError, ValueError):
    """Raised by a journal asked to append an assertion that breaks a constraint."""

    def __init__(self, violation: ConstraintViolation) -> None:
        super().__init__(f"{violation.rule}: {violation.detail}")
        self.violation = violation


def discursive_whitelist(relation: RelationType, evidence_text: str) -> ConstraintViolation | None:
    """The V1 whitelist for a DISCURSIVE relation, judged on the evidence text itself."""
    if relation in WHITELIST_ALWAYS:
        return None
    if relation in FORBIDDEN_DISCURSIVE:
        return ConstraintViolation(
            reason=DiscursiveAbstainReason.WHITELIST_VIOLATION,
            rule="V1.forbidden",
            detail=f"{relation.value} may not be asserted discursively (V1 whitelist)",
        )
    if relation in NEEDS_OBLIGATION and not has_obligation(evidence_text):
        return ConstraintViolation(
            reason=DiscursiveAbstainReason.WHITELIST_VIOLATION,
            rule="V1.requires_obligation",
            detail="discursive REQUIRES needs an explicit obligation marker "
            "(must/shall/required/doit/obligatoire) in the evidence",
        )
    if relation in NEEDS_TEMPORALITY and not has_temporality(evidence_text):
        return ConstraintViolation(
            reason=DiscursiveAbstainReason.WHITELIST_VIOLATION,
            rule="V1.needs_temporality",
            detail=f"discursive {relation.value} needs explicit temporality "
            "(from/as of/à compter de/a date) in the evidence",
        )
    return None


def check(assertion: RawAssertion) -> ConstraintViolation | None:
    """None when the assertion may be journaled, else the violation."""
    if assertion.method is ExtractionMethod.INFERRED:
        return ConstraintViolation(
            reason=DiscursiveAbstainReason.WHITELIST_VIOLATION,
            rule="journal.no_inferred",
            detail="INFERRED relations are derived in the semantic layer, never journaled",
        )
    if assertion.kind is AssertionKind.EXPLICIT:
        return None
    if assertion.method not in DISCURSIVE_METHODS:
        return ConstraintViolation(
            reason=DiscursiveAbstainReason.WHITELIST_VIOLATION,
            rule="discursive.method",
            detail=f"a DISCURSIVE assertion needs method PATTERN or HYBRID, not {assertion.method.value} alone",
        )
    return discursive_whitelist(assertion.relation, assertion.bundle.text)


def ensure_admissible(assertion: RawAssertion) -> RawAssertion:
    """Return the assertion, or raise AssertionRefused with the reason."""
    violation = check(assertion)
    if violation is not None:
        raise AssertionRefused(violation)
    return assertion
