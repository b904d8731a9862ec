"""The HYBRID path: the pattern proposes, the LLM confirms (it never proposes on its own).

The LLM sees one candidate and its quoted evidence and answers confirm/reject. A confirmed assertion
keeps everything the pattern found and only changes its method to HYBRID; a rejected one becomes an
Abstention with the reason the model gives (AMBIGUOUS_PREDICATE when it gives none). When the endpoint
fails, the pattern result stands as PATTERN and the failure is noted — offline behaviour is unchanged.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lexlogic.bridges.llm import LLMClient, LLMError
from lexlogic.engine.kg.model import Abstention, DiscursiveAbstainReason, ExtractionMethod, RawAssertion
from lexlogic.engine.kg.patterns import ExtractionResult

SYSTEM = (
    "You check relations extracted from legal text by a pattern matcher. Confirm only when the quoted text "
    "itself states the relation under the given discourse device (alternative, default, exception, scope, "
    "coreference, enumeration). Reject anything deduced, causal, transitive or based on world knowledge. "
    'Answer JSON: {"verdict": "confirm"|"reject", "reason": one of WEAK_BUNDLE, SCOPE_BREAK, '
    'COREF_UNRESOLVED, TYPE2_RISK, WHITELIST_VIOLATION, AMBIGUOUS_PREDICATE or null, "note": short text}.'
)


class Confirmation(BaseModel):
    verdict: Literal["confirm", "reject"]
    reason: DiscursiveAbstainReason | None = None
    note: str = Field(default="", max_length=500)


def _prompt(a: RawAssertion) -> list[dict[str, str]]:
    basis = a.basis.value if a.basis else "-"
    evidence = "\n".join(f"[{s.doc_id} § {s.section or '-'}] {s.text}" for s in a.bundle.spans)
    user = (
        f"Candidate: «{a.subject}» {a.relation.value} «{a.object}»\nDevice: {basis}; cues: {list(a.markers)}\n"
        f"Qualifier: {a.qualifier or '-'}\nAnchor/resolution: {a.anchor or '-'}\nEvidence:\n{evidence}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def confirm(result: ExtractionResult, llm: LLMClient) -> ExtractionResult:
    """Submit every pattern candidate to the LLM; only confirmed ones stay, as HYBRID."""
    out = ExtractionResult(abstentions=list(result.abstentions), attributed=list(result.attributed))
    for a in result.assertions:
        try:
            answer = llm.complete_json(_prompt(a), Confirmation)
        except LLMError as exc:
            out.assertions.append(a.model_copy(update={"note": f"LLM unavailable, kept as PATTERN: {exc}"[:300]}))
            continue
        if answer.verdict == "confirm":
            out.assertions.append(
                a.model_copy(update={"method": ExtractionMethod.HYBRID, "note": answer.note or a.note})
            )
        else:
            out.abstentions.append(
                Abstention(
                    reason=answer.reason or DiscursiveAbstainReason.AMBIGUOUS_PREDICATE,
                    detail=f"LLM did not confirm: {answer.note or 'no reason given'}",
                    span=a.bundle.spans[0],
                    candidate=f"{a.subject} {a.relation.value} {a.object}",
                    markers=a.markers,
                )
            )
    return out
