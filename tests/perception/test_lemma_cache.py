"""Issue 33: the French lemmatizer's tables kept compact (`bridges.spacy_lemmas`) answer as spaCy's own.

One spaCy load as shipped (module fixture); its lemmatizer tables are compacted, kept in a folder and read
back; every word of the fallback table, of each part of speech's exceptions and index answers the same, and
words absent from the model are absent. A kept file that was damaged, or made for another model version,
is not used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lexlogic.bridges import spacy_lemmas, spacy_nlp

GROUP = "test group"
ABSENT = ["zzqxw", "contrat-cadree", "Ω", "", "rupturebrutale"]


@pytest.fixture(scope="module")
def shipped() -> Any:
    with spacy_nlp._torch_hidden():
        import spacy
    return spacy.load(spacy_nlp.FR_MODEL)


@pytest.fixture(scope="module")
def kept(shipped: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("nlp")
    assert spacy_lemmas.save(folder, GROUP, shipped) is not None
    found = spacy_lemmas.load(folder, GROUP)
    assert found is not None
    return folder, found[1]


def test_every_word_gets_the_same_lemmas(shipped: Any, kept: tuple[Path, dict[str, Any]]) -> None:
    lookups = shipped.get_pipe("lemmatizer").lookups
    tables = kept[1]
    lookup = lookups.get_table("lemma_lookup")
    assert len(tables["lemma_lookup"]) == len(lookup) > 100_000
    for key, lemmas in lookup.items():
        assert tables["lemma_lookup"].get(key) == lemmas
    for word in ABSENT:
        assert tables["lemma_lookup"].get(word, [word]) == lookup.get(word, [word])
    checked = 0
    for pos, exceptions in lookups.get_table("lemma_exc").items():
        compact = tables["lemma_exc"][pos]
        for word, lemmas in exceptions.items():
            assert compact.get(word, []) == lemmas, (pos, word)
            checked += 1
        assert all(compact.get(w, []) == [] for w in ABSENT)
    for pos, words in lookups.get_table("lemma_index").items():
        compact = tables["lemma_index"][pos]
        assert len(compact) == len(words)
        assert all(w in compact for w in words)
        assert not any(w in compact for w in ABSENT)
        checked += len(words)
    assert checked > 200_000
    assert tables["lemma_rules"] == dict(lookups.get_table("lemma_rules"))


def test_the_pipeline_rebuilt_from_the_kept_tables_lemmatizes_the_same(
    shipped: Any, kept: tuple[Path, dict[str, Any]]
) -> None:
    with spacy_nlp._torch_hidden():
        import spacy
    found = spacy_lemmas.load(kept[0], GROUP)
    assert found is not None
    rebuilt = spacy.load(spacy_nlp.FR_MODEL, exclude=["lemmatizer"])
    spacy_lemmas.attach(rebuilt, found)
    assert rebuilt.component_names == shipped.component_names and rebuilt.pipe_names == shipped.pipe_names
    text = (
        "Le fournisseur a brutalement rompu, sans préavis écrit, la relation commerciale établie depuis 2012 ; "
        "les commandes ont baissé de 40 % et la société Dupont-Martin réclame 120 000 euros à Lyon."
    )
    a, b = shipped(text), rebuilt(text)
    assert [(t.lemma_, t.pos_, str(t.morph)) for t in a] == [(t.lemma_, t.pos_, str(t.morph)) for t in b]


def test_a_damaged_or_foreign_file_is_not_used(kept: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    folder = kept[0]
    assert spacy_lemmas.load(folder, "another spaCy or model version") is None
    (path,) = folder.glob("lemmas-*.npz")
    data = bytearray(path.read_bytes())
    copy = tmp_path / "nlp"
    copy.mkdir()
    middle = len(data) // 2
    data[middle] ^= 0xFF  # one byte of the arrays changed: the digest no longer matches (or the zip is unreadable)
    (copy / path.name).write_bytes(bytes(data))
    assert spacy_lemmas.load(copy, GROUP) is None
    (copy / path.name).write_bytes(b"not a zip file")
    assert spacy_lemmas.load(copy, GROUP) is None
