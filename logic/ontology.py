"""The case ontology: who (actors), what happened (events), what proves it (evidence).

Pydantic models so the same classes validate LLM output (``json_schema()``) and persist as JSON.
(The narrative graph that once linked facts to evidence here was written and never read: the findings
carry their own grounding, and the argument graph is built from the verdict.)
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date as Date  # noqa: N812 - the field is named date
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list

_STABLE: ContextVar[tuple[str, Iterator[int]] | None] = ContextVar("lexlogic_stable_ids", default=None)
_NAMESPACE = uuid.UUID("5b2a3f0e-34a1-4c1e-9d1a-6c6578696f67")


def new_id() -> str:
    """A fresh id: random, or inside ``stable_ids(seed)`` the next of a sequence fixed by the seed."""
    stable = _STABLE.get()
    if stable is None:
        return str(uuid.uuid4())
    seed, counter = stable
    return str(uuid.uuid5(_NAMESPACE, f"{seed}:{next(counter)}"))


@contextmanager
def stable_ids(seed: str) -> Iterator[None]:
    """Ids drawn in a fixed order from ``seed`` (the documents' digests): the same documents read twice give
    the same ids, so two runs of one dossier — one of them resumed — persist identical states and hashes."""
    token = _STABLE.set((seed, itertools.count()))
    try:
        yield
    finally:
        _STABLE.reset(token)


class PersonKind(str, Enum):
    NATURAL = "natural"
    LEGAL = "legal"


class Actor(BaseModel):
    id: str = Field(default_factory=new_id)
    name: str
    kind: PersonKind = PersonKind.LEGAL
    seat: str | None = Field(default=None, description="registered office (legal person) or address")
    role: str | None = Field(default=None, description="claimant | defendant | supplier | distributor | ...")
    status: str | None = Field(default=None, description="legal form or status, e.g. SAS, SARL")
    grounding: list[Grounding] = Field(default_factory=new_list)


class EventKind(str, Enum):
    """Neutral kinds of dated events; what an event means in law (a termination, a late payment) is the
    pack's business, written in the event's description."""

    SIGNATURE = "signature"
    ORDER = "order"
    NOTIFICATION = "notification"
    TERMINATION = "termination"
    FORMAL_NOTICE = "formal_notice"
    CLAIM = "claim"
    OTHER = "other"


class Event(BaseModel):
    id: str = Field(default_factory=new_id)
    kind: EventKind
    date: Date | None = Field(default=None, description="normalised ISO date")
    timestamp: datetime | None = None
    description: str = ""
    actors: list[str] = Field(default_factory=new_list, description="actor ids")
    grounding: list[Grounding] = Field(default_factory=new_list)


class EvidenceKind(str, Enum):
    CONTRACT = "contract"
    EMAIL = "email"
    LETTER = "letter"
    INVOICE = "invoice"
    LOG = "log"
    ORDER_HISTORY = "order_history"
    FORMAL_NOTICE = "formal_notice"
    NOTE = "note"
    OTHER = "other"


class Evidence(BaseModel):
    id: str = Field(default_factory=new_id)
    kind: EvidenceKind
    document_id: str
    title: str | None = None
    date: Date | None = None
    sha256: str | None = None


class CaseOntology(BaseModel):
    """Everything perception knows about a case, before any rule is applied."""

    actors: list[Actor] = Field(default_factory=new_list)
    events: list[Event] = Field(default_factory=new_list)
    evidence: list[Evidence] = Field(default_factory=new_list)


def json_schema() -> dict[str, Any]:
    """JSON Schema of the ontology (used to constrain LLM output)."""
    return CaseOntology.model_json_schema()
