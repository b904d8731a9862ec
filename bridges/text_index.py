"""Lexical search (BM25, bm25s) over French text: accents folded, stop words out, Snowball stems.

Callers normalise numbers and dates first (the engine's ``claims.normalise``), so "380000" in a claim
meets "380000" in a note. Scores come from ``bm25s`` (sparse matrices, Lucene variant); this adapter
only owns the French tokenisation and the top-k.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np

from lexlogic.logic.errors import UnavailableError

STOPWORDS_FR = set(
    """a au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs lui ma
    mais me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton
    tu un une vos votre vous c d j l m n s t y ete etre avoir ont est sont etait etaient a ai as avait avaient
    cela ceci ca celle celui ceux dont lors si ni donc or car puis comme tout tous toute toutes tres plus
    moins aussi ainsi alors apres avant chez entre sous sans vers selon
    madame monsieur bonjour cordialement bien salutations distinguees agreer veuillez prions expression""".split()
)


class TextIndexError(UnavailableError, RuntimeError):
    pass


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    try:
        import Stemmer
    except ImportError as exc:  # pragma: no cover - pinned dependency
        raise TextIndexError("PyStemmer is not installed") from exc
    return Stemmer.Stemmer("french")


def _fold(text: str) -> str:
    t = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in t if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """Folded, stop-word-free, stemmed tokens (numbers are kept whole)."""
    words = [w for w in re.findall(r"\w+", _fold(text)) if w not in STOPWORDS_FR and (len(w) > 1 or w.isdigit())]
    stems = _stemmer().stemWords([w for w in words if not w.isdigit()])
    it = iter(stems)
    return tuple(w if w.isdigit() else next(it) for w in words)


class TextIndex:
    """BM25 over a list of texts; ``search`` returns (ids, scores), best first."""

    def __init__(self, texts: list[str]) -> None:
        try:
            import bm25s
        except ImportError as exc:  # pragma: no cover - pinned dependency
            raise TextIndexError("bm25s is not installed") from exc
        self.size = len(texts)
        self._bm25 = bm25s.BM25(method="lucene")
        corpus = [list(tokens(t)) or ["_"] for t in texts]
        if corpus:
            self._bm25.index(corpus, show_progress=False)
        self._vocab = set(self._bm25.vocab_dict) if corpus else set()

    def scores(self, query: str) -> np.ndarray:
        q = [t for t in tokens(query) if t in self._vocab]
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
