"""The case ontology: who (actors), what happened (events), what proves it (evidence), and the
narrative graph that links facts, evidence and rule applications across worlds.

Pydantic models so the same classes validate LLM output (``json_schema()``) and persist as JSON.
The narrative graph is a DAG: ``add_edge`` refuses an edge that would close a cycle, because a fact
that (transitively) supports itself is a reasoning bug, not data.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import date as Date  # noqa: N812 - the field is named date
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field, field_validator

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import World
from lexlogic.logic.grounding import Grounding


def new_id() -> str:
    return str(uuid.uuid4())


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
    grounding: list[Grounding] = Field(default_factory=list)


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
    actors: list[str] = Field(default_factory=list, description="actor ids")
    grounding: list[Grounding] = Field(default_factory=list)


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


class NodeType(str, Enum):
    FACT = "FACT"
    EVIDENCE = "EVIDENCE"
    RULE_APP = "RULE_APP"


class Possibility(BaseModel):
    """One possible value of a node and its probability (not a pack outcome: a value a node may take)."""

    value: Any
    p: float = Field(ge=0.0, le=1.0)


class Distribution(BaseModel):
    """A discrete distribution over a node's values (a point mass for certain facts)."""

    outcomes: list[Possibility]

    @field_validator("outcomes")
    @classmethod
    def _sums_to_one(cls, v: list[Possibility]) -> list[Possibility]:
        total = sum(o.p for o in v)
        if v and abs(total - 1.0) > 1e-6:
            raise ValueError(f"probabilities sum to {total}, not 1")
        return v

    @classmethod
    def point(cls, value: Any) -> Distribution:
        return cls(outcomes=[Possibility(value=value, p=1.0)])

    def mode(self) -> Any:
        return max(self.outcomes, key=lambda o: o.p).value if self.outcomes else None


class NarrativeNode(BaseModel):
    id: str = Field(default_factory=new_id)
    type: NodeType
    label: str = ""
    fact: str | None = Field(default=None, description="fact name in the pack's vocabulary (FACT nodes)")
    rule_id: str | None = Field(default=None, description="RULE_APP nodes: the rule applied")
    evidence_id: str | None = Field(default=None, description="EVIDENCE nodes: the Evidence")
    world: World = World.SHARED
    distribution: Distribution | None = None
    grounding: list[Grounding] = Field(default_factory=list)
    ambiguity: str | None = Field(default=None, description="id of the ambiguity this node is a reading of")


class Edge(BaseModel):
    source: str
    target: str
    relation: str = "supports"


class CycleError(LexlogicError, ValueError):
    """An edge would make the narrative graph cyclic."""


class NarrativeGraph(BaseModel):
    nodes: dict[str, NarrativeNode] = Field(default_factory=dict)
    edges: list[Edge] = Field(default_factory=list)

    def add(self, node: NarrativeNode) -> NarrativeNode:
        self.nodes[node.id] = node
        return node

    def children(self, node_id: str) -> list[str]:
        return [e.target for e in self.edges if e.source == node_id]

    def _reaches(self, start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            n = todo.pop()
            if n == goal:
                return True
            if n in seen:
                continue
            seen.add(n)
            todo.extend(self.children(n))
        return False

    def add_edge(self, source: str, target: str, relation: str = "supports") -> None:
        for n in (source, target):
            if n not in self.nodes:
                raise KeyError(f"unknown node {n}")
        if source == target or self._reaches(target, source):
            raise CycleError(f"edge {source} -> {target} would create a cycle")
        self.edges.append(Edge(source=source, target=target, relation=relation))

    def topological_order(self) -> list[str]:
        indeg = {n: 0 for n in self.nodes}
        for e in self.edges:
            indeg[e.target] += 1
        ready = sorted(n for n, d in indeg.items() if d == 0)
        out: list[str] = []
        while ready:
            n = ready.pop(0)
            out.append(n)
            for c in self.children(n):
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        return out

    def facts(self, world: World | None = None) -> Iterator[NarrativeNode]:
        for n in self.nodes.values():
            if n.type is NodeType.FACT and (world is None or n.world in (world, World.SHARED)):
                yield n


class CaseOntology(BaseModel):
    """Everything perception knows about a case, before any rule is applied."""

    actors: list[Actor] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    graph: NarrativeGraph = Field(default_factory=NarrativeGraph)


def json_schema() -> dict[str, Any]:
    """JSON Schema of the ontology (used to constrain LLM output)."""
    return CaseOntology.model_json_schema()
