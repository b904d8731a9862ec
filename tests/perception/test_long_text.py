"""Issue 34: a document whose text is longer than spaCy accepts (1,000,000 characters: E088) made every run
of its case fail (a 500 through the API). It is now parsed in pieces joined back into one Doc.

spaCy's limit is lowered for the test (the real one would take minutes to reach on this machine); the old
code raised E088 here as it did at a million characters."""

from __future__ import annotations

import pytest

from lexlogic.bridges import spacy_nlp

TEXT = ("La société Alpha a livré les commandes de Beta sans interruption depuis 2010 et " * 120).strip()


@pytest.fixture
def small_limit():  # type: ignore[no-untyped-def]
    nlp = spacy_nlp.french()
    before = nlp.max_length
    nlp.max_length = 2_000
    spacy_nlp.parse.cache_clear()
    try:
        yield nlp
    finally:
        nlp.max_length = before
        spacy_nlp.parse.cache_clear()


def test_text_over_the_limit_is_parsed_in_pieces(small_limit) -> None:  # type: ignore[no-untyped-def]
    assert len(TEXT) > 4 * small_limit.max_length
    with pytest.raises(ValueError, match="E088"):
        small_limit(TEXT)  # what the bridge called before
    doc = spacy_nlp.parse(TEXT)
    assert doc.text == TEXT  # one Doc, same text: every offset still points into the document
    for tok in doc:
        assert TEXT[tok.idx : tok.idx + len(tok.text)] == tok.text
    assert not any(tok.text.strip() != tok.text or not tok.text for tok in doc if not tok.is_space)
    assert len({t.lemma_ for t in doc if t.lemma_ == "livrer"}) == 1  # parsed (lemmas), not just split
    assert sum(1 for t in doc if t.dep_ == "ROOT") >= 1
