"""What perception produces: findings (one reading of one fact, with grounding), ambiguity nodes,
and the conversion to the CASE FILE dict that `lexlogic analyze` consumes.

A plain dict is produced (the contract); ``validate_case_file`` checks it with the lead's
``logic.facts.parse_case`` when the pack is loadable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.ontology import CaseOntology, Distribution, NarrativeNode, NodeType, Possibility, World
from lexlogic.logic.facts import Allegation, DateInterval
from lexlogic.logic.grounding import Grounding

PACKS_DIR = (
    Path(__file__).resolve().parents[2] / "rules"
)  # the shipped packs (``engine.packs.rules_dir`` honours --rules)


class Finding(BaseModel):
    fact: str
    value: Any
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    world: World = World.SHARED
    grounding: list[Grounding] = Field(default_factory=list)
    note: str | None = None
    ambiguity: str | None = Field(default=None, description="id of the ambiguity node this reading belongs to")
    source: str = Field(
        default="offline", description="offline (structural readers) | offline:pack (the pack's per-fact reader) | llm"
    )
    allegation: Allegation | None = Field(default=None, description="alleged: only a party's own assertion")
    alleged_by: str | None = None
    interval: DateInterval | None = Field(default=None, description="a date known to the month or year only")


class Ambiguity(BaseModel):
    """An ambiguous statement: one branch (a Finding) per reading, each feeding a world."""

    id: str
    statement: Grounding
    question: str
    readings: list[Finding]


class Perception(BaseModel):
    findings: list[Finding] = Field(default_factory=list)
    ambiguities: list[Ambiguity] = Field(default_factory=list)
    ontology: CaseOntology = Field(default_factory=CaseOntology)
    conflicts: list[str] = Field(default_factory=list)

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)


def _g(g: Grounding) -> dict[str, Any]:
    return g.model_dump(mode="json", exclude_none=True)


def _reading(f: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "value": f.value,
        "confidence": round(f.confidence, 4),
        "world": f.world.value,
        "grounding": [_g(g) for g in f.grounding],
    }
    if f.note:
        out["note"] = f.note
    if f.allegation is not None:
        out["allegation"] = Allegation(f.allegation).value
        if f.alleged_by:
            out["alleged_by"] = f.alleged_by
    if f.interval is not None:
        out["interval"] = f.interval.model_dump(mode="json")
    return out


def merge_findings(perception: Perception) -> dict[str, dict[str, Any]]:
    """One FactValue per fact: ambiguity readings become alternatives; agreeing findings pool their
    grounding; a disagreement keeps the most confident reading and is recorded as a conflict."""
    by_fact: dict[str, list[Finding]] = {}
    for f in perception.findings:
        by_fact.setdefault(f.fact, []).append(f)
    facts: dict[str, dict[str, Any]] = {}
    for name, found in by_fact.items():
        amb = [f for f in found if f.ambiguity]
        plain = sorted((f for f in found if not f.ambiguity), key=lambda f: -f.confidence)
        if amb:
            amb.sort(key=lambda f: -f.confidence)
            head = _reading(amb[0])
            head["alternatives"] = [_reading(f) for f in amb[1:]]
            facts[name] = head
            continue
        best = plain[0]
        value = _reading(best)
        evidenced = [f for f in plain if f.allegation != Allegation.ALLEGED]
        if not evidenced and isinstance(best.value, bool):
            # only a party's allegation: contested, so the logic does not take it as given (the
            # probabilistic layer weighs the two readings); a defence's exoneration never proves itself
            other_world = World.NARRATIVE_A if best.world == World.NARRATIVE_B else World.NARRATIVE_B
            value["alternatives"] = [
                {
                    "value": not best.value,
                    "confidence": round(1 - best.confidence, 4),
                    "world": other_world.value,
                    "grounding": value["grounding"],  # what is contested is that very statement
                    "note": f"contestation de l'allégation ({best.alleged_by or 'une partie'})",
                }
            ]
            facts[name] = value
            continue
        disputed = [f for f in plain[1:] if f.value != best.value and (f.allegation or best.allegation)]
        if disputed:  # the parties disagree: one reading per narrative, not a silent pick
            value["alternatives"] = [_reading(f) for f in disputed]
            perception.conflicts.append(f"{name}: readings {[best.value] + [f.value for f in disputed]!r}")
            facts[name] = value
            continue
        for other in plain[1:]:
            if other.value == best.value:
                seen = {(g.document_id, g.char_start, g.char_end) for g in best.grounding}
                value["grounding"] += [
                    _g(g) for g in other.grounding if (g.document_id, g.char_start, g.char_end) not in seen
                ]
            else:
                perception.conflicts.append(
                    f"{name}: kept {best.value!r} ({best.confidence}) over {other.value!r} ({other.confidence})"
                )
        facts[name] = value
    return facts


def to_case_file(perception: Perception, case_id: str, pack: str | None = None) -> dict[str, Any]:
    """The case file of ``pack`` (the rules folder's default pack when none is named)."""
    from lexlogic.engine.packs import default_pack

    return {"pack": pack or default_pack(), "case_id": case_id, "facts": merge_findings(perception)}


def build_graph(perception: Perception) -> None:
    """FACT nodes for each finding, EVIDENCE nodes per document, edges evidence → fact."""
    graph = perception.ontology.graph
    evidence_nodes: dict[str, str] = {}
    for ev in perception.ontology.evidence:
        node = graph.add(
            NarrativeNode(
                type=NodeType.EVIDENCE,
                label=ev.title or ev.document_id,
                evidence_id=ev.id,
                distribution=Distribution.point(True),
            )
        )
        evidence_nodes[ev.document_id] = node.id
    for f in perception.findings:
        dist = Distribution(outcomes=[Possibility(value=f.value, p=1.0)])
        node = graph.add(
            NarrativeNode(
                type=NodeType.FACT,
                label=f.fact,
                fact=f.fact,
                world=f.world,
                distribution=dist,
                grounding=f.grounding,
                ambiguity=f.ambiguity,
            )
        )
        for doc_id in {g.document_id for g in f.grounding if g.document_id}:
            if doc_id in evidence_nodes:
                graph.add_edge(evidence_nodes[doc_id], node.id)


def _pack(name: str):  # type: ignore[no-untyped-def]
    from lexlogic.engine.packs import pack_by_name

    return pack_by_name(name)[0]


def validate_case_file(case: dict[str, Any]) -> None:
    """Check the dict with the lead's CaseFile model (skipped if the pack is not loadable yet)."""
    try:
        from lexlogic.logic.facts import parse_case

        pack = _pack(case["pack"])
    except Exception:  # the pack or loader is not there yet: the contract shape is still tested
        return
    parse_case(case, pack, source=f"perception:{case.get('case_id')}")
