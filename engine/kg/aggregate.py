"""Layer 2: fold the journal into canonical relations (one per normalised subject/relation/object).

Incremental (``add`` one assertion at a time) so ingestion and promotion stay linear; every count is a
set size or a sum, hence only ever grows as support is added — the basis of monotone promotion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lexlogic.engine.kg.model import (
    AssertionKind,
    CanonicalRelation,
    ExtractionMethod,
    RawAssertion,
    RelationType,
    SupportStrength,
)
from lexlogic.engine.kg.tiers import basis_weakness, strength_of


@dataclass(slots=True)
class Accumulator:
    """Running support of one canonical relation."""

    subject: str
    relation: RelationType
    object: str
    assertion_ids: list[str] = field(default_factory=list)
    explicit_count: int = 0
    discursive_count: int = 0
    docs: set[str] = field(default_factory=set)
    sections: set[tuple[str, str]] = field(default_factory=set)
    diversity: float = 0.0
    discursive_sections: set[tuple[str, str]] = field(default_factory=set)  # primary sections
    strong_count: int = 0
    strong_sections: set[tuple[str, str]] = field(default_factory=set)
    methods: set[ExtractionMethod] = field(default_factory=set)

    def add(self, a: RawAssertion, admitted: bool = False) -> None:
        """Fold one assertion in. ``admitted=True`` (the journal's constraint check already passed) lets the
        strength test skip the method/whitelist gates it would only re-confirm (see tiers.basis_weakness)."""
        self.assertion_ids.append(a.id)
        self.methods.add(a.method)
        spans = a.bundle.spans
        if len(spans) == 1:  # the common case, without building sets
            span = spans[0]
            primary = (span.doc_id, span.section)
            self.docs.add(span.doc_id)
            self.sections.add(primary)
            diversity = 1 / 3
        else:
            sections = {(s.doc_id, s.section) for s in spans}
            self.sections |= sections
            self.docs.update(doc for doc, _ in sections)
            diversity = min(1.0, len(sections) / 3)
            primary = (spans[0].doc_id, spans[0].section)
        if diversity > self.diversity:
            self.diversity = diversity
        if a.kind is AssertionKind.EXPLICIT:
            self.explicit_count += 1
            return
        self.discursive_count += 1
        self.discursive_sections.add(primary)
        strong = basis_weakness(a) is None if admitted else strength_of(a)[0]
        if strong:
            self.strong_count += 1
            self.strong_sections.add(primary)

    def strength(self) -> SupportStrength:
        return SupportStrength(
            support_count=self.explicit_count + self.discursive_count,
            explicit_count=self.explicit_count,
            discursive_count=self.discursive_count,
            doc_coverage=len(self.docs),
            distinct_sections=len(self.sections),
            bundle_diversity=self.diversity,
        )

    def canonical(self) -> CanonicalRelation:
        return CanonicalRelation(
            subject=self.subject,
            relation=self.relation,
            object=self.object,
            assertion_ids=list(self.assertion_ids),
            strength=self.strength(),
        )


class Aggregator:
    """Deduplicates the journal by canonical key and keeps the support of each key."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, RelationType, str], Accumulator] = {}
        # raw (subject, relation value, object) → its accumulator: a repeated spelling skips normalisation
        # and the Python-level hashing of the RelationType enum (both showed in the ingest profile)
        self._by_raw: dict[tuple[str, str, str], Accumulator] = {}

    def _accumulator(self, a: RawAssertion) -> Accumulator:
        raw = (a.subject, a.relation._value_, a.object)  # _value_: documented Enum attribute, no property call
        acc = self._by_raw.get(raw)
        if acc is None:
            key = a.key
            acc = self.by_key.get(key)
            if acc is None:
                acc = self.by_key[key] = Accumulator(*key)
            self._by_raw[raw] = acc
        return acc

    def add(self, assertion: RawAssertion) -> Accumulator:
        acc = self._accumulator(assertion)
        acc.add(assertion)
        return acc

    def add_all(self, assertions: Iterable[RawAssertion]) -> Aggregator:
        for a in assertions:
            self._accumulator(a).add(a)
        return self

    def add_admitted(self, assertions: Iterable[RawAssertion]) -> Aggregator:
        """Fold assertions the journal has just admitted (every one passed ``constraints.check``)."""
        accumulator = self._accumulator
        for a in assertions:
            accumulator(a).add(a, True)
        return self

    def canonical_relations(self) -> list[CanonicalRelation]:
        return [acc.canonical() for acc in self.by_key.values()]

    def __len__(self) -> int:
        return len(self.by_key)


def aggregate(assertions: Iterable[RawAssertion]) -> Aggregator:
    return Aggregator().add_all(assertions)
