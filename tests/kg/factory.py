"""Builders of assertions for the kg tests (real models, no doubles)."""

from __future__ import annotations

from lexlogic.engine.kg.model import (
    AssertionKind,
    DiscursiveBasis,
    EvidenceBundle,
    EvidenceSpan,
    ExtractionMethod,
    RawAssertion,
    RelationType,
)


def span(text: str, doc: str = "d1", section: str = "s1", start: int = 0) -> EvidenceSpan:
    return EvidenceSpan(doc_id=doc, section=section, char_start=start, char_end=start + len(text), text=text)


def explicit(
    s: str = "lease",
    r: RelationType = RelationType.REQUIRES,
    o: str = "insurance",
    doc: str = "d1",
    section: str = "s1",
    text: str | None = None,
    method: ExtractionMethod = ExtractionMethod.PATTERN,
) -> RawAssertion:
    return RawAssertion(
        subject=s,
        relation=r,
        object=o,
        kind=AssertionKind.EXPLICIT,
        method=method,
        bundle=EvidenceBundle(spans=(span(text or f"The {s} requires {o}.", doc, section),)),
    )


def discursive(
    s: str = "euros",
    r: RelationType = RelationType.ALTERNATIVE_TO,
    o: str = "dollars",
    basis: DiscursiveBasis = DiscursiveBasis.ALTERNATIVE,
    text: str | None = None,
    markers: tuple[str, ...] = ("or",),
    doc: str = "d1",
    section: str = "s1",
    method: ExtractionMethod = ExtractionMethod.PATTERN,
    extra_spans: tuple[EvidenceSpan, ...] = (),
    anchor: str | None = None,
    complete: bool | None = None,
) -> RawAssertion:
    text = text or f"Payment may be made in {s} or in {o}."
    return RawAssertion(
        subject=s,
        relation=r,
        object=o,
        kind=AssertionKind.DISCURSIVE,
        basis=basis,
        method=method,
        bundle=EvidenceBundle(spans=(span(text, doc, section),) + extra_spans),
        markers=markers,
        anchor=anchor,
        enumeration_complete=complete,
    )
