"""Claims of a written submission: the factual sentences worth checking against the dossier.

Offline: sentence split, then filters that keep sentences stating a fact (a date, an amount, a duration,
a party, or an event of a commercial relation) and drop legal argument, requests to the court, questions
and headings. When an LLM is configured it extracts instead (schema-validated), and each claim it returns
must still be a sentence-sized statement.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.claims import facets as fx
from lexlogic.engine.claims.sentences import classify, clean_sentence, split_submission

MIN_CHARS, MAX_CHARS = 20, 400
_EVENT = re.compile(
    r"\b(ruptur|romp|resili|notifi|preavis|command|contrat|accord|factur|mise en demeure|"
    r"relanc|livr|chiffre d'affaires|marge|prix|volume|exclusivit|investiss|appel d'offres|"
    r"courrier|lettre|courriel|reunion|paiement|pay|arbitrage|litige)",
    re.IGNORECASE,
)
_ARGUMENT = re.compile(
    r"\b(il convient|attendu que|en droit|jurisprudence|la cour de cassation|cass\.|"
    r"article l\.?\s?\d|art\.\s|par ces motifs|plaise au tribunal|condamner|debouter|"
    r"il est demande|nous demandons|le tribunal|il en resulte|des lors que|a titre subsidiaire)",
    re.IGNORECASE,
)


def is_claim(sentence: str) -> bool:
    s = sentence.strip()
    if not (MIN_CHARS <= len(s) <= MAX_CHARS) or s.endswith(("?", ":")):
        return False
    folded = fx.fold(s)
    if _ARGUMENT.search(folded):
        return False
    if not re.search(r"[a-zà-ÿ]{3,}", s) or s.isupper():  # headings
        return False
    f = fx.read(s)
    has_fact = bool(f.dates or f.amounts or f.durations or f.percents or f.counts)
    return has_fact or bool(_EVENT.search(folded))


def extract_claims_offline(text: str) -> list[str]:
    """Every sentence that is a factual claim (``batch.classify``: a claim unless recognisably a heading, a
    question, a request, the law or a qualification) — issue 10's word filters dropped real claims."""
    out: list[str] = []
    for sentence in split_submission(text):
        s = clean_sentence(sentence)
        if classify(s)[0] == "claim" and MIN_CHARS <= len(s) and s not in out:
            out.append(s)
    return out


class ExtractedClaims(BaseModel):
    claims: list[str] = Field(description="factual statements, one sentence each, in the submission's words")


_SYSTEM = (
    "Extrait des conclusions ci-dessous les affirmations FACTUELLES vérifiables contre les pièces "
    "(dates, montants, durées, courriers, commandes, parties). Pas d'argument juridique, pas de demande "
    "au tribunal. Une phrase par affirmation, en reprenant les mots du texte. Réponds en JSON."
)


def extract_claims(text: str, client: LLMClient | None = None) -> list[str]:
    """Claims of ``text``: by the LLM when a client is given (the edge's ``LLMClient.from_settings``), else
    offline."""
    if client is None:
        return extract_claims_offline(text)
    reply = client.complete_json(
        [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": text[:12000]}], ExtractedClaims
    )
    out: list[str] = []
    for c in reply.claims:
        c = clean_sentence(c)
        if MIN_CHARS <= len(c) <= MAX_CHARS and c not in out:
            out.append(c)
    return out
