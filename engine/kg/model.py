"""The data model of the evidence graph: enums, evidence, and the three layers.

RawAssertion is frozen (the journal is append-only and its entries immutable). Canonical and semantic
relations are derived, recomputable views of the journal; only SemanticRelation is traversable.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lexlogic.logic import yaml_load
from lexlogic.logic.grounding import Grounding, SourceKind
from lexlogic.logic.model_defaults import new_list


class AssertionKind(str, Enum):
    EXPLICIT = "EXPLICIT"  # the text states the relation
    DISCURSIVE = "DISCURSIVE"  # the relation is carried by discourse structure (or, by default, unless...)


class DiscursiveBasis(str, Enum):
    """Closed set: the discourse device that carries a DISCURSIVE assertion."""

    ALTERNATIVE = "ALTERNATIVE"
    DEFAULT = "DEFAULT"
    EXCEPTION = "EXCEPTION"
    SCOPE = "SCOPE"
    COREF = "COREF"
    ENUMERATION = "ENUMERATION"


class DiscursiveAbstainReason(str, Enum):
    """Every abstention names one of these (an unmotivated abstain breaks the sentinel)."""

    WEAK_BUNDLE = "WEAK_BUNDLE"
    SCOPE_BREAK = "SCOPE_BREAK"
    COREF_UNRESOLVED = "COREF_UNRESOLVED"
    TYPE2_RISK = "TYPE2_RISK"
    WHITELIST_VIOLATION = "WHITELIST_VIOLATION"
    AMBIGUOUS_PREDICATE = "AMBIGUOUS_PREDICATE"
    # speech act and modality (issue 23): the text mentions the relation without asserting it
    REPORTED_SPEECH = "REPORTED_SPEECH"
    QUOTATION = "QUOTATION"
    NEGATION = "NEGATION"
    HYPOTHESIS = "HYPOTHESIS"
    QUESTION = "QUESTION"
    INTENTION = "INTENTION"


class ExtractionMethod(str, Enum):
    PATTERN = "PATTERN"
    LLM = "LLM"
    HYBRID = "HYBRID"  # the pattern proposed, the LLM confirmed
    INFERRED = "INFERRED"  # derived by transitivity; semantic layer only


_CORE_RELATIONS = (
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
)
ONTOLOGY_FILE = Path(__file__).with_name("data") / "ontology.yaml"


def _declared_relations() -> tuple[str, ...]:
    """The relation types of the shared domain ontology (data), after the ten core (discursive) ones."""
    data = yaml_load.safe_load(ONTOLOGY_FILE.read_text(encoding="utf-8")) or {}
    names = [str(n) for n in (data.get("relations") or {})]
    return tuple(n for n in names if n not in _CORE_RELATIONS)


if TYPE_CHECKING:

    class RelationType(str, Enum):
        """Core relation types; the domain ones are declared in data/ontology.yaml."""

        ALTERNATIVE_TO = "ALTERNATIVE_TO"
        APPLIES_TO = "APPLIES_TO"
        REQUIRES = "REQUIRES"
        REPLACES = "REPLACES"
        DEPRECATES = "DEPRECATES"
        CAUSES = "CAUSES"
        PREVENTS = "PREVENTS"
        MITIGATES = "MITIGATES"
        ENABLES = "ENABLES"
        DEFINES = "DEFINES"

else:
    # The ten core types of the discursive design (their whitelist rules are code, issue 9) followed by the
    # relation types a dispute turns on, declared as data in data/ontology.yaml (issue 23).
    RelationType = Enum(
        "RelationType",
        [(n, n) for n in _CORE_RELATIONS + _declared_relations()],
        type=str,
        module=__name__,
        qualname="RelationType",
    )


SYMMETRIC: frozenset[RelationType] = frozenset({RelationType.ALTERNATIVE_TO})
_SYMMETRIC_SEQ: tuple[RelationType, ...] = tuple(SYMMETRIC)


class SemanticGrade(str, Enum):
    EXPLICIT = "EXPLICIT"
    DISCURSIVE = "DISCURSIVE"
    MIXED = "MIXED"


class DefensibilityTier(str, Enum):
    STRICT = "STRICT"
    EXTENDED = "EXTENDED"
    EXPERIMENTAL = "EXPERIMENTAL"


# ---------------------------------------------------------------- evidence


class EvidenceSpan(BaseModel):
    """One quoted span with its section context (which section of which document it sits in)."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    section: str = Field(description="section context, e.g. 'Article 5 — Résiliation'; '' = document root")
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    text: str = Field(description="exact quoted text of the span")
    page: int | None = None

    def to_grounding(self) -> Grounding:
        """The shared provenance model, so proof trees can quote the span."""
        return Grounding(
            kind=SourceKind.DOCUMENT,
            document_id=self.doc_id,
            page=self.page,
            char_start=self.char_start,
            char_end=self.char_end,
            quote=self.text,
            note=f"section: {self.section}" if self.section else None,
        )


class EvidenceBundle(BaseModel):
    """The justification of one assertion: one or more spans. Justifies, is never traversed."""

    model_config = ConfigDict(frozen=True)

    spans: tuple[EvidenceSpan, ...] = Field(min_length=1)

    @property
    def sections(self) -> frozenset[tuple[str, str]]:
        return frozenset((s.doc_id, s.section) for s in self.spans)

    @property
    def diversity(self) -> float:
        """min(1, distinct sections / 3): a bundle drawn from three sections is fully diverse."""
        return min(1.0, len(self.sections) / 3)

    @property
    def text(self) -> str:
        spans = self.spans
        return spans[0].text if len(spans) == 1 else " … ".join(s.text for s in spans)


# ---------------------------------------------------------------- layer 1: the journal


def _new_id() -> str:
    return uuid.uuid4().hex


_WS = re.compile(r"\s+")
_LEADING_DET = re.compile(
    r"^(?:(?:the|a|an|any|each|every|all|this|these|those|le|la|les|un|une|des|du|de la|tout|toute|tous|toutes|"
    r"chaque|ce|cet|cette|ces)\s+|(?:l|de l|d)['’]\s*)",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def normalize_entity(name: str) -> str:
    """Canonical spelling of an entity: lower case, single spaces, no leading determiner or trailing punctuation."""
    text = _WS.sub(" ", name.strip().lower()).strip(" ,;:.!?«»\"'()")
    previous = None
    while previous != text:
        previous = text
        text = _LEADING_DET.sub("", text).strip()
    return text


class RawAssertion(BaseModel):
    """One observation: 'this bundle says subject -relation-> object'. Immutable once journaled."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(default_factory=_new_id)
    subject: str = Field(min_length=1)
    relation: RelationType
    object: str = Field(min_length=1)
    kind: AssertionKind
    basis: DiscursiveBasis | None = None
    method: ExtractionMethod
    bundle: EvidenceBundle
    markers: tuple[str, ...] = Field(
        default=(), description="cue words found in the evidence (or, par défaut, unless, must...)"
    )
    anchor: str | None = Field(default=None, description="SCOPE anchor or COREF resolution, documented")
    enumeration_complete: bool | None = Field(default=None, description="ENUMERATION: the list is closed")
    qualifier: str | None = Field(default=None, description="the carve-out of an EXCEPTION/DEFAULT ('unless ...')")
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    note: str | None = None

    @model_validator(mode="after")
    def _basis_iff_discursive(self) -> RawAssertion:
        if self.kind is AssertionKind.DISCURSIVE and self.basis is None:
            raise ValueError(
                "a DISCURSIVE assertion needs a basis (ALTERNATIVE, DEFAULT, EXCEPTION, SCOPE, COREF, ENUMERATION)"
            )
        if self.kind is AssertionKind.EXPLICIT and self.basis is not None:
            raise ValueError("an EXPLICIT assertion has no discursive basis")
        return self

    @property
    def key(self) -> tuple[str, RelationType, str]:
        return canonical_key(self.subject, self.relation, self.object)


def canonical_key(subject: str, relation: RelationType, obj: str) -> tuple[str, RelationType, str]:
    s, o = normalize_entity(subject), normalize_entity(obj)
    if o < s and any(relation is r for r in _SYMMETRIC_SEQ):  # identity test: enum hashing is slow
        s, o = o, s
    return (s, relation, o)


class Abstention(BaseModel):
    """The extractor saw a discursive cue and refused to assert; always with a reason."""

    model_config = ConfigDict(frozen=True)

    reason: DiscursiveAbstainReason
    detail: str = Field(min_length=1)
    span: EvidenceSpan
    candidate: str | None = Field(default=None, description="the relation it declined, e.g. 'a CAUSES b'")
    markers: tuple[str, ...] = ()
    attributed_to: str | None = Field(
        default=None, description="reported speech / quotation: the speaker the content is attributed to"
    )


class AttributedAssertion(BaseModel):
    """A relation the document reports as someone's claim ("alleged by X"): never the document's own
    statement, never journaled as a RawAssertion, so it can never be promoted (let alone STRICT).
    Claim verification and the packs' allegation states can read it."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(min_length=1)
    relation: RelationType
    object: str = Field(min_length=1)
    speaker: str = Field(min_length=1, description="who alleges it (the reporting clause's subject)")
    speech_act: DiscursiveAbstainReason = Field(description="REPORTED_SPEECH or QUOTATION")
    span: EvidenceSpan = Field(description="the whole sentence, reporting clause included")
    content_span: EvidenceSpan = Field(description="the reported content alone")
    cue: str

    @property
    def label(self) -> str:
        return f"{self.subject} {self.relation.value} {self.object} (alleged by {self.speaker})"


# ---------------------------------------------------------------- layer 2: canonical


class SupportStrength(BaseModel):
    support_count: int = 0
    explicit_count: int = 0
    discursive_count: int = 0
    doc_coverage: int = 0
    distinct_sections: int = 0
    bundle_diversity: float = 0.0  # max over the bundles


class CanonicalRelation(BaseModel):
    """All the assertions of one (subject, relation, object), deduplicated and counted."""

    subject: str
    relation: RelationType
    object: str
    assertion_ids: list[str] = Field(default_factory=new_list)
    strength: SupportStrength = Field(default_factory=SupportStrength)

    @property
    def key(self) -> tuple[str, RelationType, str]:
        return (self.subject, self.relation, self.object)


# ---------------------------------------------------------------- layer 3: semantic


def relation_id(subject: str, relation: RelationType, obj: str) -> str:
    return f"{subject}|{relation.value}|{obj}"


class SemanticRelation(BaseModel):
    """A promoted, traversable edge. Its grade and tier always travel with it."""

    id: str
    subject: str
    relation: RelationType
    object: str
    grade: SemanticGrade
    tier: DefensibilityTier
    methods: list[ExtractionMethod]
    strength: SupportStrength
    assertion_ids: list[str] = Field(default_factory=new_list)
    derived_from: list[str] = Field(default_factory=new_list, description="INFERRED: the premise edge ids")
    tier_reason: str = ""


class PromotionRecord(BaseModel):
    """One line of the promotion log: what was decided for a canonical relation, and on which metrics."""

    run_id: str
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    relation_id: str
    promoted: bool
    grade: SemanticGrade | None = None
    tier: DefensibilityTier | None = None
    strength: SupportStrength
    strong_discursive: int = 0
    strong_sections: int = 0
    reason: str
