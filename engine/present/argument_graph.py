"""The argument graph of a case, derived from its proof trees (one per narrative).

Nodes: facts (circles), rules and computations (diamonds), evidence spans (squares), the verdict.
Edges: inference (premise → conclusion), grounds (evidence → fact), contradiction (two readings of one
fact in different narratives). A node seen in several narratives carries all their tags; certainty is
the fact's extraction confidence (evidence 1, a missing fact 0, a default 0.5) and, for a rule, the
least certain of the premises it used. ``critical`` marks the decisive path of the main narrative:
from the verdict, the premises that hold when the conclusion holds, the failing ones when it fails.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.logic.facts import CaseFile
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import NodeKind, ProofNode

Shape = Literal["circle", "diamond", "square"]


class GraphNode(BaseModel):
    id: str = Field(examples=["fact:some_fact"])
    kind: Literal["verdict", "rule", "fact", "evidence"]
    shape: Shape
    label: str
    atom: str | None = None
    proof_kind: str | None = Field(default=None, description="the ProofNode kind (rule, computed, fact, missing…)")
    holds: bool = True
    value: Any = None
    worlds: list[str] = Field(description="narratives this node appears in: SHARED, NARRATIVE_A, NARRATIVE_B")
    narrative: Literal["A", "B", "shared"] = Field(description="colour: A blue, B red, shared neutral")
    certainty: float = Field(ge=0, le=1)
    critical: bool = False
    rule_id: str | None = None
    sources: list[str] = Field(default_factory=new_list, description="legal sources cited")
    document_id: str | None = None
    page: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    quote: str | None = None


class GraphEdge(BaseModel):
    id: str
    source: str
    target: str
    kind: Literal["inference", "grounds", "contradiction"]
    worlds: list[str]
    critical: bool = False


class ArgumentGraph(BaseModel):
    case_id: str
    main_world: str
    verdict_node: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]


def _base(atom: str) -> str:
    return atom.split("(")[0].removeprefix("not ").strip()


def _node_id(n: ProofNode, root: bool) -> str:
    if root:
        return "verdict"
    if n.kind in (NodeKind.FACT, NodeKind.MISSING):
        return f"fact:{n.atom}"
    if n.kind is NodeKind.ASSUMPTION and not n.children:
        return f"fact:{n.atom}"
    return f"rule:{n.atom}:{n.rule_id or n.kind.value}"


def _reading(case: CaseFile, atom: str) -> tuple[float, str]:
    """(confidence, world) of the fact behind ``atom`` in this narrative's case file."""
    fv = case.facts.get(_base(atom))
    return (float(fv.confidence), fv.world.value) if fv is not None else (0.5, "SHARED")


def build_graph(
    case_id: str, worlds: list[tuple[str, float, CaseFile, dict[str, Any]]], main_world: str
) -> ArgumentGraph:
    nodes: dict[str, GraphNode] = {}
    edges: dict[str, GraphEdge] = {}
    fact_world: dict[str, set[str]] = {}

    def add_edge(src: str, dst: str, kind: str, world: str) -> str:
        eid = f"{kind}:{src}->{dst}"
        e = edges.get(eid)
        if e is None:
            edges[eid] = GraphEdge(id=eid, source=src, target=dst, kind=kind, worlds=[world])  # type: ignore[arg-type]
        elif world not in e.worlds:
            e.worlds.append(world)
        return eid

    def visit(n: ProofNode, world: str, case: CaseFile, root: bool) -> tuple[str, float]:
        nid = _node_id(n, root)
        child_cert = [visit(c, world, case, False) for c in n.children]
        if nid.startswith("fact:"):
            if n.kind is NodeKind.MISSING:
                cert, tag = 0.0, "SHARED"
            elif n.kind is NodeKind.ASSUMPTION:
                cert, tag = 0.5, "SHARED"
            else:
                cert, tag = _reading(case, n.atom)
            fact_world.setdefault(nid, set()).add(tag)
        else:
            cert = min((c for _, c in child_cert), default=1.0)
        node = nodes.get(nid)
        if node is None:
            kind = "verdict" if root else ("fact" if nid.startswith("fact:") else "rule")
            node = GraphNode(
                id=nid,
                kind=kind,
                shape="circle" if kind == "fact" else "diamond",
                label=n.label or n.atom,
                atom=n.atom,
                proof_kind=n.kind.value,
                holds=n.holds,
                value=n.value if isinstance(n.value, (str, int, float, bool, type(None), list)) else str(n.value),
                worlds=[world],
                narrative="shared",
                certainty=round(cert, 4),
                rule_id=n.rule_id,
                sources=[s.cite() for s in n.sources],
            )
            nodes[nid] = node
        else:
            if world not in node.worlds:
                node.worlds.append(world)
            node.certainty = round(min(node.certainty, cert), 4)
        for cid, _ in child_cert:
            add_edge(cid, nid, "inference", world)
        for g in n.grounding:
            if g.document_id is None or g.char_start is None:
                continue
            eid = f"ev:{g.document_id}:{g.char_start}-{g.char_end}"
            ev = nodes.get(eid)
            if ev is None:
                quote = (g.quote or "").replace("\n", " ")
                nodes[eid] = GraphNode(
                    id=eid,
                    kind="evidence",
                    shape="square",
                    label=(quote[:60] + "…") if len(quote) > 60 else quote,
                    worlds=[world],
                    narrative="shared",
                    certainty=1.0,
                    document_id=g.document_id,
                    page=g.page,
                    char_start=g.char_start,
                    char_end=g.char_end,
                    quote=g.quote,
                )
            elif world not in ev.worlds:
                ev.worlds.append(world)
            add_edge(eid, nid, "grounds", world)
        return nid, cert

    roots: dict[str, ProofNode] = {}
    for world, _, case, analysis in worlds:
        target = next(iter(analysis.get("outcomes", {})), None)
        raw = analysis["outcomes"][target]["proof"] if target else None
        if raw is None:
            continue
        root = ProofNode.model_validate(raw)
        roots[world] = root
        visit(root, world, case, True)

    # colours: a node seen only in one narrative (or grounded in a narrative's reading) takes its colour
    multi = len(worlds) > 1
    for nid, node in nodes.items():
        tags = fact_world.get(nid, set())
        if "NARRATIVE_A" in tags or (multi and node.worlds == ["NARRATIVE_A"]):
            node.narrative = "A"
        elif "NARRATIVE_B" in tags or (multi and node.worlds == ["NARRATIVE_B"]):
            node.narrative = "B"

    # contradictions: one fact, different readings in different narratives
    by_fact: dict[str, list[GraphNode]] = {}
    for node in nodes.values():
        if node.kind == "fact" and node.atom:
            by_fact.setdefault(_base(node.atom), []).append(node)
    for group in by_fact.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if a.narrative != b.narrative and {a.narrative, b.narrative} == {"A", "B"}:
                    eid = f"contradiction:{a.id}<->{b.id}"
                    edges[eid] = GraphEdge(
                        id=eid,
                        source=a.id,
                        target=b.id,
                        kind="contradiction",
                        worlds=sorted(set(a.worlds) | set(b.worlds)),
                    )

    # the critical path of the main narrative
    main = roots.get(main_world)
    if main is not None:

        def mark(n: ProofNode, root: bool) -> None:
            nid = _node_id(n, root)
            nodes[nid].critical = True
            for c in n.children:
                if c.holds == n.holds or n.kind is NodeKind.ASSUMPTION:
                    edges[f"inference:{_node_id(c, False)}->{nid}"].critical = True
                    mark(c, False)
            for g in n.grounding:
                eid = f"ev:{g.document_id}:{g.char_start}-{g.char_end}"
                if eid in nodes:
                    nodes[eid].critical = True
                    edges[f"grounds:{eid}->{nid}"].critical = True

        mark(main, True)
    return ArgumentGraph(
        case_id=case_id,
        main_world=main_world,
        verdict_node="verdict",
        nodes=list(nodes.values()),
        edges=list(edges.values()),
    )
