import json

import numpy as np
import pytest

from lexlogic.bridges.vector_index import VectorIndex, VectorIndexError


def _unit(n: int, d: int = 32, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_exact_and_hnsw_agree_and_sort_best_first():
    vecs, queries = _unit(2000), _unit(50, seed=1)
    exact = VectorIndex(vecs, backend="exact")
    hnsw = VectorIndex(vecs, backend="hnsw", ef_search=128)
    ids_e, sims_e = exact.search(queries, 3)
    ids_h, sims_h = hnsw.search(queries, 3)
    assert np.all(np.diff(sims_e, axis=1) <= 1e-6)
    brute = np.argsort(-(queries @ vecs.T), axis=1)[:, :3]
    assert np.array_equal(ids_e, brute)
    recall = np.mean([len(set(a) & set(b)) / 3 for a, b in zip(ids_e, ids_h)])
    assert recall >= 0.95
    np.testing.assert_allclose(sims_h[ids_h == ids_e], sims_e[ids_h == ids_e], atol=1e-4)


def test_auto_chooses_by_size():
    assert VectorIndex(_unit(10), exact_below=100).backend == "exact"
    assert VectorIndex(_unit(200), exact_below=100).backend == "hnsw"


def test_k_larger_than_index_and_empty_index():
    idx = VectorIndex(_unit(2), backend="exact")
    ids, _ = idx.search(_unit(1, seed=3), 5)
    assert ids.shape == (1, 2)
    empty = VectorIndex(np.zeros((0, 32), np.float32))
    ids, _ = empty.search(_unit(1), 3)
    assert ids.shape == (1, 0)


@pytest.mark.parametrize("backend", ["exact", "hnsw"])
def test_save_and_load_round_trip(tmp_path, backend):
    vecs, q = _unit(300), _unit(5, seed=2)
    idx = VectorIndex(vecs, backend=backend)
    idx.save(tmp_path)
    again = VectorIndex.load(tmp_path)
    assert again.backend == backend and len(again) == 300
    assert np.array_equal(idx.search(q, 3)[0], again.search(q, 3)[0])
    assert (tmp_path / "hnsw.bin").exists() == (backend == "hnsw")


def test_load_rejects_mismatched_or_missing_files(tmp_path):
    VectorIndex(_unit(20), backend="hnsw").save(tmp_path)
    (tmp_path / "hnsw.bin").unlink()
    with pytest.raises(VectorIndexError, match="hnsw.bin"):
        VectorIndex.load(tmp_path)
    meta = json.loads((tmp_path / "index.json").read_text())
    meta["n"] = 21
    (tmp_path / "index.json").write_text(json.dumps(meta))
    with pytest.raises(VectorIndexError, match="does not match"):
        VectorIndex.load(tmp_path)
    with pytest.raises(VectorIndexError):
        VectorIndex.load(tmp_path / "absent")


from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(1, 8), seed=st.integers(0, 10_000))
def test_exact_search_is_the_brute_force_top_k(n, k, seed):
    vecs, q = _unit(n, 8, seed), _unit(3, 8, seed + 1)
    ids, sims = VectorIndex(vecs, backend="exact").search(q, k)
    full = q @ vecs.T
    kk = min(k, n)
    assert ids.shape == (3, kk)
    np.testing.assert_allclose(sims, -np.sort(-full, axis=1)[:, :kk], atol=1e-6)
    np.testing.assert_allclose(np.take_along_axis(full, ids, axis=1), sims, atol=1e-6)
