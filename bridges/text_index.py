"""Lexical search (BM25, bm25s) and the French Snowball stemmer (PyStemmer).

The French analysis (folding, stop words, which words to stem) is the engine's text toolkit
(``engine.text.terms``), passed in as the index's tokenizer; this adapter owns the two libraries and the top-k.
Scores come from ``bm25s`` (sparse matrices, Lucene variant).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from lexlogic.logic.errors import UnavailableError


class TextIndexError(UnavailableError, RuntimeError):
    pass


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    try:
        import Stemmer
    except ImportError as exc:  # pragma: no cover - pinned dependency
        raise TextIndexError("PyStemmer is not installed") from exc
    return Stemmer.Stemmer("french")


def stem_words(words: Sequence[str]) -> list[str]:
    """Snowball French stems of ``words`` (folded, lower-case words), in order."""
    stems: list[str] = _stemmer().stemWords(list(words))
    return stems


class TextIndex:
    """BM25 over a list of texts; ``search`` returns (ids, scores), best first."""

    def __init__(self, texts: list[str], tokenizer: Callable[[str], Sequence[str]]) -> None:
        try:
            import bm25s
        except ImportError as exc:  # pragma: no cover - pinned dependency
            raise TextIndexError("bm25s is not installed") from exc
        self.size = len(texts)
        self._bm25 = bm25s.BM25(method="lucene")
        self._tokens = tokenizer
        corpus = [list(tokenizer(t)) or ["_"] for t in texts]
        if corpus:
            self._bm25.index(corpus, show_progress=False)
        self._vocab = set(self._bm25.vocab_dict) if corpus else set()

    def scores(self, query: str) -> np.ndarray:
        q = [t for t in self._tokens(query) if t in self._vocab]
        if not q or not self.size:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(q), dtype=np.float32)

    def search(self, query: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.scores(query)
        if not self.size or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        k = min(k, self.size)
        idx = np.argpartition(-s, k - 1)[:k] if k < self.size else np.arange(self.size)
        idx = idx[np.argsort(-s[idx], kind="stable")]
        keep = s[idx] > 0
        return idx[keep], s[idx][keep]


def reciprocal_rank_fusion(
    rankings: list[list[int]], k: int = 60, weights: list[float] | None = None
) -> list[tuple[int, float]]:
    """RRF (Cormack et al. 2009): score(d) = Σ w_r/(k + rank_r(d)); best first."""
    score: dict[int, float] = {}
    for r, ranking in enumerate(rankings):
        w = weights[r] if weights else 1.0
        for rank, doc in enumerate(ranking):
            score[doc] = score.get(doc, 0.0) + w / (k + rank + 1)
    return sorted(score.items(), key=lambda t: -t[1])
