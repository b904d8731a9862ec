"""A submission, sentence by sentence: every sentence is either verified or set aside WITH its reason.

Issue 10's extractor kept only sentences with a number or an event word and silently dropped the rest
("déréférencer", "mettre fin", "le tribunal" went missing). Here the default is the other way round: a
sentence is a factual claim unless it is recognisably something else — a heading, a question, a request
to the court, a statement of the law, or a legal qualification — and the output says which.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from lexlogic.engine.claims.models import VerificationResult
from lexlogic.engine.claims.sentences import Kind, classify, clean_sentence, split_submission

NOT_A_CLAIM = "NOT_A_CLAIM"


class SentenceAccount(BaseModel):
    """One sentence of a submission and what was done with it."""

    n: int = Field(description="1-based position in the submission")
    sentence: str
    kind: Kind
    status: str = Field(description="VERIFIED | CONTRADICTED | AMBIGUOUS | UNKNOWN, or NOT_A_CLAIM")
    reason: str = Field(default="", description="why it is not a factual claim, or the judge's nuance")
    result: VerificationResult | None = None


class SubmissionAccount(BaseModel):
    sentences: list[SentenceAccount]

    @property
    def claims(self) -> list[SentenceAccount]:
        return [s for s in self.sentences if s.kind == "claim"]


def account_submission(memory, text: str, *, k: int | None = None, judge=None) -> SubmissionAccount:  # type: ignore[no-untyped-def]
    """Every sentence of ``text``: claims verified against ``memory`` (one batch), the rest with a reason."""
    from lexlogic.engine.claims.verify import DEFAULT_K, verify_all

    rows: list[SentenceAccount] = []
    for i, s in enumerate(split_submission(text), start=1):
        kind, reason = classify(s)
        rows.append(SentenceAccount(n=i, sentence=s, kind=kind, status=NOT_A_CLAIM, reason=reason))
    claims = [clean_sentence(r.sentence) for r in rows if r.kind == "claim"]
    results = verify_all(memory, claims, k=k or DEFAULT_K, judge=judge) if claims and len(memory) else []
    it = iter(results)
    for r in rows:
        if r.kind != "claim":
            continue
        res = next(it, None)
        if res is None:
            r.status, r.reason = "UNKNOWN", "dossier vide"
            continue
        r.result = res
        r.status = res.status.value
        r.reason = res.evidence.nuance if res.evidence else ""
    return SubmissionAccount(sentences=rows)
