"""Nearest-neighbour search over normalised embeddings: exact numpy below a size, hnswlib above.

Why two backends: hnswlib is built from source here (``-march=native``) and, measured on this machine,
a plain matrix product beats it below roughly ten thousand vectors (see ``benchmarks/claims.py``), while
HNSW wins above. ``backend="auto"`` chooses by size; both can be forced (tests, benchmark).
Vectors are L2-normalised float32, so scores are cosine similarities (inner products).

Persistence: ``save(dir)`` writes ``vectors.npy`` (always: exact search and rebuilds need them),
``hnsw.bin`` when the HNSW backend is active, and ``index.json`` (backend, size, parameters).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np

from lexlogic.logic.errors import UnavailableError

Backend = Literal["auto", "exact", "hnsw"]

# Below this many vectors, exact search is used by "auto" (measured: benchmarks/claims.py).
EXACT_BELOW = 2_000


class VectorIndexError(UnavailableError, RuntimeError):
    """The index files are missing, corrupt, or do not match the expected shape."""


class VectorIndex:
    """An immutable index over ``n`` vectors of dimension ``dim``; ids are row numbers 0..n-1."""

    def __init__(
        self,
        vectors: np.ndarray,
        *,
        backend: Backend = "auto",
        exact_below: int = EXACT_BELOW,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 96,
        threads: int = 1,
        _hnsw: Any = None,
    ) -> None:
        vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
        if vectors.ndim != 2:
            raise VectorIndexError(f"vectors must be a 2-D array, got shape {vectors.shape}")
        self.vectors = vectors
        self.dim = int(vectors.shape[1])
        self.m, self.ef_construction, self.ef_search, self.threads = m, ef_construction, ef_search, threads
        if backend == "auto":
            backend = "exact" if len(vectors) < exact_below else "hnsw"
        if backend not in ("exact", "hnsw"):
            raise VectorIndexError(f"unknown backend {backend!r} (exact | hnsw | auto)")
        self.backend: Literal["exact", "hnsw"] = backend
        self._hnsw = _hnsw
        if self.backend == "hnsw" and self._hnsw is None and len(vectors):
            self._hnsw = self._build_hnsw()

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def _build_hnsw(self) -> Any:  # hnswlib.Index: the library ships no types
        import hnswlib

        index = hnswlib.Index(space="ip", dim=self.dim)
        index.init_index(max_elements=max(len(self), 1), ef_construction=self.ef_construction, M=self.m, random_seed=42)
        index.set_num_threads(max(self.threads, 1))
        index.add_items(self.vectors, np.arange(len(self)))
        index.set_ef(self.ef_search)
        return index

    def search(self, queries: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` (ids, similarities) per query, best first; shapes (q, min(k, n))."""
        q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        k = min(k, len(self))
        if k <= 0:
            return np.zeros((len(q), 0), dtype=np.int64), np.zeros((len(q), 0), dtype=np.float32)
        if self.backend == "exact":
            return _exact_topk(self.vectors, q, k)
        index = self._hnsw
        index.set_ef(max(self.ef_search, k))
        labels, dist = index.knn_query(q, k=k)
        return labels.astype(np.int64), (1.0 - dist).astype(np.float32)

    # --- persistence ------------------------------------------------------------------------
    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        np.save(d / "vectors.npy", self.vectors)
        if self.backend == "hnsw" and self._hnsw is not None:
            self._hnsw.save_index(str(d / "hnsw.bin"))
        meta = {
            "backend": self.backend,
            "n": len(self),
            "dim": self.dim,
            "m": self.m,
            "ef_construction": self.ef_construction,
            "ef_search": self.ef_search,
        }
        (d / "index.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path, threads: int = 1) -> VectorIndex:
        d = Path(directory)
        try:
            meta = json.loads((d / "index.json").read_text(encoding="utf-8"))
            vectors = np.load(d / "vectors.npy")
        except (OSError, ValueError) as exc:
            raise VectorIndexError(f"cannot load vector index from {d}: {exc}") from exc
        if vectors.shape != (meta["n"], meta["dim"]):
            raise VectorIndexError(
                f"{d / 'vectors.npy'}: shape {vectors.shape} does not match "
                f"index.json (n={meta['n']}, dim={meta['dim']})"
            )
        hnsw = None
        if meta["backend"] == "hnsw" and meta["n"]:
            import hnswlib

            path = d / "hnsw.bin"
            if not path.exists():
                raise VectorIndexError(f"{path} is missing (index.json says backend hnsw)")
            hnsw = hnswlib.Index(space="ip", dim=meta["dim"])
            hnsw.load_index(str(path), max_elements=meta["n"])
            hnsw.set_num_threads(max(threads, 1))
            hnsw.set_ef(meta["ef_search"])
        return cls(
            vectors,
            backend=meta["backend"],
            m=meta["m"],
            ef_construction=meta["ef_construction"],
            ef_search=meta["ef_search"],
            threads=threads,
            _hnsw=hnsw,
        )


def _exact_topk(vectors: np.ndarray, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    sims = q @ vectors.T
    if k < sims.shape[1]:
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    else:
        part = np.tile(np.arange(sims.shape[1]), (len(q), 1))
    part_sims = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-part_sims, axis=1, kind="stable")
    ids = np.take_along_axis(part, order, axis=1)
    return ids.astype(np.int64), np.take_along_axis(part_sims, order, axis=1).astype(np.float32)
