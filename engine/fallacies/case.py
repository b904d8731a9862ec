"""Fallacies into the case: attach findings to a narrative's argument nodes and lower their reliability.

A pure function over plain data (the case pipeline is written elsewhere): it takes the argument nodes
with their current reliability prior and the analyses, and returns new priors plus a ProofNode that
shows why each prior moved. Rule: each confirmed fallacy of confidence c multiplies the prior by
(1 − weight·c); the result never goes below ``floor`` (a fallacious argument is weaker, not void).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.navigation import ConfirmedFallacy, FallacyAnalysis
from lexlogic.logic.grounding import Grounding, SourceKind
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import NodeKind, ProofNode

RULE_ID = "fallacy_reliability_penalty"


class ArgumentNode(BaseModel):
    """An argument of a party's narrative, as the case state holds it."""

    id: str
    narrative: str = Field(description="the party's narrative, e.g. 'A' (claimant) or 'B' (defence)")
    text: str
    reliability: float = Field(ge=0.0, le=1.0, description="current reliability prior")
    grounding: list[Grounding] = Field(default_factory=new_list)


class AttachedArgument(BaseModel):
    argument_id: str
    narrative: str
    prior_before: float
    prior_after: float
    fallacies: list[ConfirmedFallacy] = Field(default_factory=new_list)
    explanation: ProofNode


def penalised_prior(prior: float, confidences: list[float], weight: float = 0.5, floor: float = 0.05) -> float:
    value = prior
    for c in confidences:
        value *= 1.0 - weight * max(0.0, min(1.0, c))
    return max(min(floor, prior), value)  # no rounding: it could cross the floor or the prior


def attach_fallacies(
    arguments: list[ArgumentNode],
    analyses: Mapping[str, FallacyAnalysis],
    *,
    narrative: str | None = None,
    weight: float = 0.5,
    floor: float = 0.05,
) -> list[AttachedArgument]:
    """For each argument (of ``narrative`` if given) with an analysis, the new prior and its proof node."""
    out = []
    for arg in arguments:
        if narrative is not None and arg.narrative != narrative:
            continue
        analysis = analyses.get(arg.id)
        found = list(analysis.confirmed) if analysis else []
        after = penalised_prior(arg.reliability, [f.confidence for f in found], weight, floor)
        prior_leaf = ProofNode(
            atom=f"reliability_prior({arg.id})",
            label=f"fiabilité a priori de l'argument {arg.id}",
            kind=NodeKind.FACT,
            value=arg.reliability,
            grounding=[Grounding(kind=SourceKind.PRIOR, note=f"narrative {arg.narrative}")],
        )
        text_leaf = ProofNode(
            atom=f"argument_text({arg.id})",
            label="texte de l'argument",
            kind=NodeKind.FACT,
            grounding=arg.grounding or [Grounding(kind=SourceKind.DOCUMENT, quote=arg.text[:300])],
        )
        children = [prior_leaf, text_leaf]
        for f in found:
            children.append(
                ProofNode(
                    atom=f"fallacy({arg.id}, {f.node_id})",
                    label=f"sophisme : {' > '.join(f.trail)} ({f.name_en})",
                    kind=NodeKind.COMPUTED,
                    value=f.confidence,
                    rule_id=f"fallacy:{f.node_id}",
                    note=(
                        f"analyse ({analysis.navigator if analysis else '?'}), pas une qualification juridique ; "
                        f"{f.justification}"
                    ),
                )
            )
        if not found:
            why = analysis.reason if analysis else "argument not analysed"
            children.append(
                ProofNode(
                    atom=f"fallacy({arg.id}, _)",
                    label="aucun sophisme retenu",
                    kind=NodeKind.ASSUMPTION,
                    holds=False,
                    note=why,
                )
            )
        explanation = ProofNode(
            atom=f"reliability({arg.id})",
            label=(
                f"fiabilité de l'argument {arg.id} : {arg.reliability:.2f} → {after:.2f}"
                if found
                else f"fiabilité de l'argument {arg.id} inchangée ({arg.reliability:.2f})"
            ),
            kind=NodeKind.COMPUTED,
            value=after,
            rule_id=RULE_ID,
            note=f"prior × Π(1 − {weight}·confiance), plancher {floor}",
            children=children,
        )
        out.append(
            AttachedArgument(
                argument_id=arg.id,
                narrative=arg.narrative,
                prior_before=arg.reliability,
                prior_after=after,
                fallacies=found,
                explanation=explanation,
            )
        )
    return out
