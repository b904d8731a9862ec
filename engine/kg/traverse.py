"""Traversal of the semantic layer: tiers, escalation, grade on every edge, no transitivity through DISCURSIVE.

- ``allowed_tiers`` defaults to {STRICT}; 'extended' is {STRICT, EXTENDED}; EXPERIMENTAL (inferred edges)
  only when asked for explicitly.
- ``query`` may escalate STRICT → EXTENDED → anchored text (quoted spans that mention the entity), and
  says which level answered.
- Each traversed edge carries its grade and tier; a DISCURSIVE edge is never shown as EXPLICIT
  (``Graph.add`` refuses a relation whose grade disagrees with its support).
- ``infer_transitive`` composes chains of one transitive type through EXPLICIT/MIXED edges only; the
  single writer of INFERRED edges (``make_inferred``) refuses any path containing a DISCURSIVE edge.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Literal

from pydantic import BaseModel, Field

from lexlogic.engine.kg.model import (
    DefensibilityTier,
    EvidenceSpan,
    ExtractionMethod,
    RelationType,
    SemanticGrade,
    SemanticRelation,
    SupportStrength,
    normalize_entity,
    relation_id,
)
from lexlogic.engine.kg.tiers import grade_of
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list

STRICT_ONLY: frozenset[DefensibilityTier] = frozenset({DefensibilityTier.STRICT})
EXTENDED: frozenset[DefensibilityTier] = frozenset({DefensibilityTier.STRICT, DefensibilityTier.EXTENDED})
TIER_SETS = {"strict": STRICT_ONLY, "extended": EXTENDED, "experimental": frozenset(DefensibilityTier)}
TRANSITIVE: frozenset[RelationType] = frozenset(
    {RelationType.REQUIRES, RelationType.REPLACES, RelationType.CAUSES, RelationType.ENABLES}
)
Direction = Literal["out", "in", "both"]


class GradeViolation(LexlogicError, ValueError):
    """A relation whose grade does not match its support (a silent upgrade) or an illegal inference."""


class TraversedEdge(BaseModel):
    relation_id: str
    source: str  # where the walk came from
    target: str  # where it went
    relation: RelationType
    reversed: bool  # walked object → subject
    depth: int
    grade: SemanticGrade
    tier: DefensibilityTier


class QueryResult(BaseModel):
    entity: str
    level: Literal["STRICT", "EXTENDED", "EXPERIMENTAL", "TEXT", "NONE"]
    allowed_tiers: list[DefensibilityTier]
    tried: list[str] = Field(default_factory=new_list)
    edges: list[TraversedEdge] = Field(default_factory=new_list)
    passages: list[EvidenceSpan] = Field(default_factory=new_list)


def check_grade(rel: SemanticRelation) -> None:
    """No silent upgrade: the grade must be what the support says (INFERRED edges: by their premises)."""
    if ExtractionMethod.INFERRED in rel.methods:
        if rel.tier is not DefensibilityTier.EXPERIMENTAL or not rel.derived_from:
            raise GradeViolation(f"{rel.id}: an INFERRED edge is EXPERIMENTAL and names its premises")
        return
    expected = grade_of(rel.strength.explicit_count, rel.strength.discursive_count)
    if rel.grade is not expected:
        raise GradeViolation(f"{rel.id}: grade {rel.grade.value} but support says {expected.value}")
    if rel.grade is SemanticGrade.DISCURSIVE and rel.tier is DefensibilityTier.STRICT and not rel.tier_reason:
        raise GradeViolation(f"{rel.id}: DISCURSIVE STRICT edge without its tier justification")


class Graph:
    """In-memory adjacency over semantic relations (the only traversable layer)."""

    def __init__(self, relations: Iterable[SemanticRelation] = ()) -> None:
        self.relations: dict[str, SemanticRelation] = {}
        self._out: dict[str, list[SemanticRelation]] = {}
        self._in: dict[str, list[SemanticRelation]] = {}
        for rel in relations:
            self.add(rel)

    def add(self, rel: SemanticRelation) -> None:
        if not isinstance(rel, SemanticRelation):  # bundles, raw and canonical relations justify, never traverse
            raise TypeError(f"only SemanticRelation is traversable, not {type(rel).__name__}")
        check_grade(rel)
        if rel.id in self.relations:
            old = self.relations[rel.id]
            self._out[old.subject].remove(old)
            self._in[old.object].remove(old)
        self.relations[rel.id] = rel
        self._out.setdefault(rel.subject, []).append(rel)
        self._in.setdefault(rel.object, []).append(rel)

    def __len__(self) -> int:
        return len(self.relations)

    def entities(self) -> set[str]:
        return set(self._out) | set(self._in)

    def steps(
        self, entity: str, tiers: frozenset[DefensibilityTier], direction: Direction = "both"
    ) -> Iterable[tuple[SemanticRelation, str, bool]]:
        """(edge, neighbour, reversed?) for every edge of an allowed tier at ``entity``."""
        if direction in ("out", "both"):
            for rel in self._out.get(entity, ()):
                if rel.tier in tiers:
                    yield rel, rel.object, False
        if direction in ("in", "both"):
            for rel in self._in.get(entity, ()):
                if rel.tier in tiers:
                    yield rel, rel.subject, True

    def traverse(
        self,
        entity: str,
        allowed_tiers: frozenset[DefensibilityTier] = STRICT_ONLY,
        max_depth: int = 3,
        direction: Direction = "both",
    ) -> list[TraversedEdge]:
        """Breadth-first walk; each edge reported once, at the depth it was first reached."""
        start = normalize_entity(entity)
        seen_nodes = {start}
        seen_edges: set[str] = set()
        edges: list[TraversedEdge] = []
        frontier = deque([(start, 0)])
        while frontier:
            node, depth = frontier.popleft()
            if depth >= max_depth:
                continue
            for rel, nxt, rev in self.steps(node, allowed_tiers, direction):
                if rel.id in seen_edges:
                    continue
                seen_edges.add(rel.id)
                edges.append(
                    TraversedEdge(
                        relation_id=rel.id,
                        source=node,
                        target=nxt,
                        relation=rel.relation,
                        reversed=rev,
                        depth=depth + 1,
                        grade=rel.grade,
                        tier=rel.tier,
                    )
                )
                if nxt not in seen_nodes:
                    seen_nodes.add(nxt)
                    frontier.append((nxt, depth + 1))
        return edges

    def paths(
        self,
        source: str,
        target: str,
        allowed_tiers: frozenset[DefensibilityTier] = STRICT_ONLY,
        max_depth: int = 3,
        relation: RelationType | None = None,
    ) -> list[list[SemanticRelation]]:
        """Every simple directed path source → target (optionally of one relation type)."""
        src, dst = normalize_entity(source), normalize_entity(target)
        found: list[list[SemanticRelation]] = []

        def walk(node: str, path: list[SemanticRelation], visited: set[str]) -> None:
            if node == dst and path:
                found.append(list(path))
                return
            if len(path) >= max_depth:
                return
            for rel, nxt, _ in self.steps(node, allowed_tiers, "out"):
                if (relation is None or rel.relation is relation) and nxt not in visited:
                    path.append(rel)
                    walk(nxt, path, visited | {nxt})
                    path.pop()

        walk(src, [], {src})
        return found


def query(
    graph: Graph,
    entity: str,
    tiers: frozenset[DefensibilityTier] = STRICT_ONLY,
    max_depth: int = 3,
    escalate: bool = False,
    text_search: Callable[[str], list[EvidenceSpan]] | None = None,
    direction: Direction = "both",
) -> QueryResult:
    """Answer from the allowed tiers; with ``escalate``, widen STRICT → EXTENDED → anchored text."""
    ladder: list[tuple[str, frozenset[DefensibilityTier]]] = [("REQUESTED", tiers)]
    if escalate:
        if tiers == STRICT_ONLY:
            ladder.append(("EXTENDED", EXTENDED))
    tried: list[str] = []
    for _, allowed in ladder:
        level = _level(allowed)
        tried.append(level)
        edges = graph.traverse(entity, allowed, max_depth, direction)
        if edges:
            return QueryResult(
                entity=normalize_entity(entity), level=level, allowed_tiers=_sorted(allowed), tried=tried, edges=edges
            )
    if escalate and text_search is not None:
        tried.append("TEXT")
        passages = text_search(entity)
        if passages:
            return QueryResult(
                entity=normalize_entity(entity),
                level="TEXT",
                allowed_tiers=_sorted(ladder[-1][1]),
                tried=tried,
                passages=passages,
            )
    return QueryResult(entity=normalize_entity(entity), level="NONE", allowed_tiers=_sorted(ladder[-1][1]), tried=tried)


def _level(tiers: frozenset[DefensibilityTier]) -> Literal["STRICT", "EXTENDED", "EXPERIMENTAL"]:
    if DefensibilityTier.EXPERIMENTAL in tiers:
        return "EXPERIMENTAL"
    return "EXTENDED" if DefensibilityTier.EXTENDED in tiers else "STRICT"


def _sorted(tiers: frozenset[DefensibilityTier]) -> list[DefensibilityTier]:
    return sorted(tiers, key=lambda t: list(DefensibilityTier).index(t))


def make_inferred(path: list[SemanticRelation]) -> SemanticRelation:
    """The only writer of INFERRED edges. Refuses a path with a DISCURSIVE edge (no transitivity through it),
    a path of mixed relation types, or a path of a non-transitive type."""
    if len(path) < 2:
        raise GradeViolation("an inference needs a path of at least two edges")
    if any(r.grade is SemanticGrade.DISCURSIVE for r in path):
        raise GradeViolation(
            "no transitivity through a DISCURSIVE edge: "
            + ", ".join(r.id for r in path if r.grade is SemanticGrade.DISCURSIVE)
        )
    if any(ExtractionMethod.INFERRED in r.methods for r in path):
        raise GradeViolation("no inference from inferred edges (no chains of guesses)")
    kinds = {r.relation for r in path}
    if len(kinds) != 1 or next(iter(kinds)) not in TRANSITIVE:
        raise GradeViolation(f"not a chain of one transitive relation type: {sorted(k.value for k in kinds)}")
    for a, b in zip(path, path[1:]):
        if a.object != b.subject:
            raise GradeViolation(f"not a path: {a.id} then {b.id}")
    rel = path[0].relation
    grade = SemanticGrade.EXPLICIT if all(r.grade is SemanticGrade.EXPLICIT for r in path) else SemanticGrade.MIXED
    return SemanticRelation(
        id=relation_id(path[0].subject, rel, path[-1].object) + "|inferred",
        subject=path[0].subject,
        relation=rel,
        object=path[-1].object,
        grade=grade,
        tier=DefensibilityTier.EXPERIMENTAL,
        methods=[ExtractionMethod.INFERRED],
        strength=SupportStrength(),
        derived_from=[r.id for r in path],
        tier_reason="INFERRED by transitivity: EXPERIMENTAL, never STRICT",
    )


def infer_transitive(graph: Graph, max_depth: int = 3) -> list[SemanticRelation]:
    """Candidate INFERRED edges: chains (2..max_depth) of one transitive type over non-DISCURSIVE edges."""
    usable = frozenset(DefensibilityTier) - {DefensibilityTier.EXPERIMENTAL}
    out: dict[str, SemanticRelation] = {}
    for rel in list(graph.relations.values()):
        if (
            rel.relation not in TRANSITIVE
            or rel.grade is SemanticGrade.DISCURSIVE
            or ExtractionMethod.INFERRED in rel.methods
        ):
            continue
        stack: list[list[SemanticRelation]] = [[rel]]
        while stack:
            path = stack.pop()
            if len(path) >= 2:
                direct = relation_id(path[0].subject, rel.relation, path[-1].object)
                if direct not in graph.relations and path[0].subject != path[-1].object:
                    inferred = make_inferred(path)
                    out.setdefault(inferred.id, inferred)
            if len(path) >= max_depth:
                continue
            seen = {path[0].subject} | {r.object for r in path}
            for nxt, _, _ in graph.steps(path[-1].object, usable, "out"):
                if (
                    nxt.relation is rel.relation
                    and nxt.grade is not SemanticGrade.DISCURSIVE
                    and ExtractionMethod.INFERRED not in nxt.methods
                    and nxt.object not in seen
                ):
                    stack.append(path + [nxt])
    return list(out.values())
