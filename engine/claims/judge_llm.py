"""The LLM judge: a short, constrained prompt; the answer is schema-validated (bridges/llm.py).

The model only reads: for each numbered candidate it says supports / contradicts / neutral / irrelevant
and why; the status is then computed by the same rule as the offline judge (code decides), so a model
cannot declare VERIFIED without pointing at a candidate that supports the claim.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.claims.judge_offline import aggregate
from lexlogic.engine.claims.models import Candidate, Judgement, Stance

SYSTEM = (
    "Tu vérifies une affirmation d'une partie contre des extraits du dossier. Pour CHAQUE extrait numéroté, "
    "dis s'il CONFIRME explicitement l'affirmation (supports), la CONTREDIT explicitement (contradicts: autre "
    "date, montant, durée, partie, négation), en parle sans trancher (neutral) ou n'en parle pas (irrelevant). "
    "Un extrait qui se ressemble n'est pas une preuve. Réponds en JSON uniquement."
)


class CandidateVerdict(BaseModel):
    index: int = Field(ge=0, description="number of the extract")
    stance: Literal["supports", "contradicts", "neutral", "irrelevant"]
    nuance: str = Field(default="", max_length=400, description="what matches or differs, in French")


class LLMVerdict(BaseModel):
    verdicts: list[CandidateVerdict]


class LLMJudge:
    name = "llm"

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def judge(self, claim: str, candidates: list[Candidate]) -> Judgement:
        extracts = "\n".join(
            f"[{i}] ({c.memory.document_id}) {c.memory.text.strip()[:1200]}" for i, c in enumerate(candidates)
        )
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Affirmation : {claim}\n\nExtraits :\n{extracts}"},
        ]
        verdict = self.client.complete_json(messages, LLMVerdict)
        stances = [Stance.IRRELEVANT] * len(candidates)
        nuances = [""] * len(candidates)
        for v in verdict.verdicts:
            if 0 <= v.index < len(candidates):  # an index the model invented is ignored, never trusted
                stances[v.index] = Stance(v.stance)
                nuances[v.index] = v.nuance
        return Judgement(
            status=aggregate(stances), stances=stances, nuances=nuances, sentences=[c.memory.text for c in candidates]
        )
