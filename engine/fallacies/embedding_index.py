"""Embeddings of a taxonomy's nodes (and of the sound-argument anchors), cached on disk by content hash.

Embedding the 1,408-node Argumentum tree costs about a minute on this CPU, so vectors are computed once
and stored under ``$LEXLOGIC_HOME/cache/fallacies`` (default ``~/.cache/lexlogic/fallacies``) as
``<sha256 of the texts>.npy``; a changed text changes the key, so a stale cache is never read.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from lexlogic.bridges.embeddings import DIM, embed_passages, embed_queries
from lexlogic.engine.fallacies.taxonomy import DATA_DIR, Taxonomy
from lexlogic.logic import yaml_load

SOUND_ARGUMENTS = DATA_DIR / "sound_arguments.yaml"
_MODEL_TAG = "e5small-v1"  # bump if bridges/embeddings changes model or prefixes


DEFAULT_CACHE = Path.home() / ".cache" / "lexlogic" / "fallacies"  # a caller that names no cache folder


def _key(texts: list[str], kind: str) -> str:
    h = hashlib.sha256(f"{_MODEL_TAG}\x1f{kind}".encode())
    for t in texts:
        h.update(t.encode())
        h.update(b"\x1e")
    return h.hexdigest()


def embed_cached(texts: list[str], kind: str = "passage", cache: Path | None = None) -> np.ndarray:
    """(n, DIM) vectors for ``texts``, read from / written to the disk cache ``cache`` (the edge passes
    ``Settings.fallacies_cache``; None: ``DEFAULT_CACHE``)."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    path = (cache or DEFAULT_CACHE) / f"{_key(texts, kind)}.npy"
    if path.exists():
        try:
            vecs = np.load(path)
            if vecs.shape == (len(texts), DIM):
                return vecs
        except (OSError, ValueError):
            pass  # unreadable cache: recompute and overwrite
    vecs = (embed_passages if kind == "passage" else embed_queries)(texts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}.npy")
        np.save(tmp, vecs)
        os.replace(tmp, path)
    except OSError:
        pass  # read-only home: still works, just slower next time
    return vecs


def node_texts(node) -> list[str]:  # type: ignore[no-untyped-def]
    """The exemplars of a node: "name. definition", the example and any extra examples, as SEPARATE vectors.

    Measured on the first 30-text calibration set: one concatenated text per node gave 0.50 family
    accuracy, separate vectors (score = the best of them) 0.81 — an argument resembles either the
    definition or an example.
    """
    texts = [f"{node.name_fr}. {node.definition_fr}".strip(". ") or node.name_fr]
    texts += [e.strip() for e in [node.example_fr, *node.more_examples_fr] if e and e.strip()]
    return texts


class TaxonomyIndex:
    """Exemplar vectors of every node, with per node the rows of its own exemplars and of its subtree."""

    def __init__(self, taxonomy: Taxonomy, cache: Path | None = None) -> None:
        self.taxonomy = taxonomy
        order = sorted(taxonomy, key=lambda n: [int(p) for p in n.path.split(".")])
        texts: list[str] = []
        own: dict[str, list[int]] = {}
        for node in order:
            rows = node_texts(node)
            own[node.id] = list(range(len(texts), len(texts) + len(rows)))
            texts.extend(rows)
        self.vectors = embed_cached(texts, cache=cache)
        self.own = {k: np.asarray(v, dtype=np.int64) for k, v in own.items()}
        self.subtree: dict[str, np.ndarray] = {}
        for node in reversed(order):  # children sort after their parent
            idx = list(own[node.id])
            for c in node.children_ids:
                idx.extend(self.subtree[c].tolist())
            self.subtree[node.id] = np.asarray(idx, dtype=np.int64)

    def similarities(self, query_vec: np.ndarray) -> np.ndarray:
        """Cosine of the query with every exemplar row (vectors are normalised)."""
        return self.vectors @ query_vec

    def own_score(self, sims: np.ndarray, node_id: str) -> float:
        return float(sims[self.own[node_id]].max())

    def subtree_score(self, sims: np.ndarray, node_id: str) -> float:
        """Best similarity anywhere under the node: what makes a branch worth exploring."""
        return float(sims[self.subtree[node_id]].max())


@lru_cache(maxsize=2)
def sound_anchor_vectors(cache: Path | None = None) -> np.ndarray:
    texts = [str(t) for t in yaml_load.safe_load(SOUND_ARGUMENTS.read_text(encoding="utf-8"))]
    return embed_cached(texts, cache=cache)


_INDEXES: dict[str, TaxonomyIndex] = {}


def index_for(taxonomy: Taxonomy, cache: Path | None = None) -> TaxonomyIndex:
    """One index per taxonomy content (memory), backed by the disk cache."""
    key = taxonomy.content_hash()
    if key not in _INDEXES:
        _INDEXES[key] = TaxonomyIndex(taxonomy, cache)
    return _INDEXES[key]
