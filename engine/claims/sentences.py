"""A submission cut into sentences, each sorted by kind: a factual claim unless recognisably a heading, a
question, a request to the court, a statement of the law or a legal qualification (see claims.batch).
Both the submission account (claims.batch) and the claim extractor (claims.extract) read sentences this
way, so the reading lives here, apart from either."""

from __future__ import annotations

import re
from typing import Literal

from lexlogic.engine.text.fold import fold

Kind = Literal["claim", "heading", "question", "request", "statement_of_law", "legal_argument"]

_REQUEST = re.compile(
    r"\b(il est demande|il lui est (?:enfin )?demande|plaise au tribunal|par ces motifs|nous demandons|"
    r"demande au tribunal|condamner|debouter|ordonner|dire et juger|dire que|juger que|entiers depens|"
    r"article 700)\b"
)
_LAW = re.compile(
    r"^(engage sa responsabilite|quiconque|celui qui|tout (?:manquement|contrat|auteur)|la loi|le code|"
    r"l'article|aux termes de l'article|selon l'article|il est de jurisprudence|la jurisprudence|"
    r"la cour de cassation)|\b(l\.\s?442|article l\.|art\. l|code de commerce|code civil)\b"
)
_QUALIFICATION = re.compile(
    r"\b(il convient|attendu que|en droit|a titre subsidiaire|il y a lieu|a l'evidence|manifestement|a l'evidence|ne saurait|ne sauraient|incontestablement|indeniablement|"
    r"necessairement|il est constant|il s'ensuit|il en resulte|derisoire|constitue une faute|est constitutive|"
    r"caracteris\w*|doit etre (?:qualifi|regard|retenu)\w*|relation commerciale etablie|brutal\w*)\b"
)
# a legal argument about what should have been (« un préavis de dix-huit mois s'imposait »)
_NORMATIVE = re.compile(
    r"\b(ne saurai\w*|s'imposai\w*|s'impose|aurait du|aurait fallu|il fallait|raisonnabl\w*|insuffisan\w*|suffisan\w*|"
    r"devait etre accorde\w*|aurai(?:en)?t du)\b"
)
# the caption of a submission: who it is for, against whom (« Pour la société X, demanderesse, contre … »)
_CAPTION = re.compile(
    r"^pour (?:la societe|le compte|m\.|mme|monsieur|madame)\b.*\bcontre\b|\b(?:demanderesse|defenderesse)\b.*\bcontre\b|\bcontre\b.*\b(?:demanderesse|defenderesse)\b"
)
_ROMAN = re.compile(r"^(?:[IVXLC]+|[A-Z]|\d+)[.)]\s+\S")


_CONNECTOR = re.compile(
    r"^(?:en effet|ainsi|or|de plus|par ailleurs|enfin|en outre|d'abord|ensuite|"
    r"au surplus|de surcroit|tout d'abord)\s*,\s*",
    re.IGNORECASE,
)


def clean_sentence(sentence: str) -> str:
    """The sentence as a claim is quoted: bullets, paragraph numbers and a leading connector removed."""
    s = re.sub(r"\s+", " ", sentence).strip().lstrip("-•* ").strip()
    s = re.sub(r"^\d+[.)]\s+", "", s)  # numbered paragraphs
    m = _CONNECTOR.match(s)
    if m:
        s = s[m.end() :]
        s = s[:1].upper() + s[1:]
    return s


def split_submission(text: str) -> list[str]:
    """Every sentence of a submission, headings included, in order (Markdown markers removed)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
        para: list[str] = []
        for ln in lines:
            if ln.startswith("#") or (_ROMAN.match(ln) and not ln.endswith((".", "?", "!")) and len(ln) < 90):
                if para:
                    out.extend(_sentences(" ".join(para)))
                    para = []
                out.append(ln.lstrip("#").strip())
            else:
                para.append(ln.lstrip("-•* ").strip())
        if para:
            out.extend(_sentences(" ".join(para)))
    return [s for s in out if s]


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?…])\s+(?=[«\"A-ZÀ-Ý0-9])", text)
    return [p.strip() for p in parts if p.strip()]


def classify(sentence: str) -> tuple[Kind, str]:
    """(kind, reason): a factual claim unless recognisably something else."""
    s = sentence.strip()
    f = fold(s)
    if not s.endswith((".", "!", "?", "…", "»", '"')) and (len(s) < 90 and not re.search(r"\b(a|ont|est|sont)\b", f)):
        return "heading", "titre ou intertitre"
    if s.endswith("?"):
        return "question", "question rhétorique : n'affirme aucun fait"
    if _REQUEST.search(f):
        return "request", "demande adressée au tribunal, pas un fait de la cause"
    if _LAW.search(f):
        return "statement_of_law", "énoncé de la règle de droit, pas un fait de la cause"
    if _CAPTION.search(f):
        return "heading", "intitulé : les parties et leur qualité, pas un fait de la cause"
    if _NORMATIVE.search(f):
        return "legal_argument", "ce qui aurait dû être (argument juridique), pas un fait vérifiable"
    if _QUALIFICATION.search(f):
        return "legal_argument", "qualification juridique ou appréciation, pas un fait vérifiable"
    return "claim", ""
