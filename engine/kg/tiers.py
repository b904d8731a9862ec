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

from functools import lru_cache

from lexlogic.engine.kg.constraints import DISCURSIVE_METHODS, discursive_whitelist
from lexlogic.engine.kg.markers import OPEN_LIST, STRONG_MARKERS
from lexlogic.engine.kg.model import (
    AssertionKind,
    DefensibilityTier,
    DiscursiveBasis,
    RawAssertion,
    SemanticGrade,
    normalize_entity,
)

VAGUE_OPTIONS = frozenset(
    {
        "other",
        "others",
        "otherwise",
        "similar",
        "the like",
        "anything else",
        "any other",
        "another",
        "etc",
        "autre",
        "autres",
        "autrement",
        "similaire",
        "équivalent",
        "tout autre",
        "toute autre",
        "it",
        "they",
        "il",
        "elle",
        "ils",
        "elles",
        "ceci",
        "cela",
        "this",
        "that",
    }
)

TIER_ORDER = {None: 0, DefensibilityTier.EXPERIMENTAL: 1, DefensibilityTier.EXTENDED: 2, DefensibilityTier.STRICT: 3}


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
    weakness = basis_weakness(assertion, text)
    if weakness is not None:
        return False, weakness
    basis = assertion.basis
    if basis in STRONG_MARKERS:
        return True, f"{basis.value} with a strong marker"  # type: ignore[union-attr]
    if basis in (DiscursiveBasis.SCOPE, DiscursiveBasis.COREF):
        return True, f"{basis.value} with {len(assertion.bundle.spans)} spans and anchor '{assertion.anchor}'"
    return True, "ENUMERATION of a complete list"


@lru_cache(maxsize=4096)
def _claimed(basis: DiscursiveBasis, marker: str) -> str | None:
    """The lower-cased marker when it is a strong cue of ``basis`` (markers are few distinct strings)."""
    return marker.lower() if STRONG_MARKERS[basis].fullmatch(marker) else None


def basis_weakness(assertion: RawAssertion, text: str | None = None) -> str | None:
    """None when the basis of a DISCURSIVE assertion is strong (issue §5), else why not.

    The basis rule alone: the method and whitelist gates of ``strength_of`` are NOT re-checked, so call this
    directly only for an assertion the journal admitted (``constraints.check`` is None), for which those
    gates are already known to pass — that is what lets batch ingestion skip a second whitelist regex.
    """
    if text is None:
        text = assertion.bundle.text
    basis = assertion.basis
    pattern = STRONG_MARKERS.get(basis)  # type: ignore[arg-type]
    if pattern is not None:
        claimed = {c for m in assertion.markers if (c := _claimed(basis, m)) is not None}  # type: ignore[arg-type]
        if not claimed or not any(m.group(0).lower() in claimed for m in pattern.finditer(text)):
            return f"{basis.value} without a strong marker quoted in the evidence"  # type: ignore[union-attr]
        if basis is DiscursiveBasis.ALTERNATIVE and not (
            option_identified(assertion.subject) and option_identified(assertion.object)
        ):
            return "ALTERNATIVE whose options are not both identified"
        return None
    if basis is DiscursiveBasis.SCOPE or basis is DiscursiveBasis.COREF:
        spans = len(assertion.bundle.spans)
        if spans < 2:
            return f"{basis.value} needs ≥ 2 spans (has {spans})"
        if not (assertion.anchor or "").strip():
            return f"{basis.value} without a documented anchor/resolution"
        return None
    if basis is DiscursiveBasis.ENUMERATION:
        if assertion.enumeration_complete is not True or OPEN_LIST.search(text):
            return "ENUMERATION of an open or unverified list"
        return None
    return f"unknown basis {basis}"


def grade_of(explicit_count: int, discursive_count: int) -> SemanticGrade:
    if explicit_count and discursive_count:
        return SemanticGrade.MIXED
    return SemanticGrade.EXPLICIT if explicit_count else SemanticGrade.DISCURSIVE
