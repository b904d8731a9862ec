"""The debate plan, strictly sequential: claimant's draft → defence critique → fact-check of the draft's
claims → synthesis (keeps only verified claims, flags the contradicted ones).

Offline the draft and the critique are the two narratives of the case (texts or claim lists), their
claims extracted by ``extract``; the fact-check is ``find_evidence`` on the case's evidence memory. Every
step is persisted before the next one starts; ``run`` on an unfinished run resumes where it stopped.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.claims.case_updates import CaseUpdates, updates_for
from lexlogic.engine.claims.debate_store import DebateStore
from lexlogic.engine.claims.extract import extract_claims
from lexlogic.engine.claims.memory import EvidenceMemory
from lexlogic.engine.claims.models import Status, VerificationResult
from lexlogic.engine.claims.verify import Judge, verify_all

STEPS = ("draft", "critique", "fact_check", "synthesis")


class Narrative(BaseModel):
    """One party's account: a text (claims are extracted from it) or an explicit claim list."""

    party: str
    text: str = ""
    claims: list[str] = Field(default_factory=list)

    def claim_list(self) -> list[str]:
        return list(self.claims) if self.claims else extract_claims(self.text)


class Synthesis(BaseModel):
    kept: list[VerificationResult] = Field(description="verified claims, with their evidence")
    flagged: list[VerificationResult] = Field(description="contradicted claims, with the contradicting evidence")
    disputed: list[VerificationResult] = Field(description="ambiguous: the dossier disagrees with itself")
    dropped: list[str] = Field(description="claims with no evidence (UNKNOWN): not kept")
    objections: list[str] = Field(default_factory=list, description="the defence's critique, for the record")
    updates: CaseUpdates


class DebateOutcome(BaseModel):
    run_id: str
    steps: list[str]
    synthesis: Synthesis


def run_debate(
    store: DebateStore,
    case_id: str,
    memory: EvidenceMemory,
    claimant: Narrative,
    defence: Narrative,
    *,
    judge: Judge | None = None,
    k: int = 3,
    run_id: str | None = None,
) -> DebateOutcome:
    """Run (or resume) the plan; each step reads only what the previous steps persisted."""
    run_id = run_id or store.new_run(case_id)
    done = dict(store.steps(run_id))
    executed: list[str] = []
    for seq, kind in enumerate(STEPS):
        if kind in done:
            continue
        payload = _step(kind, done, memory, claimant, defence, judge, k)
        store.add_step(run_id, seq, kind, payload)
        done[kind] = payload
        executed.append(kind)
    store.finish(run_id)
    return DebateOutcome(run_id=run_id, steps=executed, synthesis=Synthesis.model_validate(done["synthesis"]))


def _step(
    kind: str,
    done: dict[str, dict[str, Any]],
    memory: EvidenceMemory,
    claimant: Narrative,
    defence: Narrative,
    judge: Judge | None,
    k: int,
) -> dict[str, Any]:
    if kind == "draft":
        return {"party": claimant.party, "claims": claimant.claim_list()}
    if kind == "critique":
        return {"party": defence.party, "objections": defence.claim_list()}
    if kind == "fact_check":
        results = verify_all(memory, done["draft"]["claims"], k=k, judge=judge)
        return {"results": [r.model_dump(mode="json") for r in results]}
    if kind == "synthesis":
        results = [VerificationResult.model_validate(r) for r in done["fact_check"]["results"]]
        by = {s: [r for r in results if r.status is s] for s in Status}
        synthesis = Synthesis(
            kept=by[Status.VERIFIED],
            flagged=by[Status.CONTRADICTED],
            disputed=by[Status.AMBIGUOUS],
            dropped=[r.claim for r in by[Status.UNKNOWN]],
            objections=done["critique"]["objections"],
            updates=updates_for(results),
        )
        return synthesis.model_dump(mode="json")
    raise ValueError(f"unknown debate step {kind!r}")
