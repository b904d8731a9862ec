"""Grade and defensibility of promoted relations (issue §5), as pure functions of the evidence.

A DISCURSIVE assertion is *strong* when: its method is PATTERN/HYBRID, its type is whitelisted, and its
basis is strong with a bundle that meets the minimum —
ALTERNATIVE: an "or" cue (or/either/ou/soit) quoted in the evidence and both options identified;
DEFAULT: "by default"/"par défaut" quoted; EXCEPTION: unless/except/sauf (si)/à moins que quoted;
SCOPE and COREF: ≥ 2 spans and a documented anchor/resolution; ENUMERATION: a complete (closed) list.
The strong cue must be both claimed in ``markers`` and found in the quoted text: a claimed cue that the
evidence does not contain does not count.
"""
from __future__ import annotations

from engine.kg.constraints import DISCURSIVE_METHODS, discursive_whitelist
from engine.kg.markers import OPEN_LIST, STRONG_MARKERS
from engine.kg.model import (AssertionKind, DefensibilityTier, DiscursiveBasis, RawAssertion,
                             SemanticGrade, normalize_entity)

VAGUE_OPTIONS = frozenset({
    "other", "others", "otherwise", "similar", "the like", "anything else", "any other", "another", "etc",
    "autre", "autres", "autrement", "similaire", "équivalent", "tout autre", "toute autre", "it", "they",
    "il", "elle", "ils", "elles", "ceci", "cela", "this", "that",
})

TIER_ORDER = {None: 0, DefensibilityTier.EXPERIMENTAL: 1, DefensibilityTier.EXTENDED: 2,
              DefensibilityTier.STRICT: 3}


def option_identified(name: str) -> bool:
    norm = normalize_entity(name)
    return bool(norm) and norm not in VAGUE_OPTIONS and not norm.startswith(("other ", "autre "))


def strength_of(assertion: RawAssertion) -> tuple[bool, str]:
    """(strong?, why) for one DISCURSIVE assertion; EXPLICIT assertions are not judged here."""
    if assertion.kind is not AssertionKind.DISCURSIVE:
        return False, "not discursive"
    if assertion.method not in DISCURSIVE_METHODS:
        return False, f"method {assertion.method.value}"
    text = assertion.bundle.text
    violation = discursive_whitelist(assertion.relation, text)
    if violation is not None:
        return False, violation.detail
    basis = assertion.basis
    spans = len(assertion.bundle.spans)
    if basis in STRONG_MARKERS:
        pattern = STRONG_MARKERS[basis]
        claimed = [m.lower() for m in assertion.markers if pattern.fullmatch(m)]
        if not claimed or not set(claimed) & {m.group(0).lower() for m in pattern.finditer(text)}:
            return False, f"{basis.value} without a strong marker quoted in the evidence"
        if basis is DiscursiveBasis.ALTERNATIVE and not (
                option_identified(assertion.subject) and option_identified(assertion.object)):
            return False, "ALTERNATIVE whose options are not both identified"
        return True, f"{basis.value} with a strong marker"
    if basis in (DiscursiveBasis.SCOPE, DiscursiveBasis.COREF):
        if spans < 2:
            return False, f"{basis.value} needs ≥ 2 spans (has {spans})"
        if not (assertion.anchor or "").strip():
            return False, f"{basis.value} without a documented anchor/resolution"
        return True, f"{basis.value} with {spans} spans and anchor '{assertion.anchor}'"
    if basis is DiscursiveBasis.ENUMERATION:
        if assertion.enumeration_complete is not True or OPEN_LIST.search(text):
            return False, "ENUMERATION of an open or unverified list"
        return True, "ENUMERATION of a complete list"
    return False, f"unknown basis {basis}"


def grade_of(explicit_count: int, discursive_count: int) -> SemanticGrade:
    if explicit_count and discursive_count:
        return SemanticGrade.MIXED
    return SemanticGrade.EXPLICIT if explicit_count else SemanticGrade.DISCURSIVE
