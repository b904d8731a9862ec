"""Two-step verification: search widely (top-k by similarity), then verify precisely (a judge)."""

from __future__ import annotations

from typing import Protocol

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.claims.judge_llm import LLMJudge
from lexlogic.engine.claims.judge_reading import ReadingJudge
from lexlogic.engine.claims.memory import EvidenceMemory
from lexlogic.engine.claims.models import (
    Candidate,
    ClaimEvidence,
    Judgement,
    Stance,
    Status,
    VerificationResult,
)
from lexlogic.engine.claims.retrieval import HybridMemory
from lexlogic.engine.claims.threshold import gate
from lexlogic.engine.claims.threshold import shipped as shipped_threshold


class Judge(Protocol):
    name: str

    def judge(self, claim: str, candidates: list[Candidate]) -> Judgement: ...


def default_judge(client: LLMClient | None = None) -> Judge:
    """The LLM judge when the edge gives a client (an endpoint is configured), else the offline reading judge."""
    return LLMJudge(client) if client else ReadingJudge()


DEFAULT_K = 10  # passages read per claim (sentence-level since issue 19: 3 chunks were too few)


def _evidence(c: Candidate, stance: Stance, nuance: str, sentence: str) -> ClaimEvidence:
    g = c.memory.grounding
    # Narrow the grounding to the sentence the judge relied on when it is found in the chunk.
    pos = c.memory.text.find(sentence) if sentence else -1
    if pos >= 0 and g.char_start is not None:
        start = g.char_start + pos
        g = g.model_copy(update={"char_start": start, "char_end": start + len(sentence), "quote": sentence})
    return ClaimEvidence(
        source_id=c.memory.id,
        document_id=c.memory.document_id,
        content=sentence or c.memory.text,
        nuance=nuance,
        similarity=round(c.similarity, 4),
        stance=stance,
        grounding=g,
    )


def result_of(
    claim: str,
    candidates: list[Candidate],
    judgement: Judgement,
    judge_name: str,
    decide_from: float | None = None,
) -> VerificationResult:
    """The judge's decision as a result; a VERIFIED/CONTRADICTED whose passage is less similar than
    ``decide_from`` (default: the shipped threshold) is withheld (UNKNOWN, the decision kept as proposed)."""
    sentences = judgement.sentences or [""] * len(candidates)
    ev = [_evidence(c, s, n, t) for c, s, n, t in zip(candidates, judgement.stances, judgement.nuances, sentences)]
    status = judgement.status
    main, others = None, []
    supports = [e for e in ev if e.stance is Stance.SUPPORTS]
    contradicts = [e for e in ev if e.stance is Stance.CONTRADICTS]
    if status is Status.VERIFIED and supports:
        main = supports[0]
    elif status is Status.AMBIGUOUS and (supports or contradicts):
        main, others = (supports or contradicts)[0], contradicts if supports else contradicts[1:]
    elif status is Status.CONTRADICTED and contradicts:
        main, others = contradicts[0], contradicts[1:]
    confidence = max((c.similarity for c in candidates), default=0.0)
    decision = main.similarity if main is not None else 0.0
    threshold = shipped_threshold().decide_from if decide_from is None else decide_from
    status, proposed = gate(status, decision, threshold)
    return VerificationResult(
        claim=claim,
        status=status,
        proposed=proposed,
        decision_confidence=round(decision, 4),
        confidence=round(confidence, 4),
        evidence=main,
        contradictory=others,
        candidates=len(candidates),
        judge=judge_name,
        readings=ev,
    )


def find_evidence(
    memory: EvidenceMemory | HybridMemory, claim: str, k: int = DEFAULT_K, judge: Judge | None = None
) -> VerificationResult:
    """Verify ``claim`` against the case's memory: top-``k`` candidates, then the judge's decision.

    A judge that derives facts (durations, sums) also gets the dossier's facts (``HybridMemory.facts``)."""
    judge = judge or default_judge()
    candidates = memory.search(claim, k)
    if not candidates:
        return VerificationResult(claim=claim, status=Status.UNKNOWN, confidence=0.0, candidates=0, judge=judge.name)
    if getattr(judge, "needs_facts", False) and isinstance(memory, HybridMemory):
        judgement = judge.judge(claim, candidates, facts=memory.facts)  # type: ignore[call-arg]
        candidates, judgement = _with_sources(memory, claim, candidates, judgement)
    else:
        judgement = judge.judge(claim, candidates)
    return result_of(claim, candidates, judgement, judge.name)


def _with_sources(
    memory: HybridMemory, claim: str, candidates: list[Candidate], judgement: Judgement
) -> tuple[list[Candidate], Judgement]:
    """Put the passages a derived fact came from first, so the evidence points at them (not at the
    most similar sentence)."""
    if not judgement.sources:
        return candidates, judgement
    ids = [c.memory.id for c in candidates]
    front_c, front_s, front_n, front_t = [], [], [], []
    stances, nuances = list(judgement.stances), list(judgement.nuances)
    sentences = list(judgement.sentences or [c.memory.text for c in candidates])
    keep = list(range(len(candidates)))
    q = memory.embed_claim(claim)
    for src in judgement.sources:
        if src.id in ids:
            i = ids.index(src.id)
            keep.remove(i) if i in keep else None
            cand = candidates[i]
        else:
            mem = memory.by_id.get(src.id)
            if mem is None:
                continue
            cand = Candidate(memory=mem, similarity=float(memory.vectors[memory.position[src.id]] @ q))
        front_c.append(cand)
        front_s.append(src.stance)
        front_n.append(src.nuance)
        front_t.append(cand.memory.text)
    cands = front_c + [candidates[i] for i in keep]
    j = judgement.model_copy(
        update={
            "stances": front_s + [stances[i] for i in keep],
            "nuances": front_n + [nuances[i] for i in keep],
            "sentences": front_t + [sentences[i] for i in keep],
        }
    )
    return cands, j


def verify_all(
    memory: EvidenceMemory | HybridMemory, claims: list[str], k: int = DEFAULT_K, judge: Judge | None = None
) -> list[VerificationResult]:
    """Verify several claims (a submission): their query vectors are embedded in one batch first."""
    judge = judge or default_judge()
    if len(memory):
        memory.prime(claims)
    return [find_evidence(memory, c, k=k, judge=judge) for c in claims]
