"""Model invariants and the admission rules of the journal (issue §1-3)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lexlogic.engine.kg.constraints import AssertionRefused, check, ensure_admissible
from lexlogic.engine.kg.model import (
    AssertionKind,
    DiscursiveAbstainReason,
    DiscursiveBasis,
    EvidenceBundle,
    ExtractionMethod,
    RawAssertion,
    RelationType,
    canonical_key,
    normalize_entity,
)
from lexlogic.engine.kg.store import MemoryJournal
from tests.kg.factory import discursive, explicit, span

R = RelationType


def test_enums_are_the_closed_sets_of_the_issue():
    assert {b.value for b in DiscursiveBasis} == {
        "ALTERNATIVE",
        "DEFAULT",
        "EXCEPTION",
        "SCOPE",
        "COREF",
        "ENUMERATION",
    }
    assert {r.value for r in DiscursiveAbstainReason} == {
        "WEAK_BUNDLE",
        "SCOPE_BREAK",
        "COREF_UNRESOLVED",
        "TYPE2_RISK",
        "WHITELIST_VIOLATION",
        "AMBIGUOUS_PREDICATE",
        # issue 23: speech act and modality
        "REPORTED_SPEECH",
        "QUOTATION",
        "NEGATION",
        "HYPOTHESIS",
        "QUESTION",
        "INTENTION",
    }
    assert {m.value for m in ExtractionMethod} == {"PATTERN", "LLM", "HYBRID", "INFERRED"}
    assert {
        "ALTERNATIVE_TO",
        "APPLIES_TO",
        "REQUIRES",
        "REPLACES",
        "DEPRECATES",
        "CAUSES",
        "PREVENTS",
        "MITIGATES",
        "ENABLES",
        "DEFINES",
    } <= {r.value for r in RelationType}


def test_discursive_requires_a_basis_and_explicit_has_none():
    with pytest.raises(ValidationError, match="needs a basis"):
        RawAssertion(
            subject="a",
            relation=R.APPLIES_TO,
            object="b",
            kind=AssertionKind.DISCURSIVE,
            method=ExtractionMethod.PATTERN,
            bundle=EvidenceBundle(spans=(span("a or b"),)),
        )
    with pytest.raises(ValidationError, match="no discursive basis"):
        RawAssertion(
            subject="a",
            relation=R.APPLIES_TO,
            object="b",
            kind=AssertionKind.EXPLICIT,
            basis=DiscursiveBasis.DEFAULT,
            method=ExtractionMethod.PATTERN,
            bundle=EvidenceBundle(spans=(span("a applies to b"),)),
        )


def test_bundle_needs_a_span_and_entries_are_immutable():
    with pytest.raises(ValidationError):
        EvidenceBundle(spans=())
    a = explicit()
    with pytest.raises(ValidationError):
        a.subject = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        a.bundle.spans[0].text = "x"  # type: ignore[misc]


def test_bundle_diversity_is_min_one_of_sections_over_three():
    one = EvidenceBundle(spans=(span("x", section="a"), span("y", section="a")))
    two = EvidenceBundle(spans=(span("x", section="a"), span("y", section="b")))
    four = EvidenceBundle(spans=tuple(span("x", section=s) for s in "abcd"))
    assert (one.diversity, round(two.diversity, 3), four.diversity) == (1 / 3, 0.667, 1.0)


def test_canonical_key_normalises_and_orders_symmetric_relations():
    assert normalize_entity("  Les Conditions  générales. ") == "conditions générales"
    assert normalize_entity("l'annexe 2") == "annexe 2"
    assert canonical_key("Dollars", R.ALTERNATIVE_TO, "the euros") == canonical_key(
        "euros", R.ALTERNATIVE_TO, "dollars"
    )
    assert canonical_key("b", R.REQUIRES, "a") != canonical_key("a", R.REQUIRES, "b")


def test_discursive_only_with_pattern_or_hybrid():
    for method in (ExtractionMethod.PATTERN, ExtractionMethod.HYBRID):
        assert check(discursive(method=method)) is None
    v = check(discursive(method=ExtractionMethod.LLM))
    assert v is not None and v.rule == "discursive.method" and v.reason is DiscursiveAbstainReason.WHITELIST_VIOLATION
    assert check(explicit(method=ExtractionMethod.LLM)) is None  # the LLM may state explicit relations


def test_inferred_is_never_journaled():
    v = check(explicit(method=ExtractionMethod.INFERRED))
    assert v is not None and v.rule == "journal.no_inferred"


@pytest.mark.parametrize("rel", [R.CAUSES, R.PREVENTS, R.MITIGATES, R.ENABLES, R.DEFINES])
def test_forbidden_discursive_types(rel):
    v = check(
        discursive(
            r=rel,
            basis=DiscursiveBasis.DEFAULT,
            markers=("by default",),
            text="By default, a causes b with effect from 2024, it must.",
        )
    )
    assert v is not None and v.rule == "V1.forbidden" and rel.value in v.detail
    assert check(explicit(r=rel)) is None  # explicit statements of these types are admissible


def test_whitelisted_types_always_allowed():
    for rel in (R.ALTERNATIVE_TO, R.APPLIES_TO):
        assert (
            check(
                discursive(
                    r=rel, basis=DiscursiveBasis.DEFAULT, markers=("by default",), text="By default, a applies to b."
                )
            )
            is None
        )


@pytest.mark.parametrize(
    "text,ok",
    [
        ("By default, the notice requires the reasons.", False),
        ("By default, the notice must include the reasons.", True),
        ("By default, the notice shall include the reasons.", True),
        ("The reasons are required for the notice, unless agreed.", True),
        ("Par défaut, la lettre doit comporter le motif.", True),
        ("Sauf accord contraire, l'accord est obligatoire pour la cession.", True),
        ("Sauf accord contraire, la cession nécessite l'accord.", False),
    ],
)
def test_requires_needs_an_obligation_marker(text, ok):
    v = check(discursive(r=R.REQUIRES, basis=DiscursiveBasis.DEFAULT, markers=("by default",), text=text))
    assert (v is None) is ok
    if not ok:
        assert v.rule == "V1.requires_obligation"


@pytest.mark.parametrize("rel", [R.REPLACES, R.DEPRECATES])
@pytest.mark.parametrize(
    "text,ok",
    [
        ("By default, the new list replaces the old list.", False),
        ("By default, the new list replaces the old list from 1 January 2025.", True),
        ("Par défaut, le nouveau tarif remplace l'ancien à compter du 1er mars.", True),
        ("Par défaut, le nouveau tarif remplace l'ancien.", False),
    ],
)
def test_replaces_and_deprecates_need_temporality(rel, text, ok):
    v = check(discursive(r=rel, basis=DiscursiveBasis.DEFAULT, markers=("by default",), text=text))
    assert (v is None) is ok
    if not ok:
        assert v.rule == "V1.needs_temporality"


def test_journal_refuses_with_the_reason_and_writes_nothing():
    journal = MemoryJournal()
    with pytest.raises(AssertionRefused) as info:
        journal.append(discursive(r=R.CAUSES, basis=DiscursiveBasis.DEFAULT, text="By default a causes b."))
    assert info.value.violation.reason is DiscursiveAbstainReason.WHITELIST_VIOLATION
    assert len(journal) == 0
    assert ensure_admissible(explicit()).subject == "lease"
