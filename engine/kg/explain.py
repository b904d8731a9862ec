"""Explain a semantic relation as a ProofNode tree (the project's one explanation format).

The relation is the conclusion (its grade and tier in the label, never hidden); each supporting raw
assertion is a FACT leaf grounded by its spans. An INFERRED edge is shown as an interpretation whose
children are its premise edges — not as a stated fact.
"""

from __future__ import annotations

from collections.abc import Mapping

from lexlogic.engine.kg.model import ExtractionMethod, RawAssertion, SemanticRelation
from lexlogic.logic.proof import NodeKind, ProofNode


def explain(
    rel: SemanticRelation, journal: Mapping[str, RawAssertion], layer: Mapping[str, SemanticRelation] | None = None
) -> ProofNode:
    label = f"{rel.subject} {rel.relation.value} {rel.object} [{rel.grade.value}, {rel.tier.value}]"
    if ExtractionMethod.INFERRED in rel.methods:
        premises = [explain(layer[p], journal, layer) for p in rel.derived_from if layer and p in layer]
        return ProofNode(
            atom=rel.id,
            label=label,
            kind=NodeKind.DYNAMIC,
            rule_id="kg.inferred.transitivity",
            note=rel.tier_reason,
            children=premises,
        )
    leaves = []
    for aid in rel.assertion_ids:
        a = journal.get(aid)
        if a is None:
            leaves.append(ProofNode(atom=aid, label="assertion not in the journal", kind=NodeKind.MISSING, holds=False))
            continue
        how = a.kind.value + (f"/{a.basis.value}" if a.basis else "") + f" via {a.method.value}"
        note = (
            "; ".join(
                x
                for x in (
                    f"cues: {', '.join(a.markers)}" if a.markers else "",
                    f"qualifier: {a.qualifier}" if a.qualifier else "",
                    f"anchor: {a.anchor}" if a.anchor else "",
                )
                if x
            )
            or None
        )
        leaves.append(
            ProofNode(
                atom=f"assertion:{a.id}",
                label=f"{a.subject} {a.relation.value} {a.object} ({how})",
                kind=NodeKind.FACT,
                grounding=[s.to_grounding() for s in a.bundle.spans],
                note=note,
            )
        )
    return ProofNode(
        atom=rel.id,
        label=label,
        kind=NodeKind.RULE,
        rule_id=f"kg.promotion.{rel.grade.value.lower()}",
        note=rel.tier_reason,
        children=leaves,
    )
