"""Nearest-neighbour memory of labelled arguments, over e5 embeddings (issue 19).

Rows come from four shipped sources (``data/``): the built-in taxonomy's own exemplars (name and
definition, example, extra examples), the Argumentum taxonomy's French examples and definitions for the
nodes that match a built-in leaf (``argumentum_examples.yaml``), the project's labelled texts
(``labelled_memory_fr.yaml``) and extra texts for thin leaves (``memory_extra_fr.yaml``); sound rows are
``sound_arguments.yaml`` plus every labelled sound text. A leaf's score is the mean cosine of its ``m``
nearest rows; the sound reference is the same over sound rows. Rows labelled only with a family count for
the family. All rows and queries are embedded with the e5 ``query:`` prefix (a symmetric similarity).
A linear head over the same rows (``head.py``) gives P(fallacious), which the navigator uses beside the
margin over sound rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from lexlogic.bridges.embeddings import embed_query
from lexlogic.engine.fallacies.embedding_index import embed_cached, node_texts
from lexlogic.engine.fallacies.head import LinearHead, fit_head
from lexlogic.engine.fallacies.taxonomy import DATA_DIR, Taxonomy, builtin_taxonomy
from lexlogic.logic import yaml_load

NONE = "none"
SOURCES = ("argumentum_examples.yaml", "labelled_memory_fr.yaml", "memory_extra_fr.yaml", "dev_memory_fr.yaml")


@dataclass(frozen=True)
class Row:
    text: str
    node: str  # a node id of the built-in taxonomy, or "none"
    source: str


def _rows(taxonomy: Taxonomy) -> list[Row]:
    rows: list[Row] = []
    for node in taxonomy.nodes.values():
        if node.is_leaf:
            rows += [Row(t, node.id, "taxonomy") for t in node_texts(node)]
    for name in SOURCES:
        for item in yaml_load.safe_load((DATA_DIR / name).read_text(encoding="utf-8")) or []:
            node = item["node"]
            if node == NONE or node in taxonomy.nodes:
                rows.append(Row(" ".join(item["text"].split()), node, name))
    for text in yaml_load.safe_load((DATA_DIR / "sound_arguments.yaml").read_text(encoding="utf-8")):
        rows.append(Row(" ".join(text.split()), NONE, "sound_arguments.yaml"))
    seen: set[str] = set()
    out = []
    for r in rows:
        if r.text and r.text not in seen:
            seen.add(r.text)
            out.append(r)
    return out


class FallacyMemory:
    def __init__(self, taxonomy: Taxonomy, cache: Path | None = None) -> None:
        self.taxonomy = taxonomy
        self.rows = _rows(taxonomy)
        self.vectors = embed_cached([r.text for r in self.rows], kind="query", cache=cache)
        nodes = np.array([r.node for r in self.rows])
        self.by_node = {n: np.flatnonzero(nodes == n) for n in set(nodes.tolist())}
        self.sound = self.by_node.get(NONE, np.zeros(0, dtype=np.int64))
        self.leaves = [n.id for n in taxonomy.nodes.values() if n.is_leaf]
        self._head: LinearHead | None = None
        self._leaf_of_family = {
            n.id: [leaf for leaf in self.leaves if n.id in {a.id for a in taxonomy.ancestors(leaf)}]
            for n in taxonomy.nodes.values()
            if not n.is_leaf
        }

    def fit_head(self, exclude: np.ndarray | None = None) -> LinearHead:
        """The fallacious-or-sound head over the rows (``exclude``: rows held out, for cross-validation)."""
        keep = np.ones(len(self.rows), dtype=bool)
        if exclude is not None and exclude.size:
            keep[exclude] = False
        fallacious = np.array([r.node != NONE for r in self.rows])
        return fit_head(self.vectors[keep], fallacious[keep])

    @property
    def head(self) -> LinearHead:
        if self._head is None:
            self._head = self.fit_head()
        return self._head

    def embed(self, text: str) -> np.ndarray:
        return embed_query(text)

    @staticmethod
    def _mean_top(sims: np.ndarray, m: int) -> float:
        if sims.size == 0:
            return -1.0
        m = min(m, sims.size)
        return float(np.sort(sims)[-m:].mean())

    def scores(
        self, q: np.ndarray, m: int = 2, exclude: np.ndarray | None = None
    ) -> tuple[dict[str, float], float, dict[str, str]]:
        """Per leaf: the mean of its ``m`` nearest rows (a family row counts for each of its leaves as a
        fallback); the sound reference; and the nearest row's text per leaf (for the justification).
        ``exclude``: row indices left out (cross-validation holds a text's own row out of its memory)."""
        sims = self.vectors @ q
        if exclude is not None and exclude.size:
            sims = sims.copy()
            sims[exclude] = -1.0
        leaf_scores: dict[str, float] = {}
        nearest: dict[str, str] = {}
        for leaf in self.leaves:
            idx = self.by_node.get(leaf)
            if idx is None or idx.size == 0:
                continue
            leaf_scores[leaf] = self._mean_top(sims[idx], m)
            nearest[leaf] = self.rows[int(idx[np.argmax(sims[idx])])].text
        for fam, leaves in self._leaf_of_family.items():
            idx = self.by_node.get(fam)
            if idx is None or idx.size == 0:
                continue
            s = self._mean_top(sims[idx], m)
            for leaf in leaves:  # a family-labelled text supports its leaves a little less than a leaf's own
                if s - 0.01 > leaf_scores.get(leaf, -1.0):
                    leaf_scores[leaf] = s - 0.01
                    nearest[leaf] = self.rows[int(idx[np.argmax(sims[idx])])].text
        return leaf_scores, self._mean_top(sims[self.sound], m), nearest


@lru_cache(maxsize=2)
def builtin_memory(cache: Path | None = None) -> FallacyMemory:
    return FallacyMemory(builtin_taxonomy(), cache)
