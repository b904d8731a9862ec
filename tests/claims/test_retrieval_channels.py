"""Issue 19, second round: retrieval channels for passages that resemble no claim (date lines, the table).

Claims written for these tests, not taken from the dev or frozen sets."""

from __future__ import annotations

import pytest


def _texts(shipped, claim: str, k: int = 10) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.memory.text for c in shipped.search(claim, k)]


@pytest.mark.parametrize(
    "claim,line",
    [
        ("Le courrier du 9 octobre 2023 reprochait au fabricant ses manquements.", "Lyon, le 9 octobre 2023"),
        ("La lettre du dix-huit mars 2024 a été signée par la directrice des achats.", "Lyon, le 18 mars 2024"),
    ],
)
def test_a_piece_named_by_its_date_brings_its_date_line(shipped, claim, line):
    assert line in _texts(shipped, claim)


def test_date_lines_are_short_passages_only(shipped):
    lines = shipped._date_lines("Le 15 mars 2024, l'enseigne a écrit.")
    texts = [shipped.memories[i].text for i in lines]
    assert texts and all(len(t.split()) <= 8 for t in texts)
    assert not any("Nous vous informons" in t for t in texts)
    assert shipped._date_lines("Le fabricant a livré en retard.") == []


@pytest.mark.parametrize(
    "claim,table",
    [
        ("Le distributeur a maintenu le rythme de ses commandes.", True),  # a column's word
        ("Les retards de 2023 ont été tolérés par l'enseigne.", True),  # a year with a row, named alone
        ("Le courriel du 15 mars 2024 annonce la rupture.", False),  # a year inside a full date: not the table
    ],
)
def test_a_column_word_or_a_lone_year_brings_the_table(shipped, claim, table):
    assert bool(shipped._tables_for(claim)) is table


def test_a_short_sentence_stays_with_the_one_before_it_on_its_line():
    from lexlogic.engine.claims.passages import _units

    text = "Article 9\nLe vendeur reste libre de céder ses parts. La clause n'est pas exclusive.\nC'est entendu."
    got = [text[s:e] for s, e in _units(text)]
    assert got == [
        "Article 9",
        "Le vendeur reste libre de céder ses parts. La clause n'est pas exclusive.",
        "C'est entendu.",  # alone on its line: its own passage
    ]
    long = "Le vendeur a livré. Le vendeur a ensuite adressé trois factures au client."
    assert len(_units(long)) == 2


@pytest.mark.parametrize(
    "claim",
    [
        "La directrice commerciale du fabricant a consenti au retrait de ses références.",
        "En acceptant les nouveaux tarifs, le fabricant a approuvé la sortie de ses produits.",
    ],
)
def test_a_bare_act_is_read_among_the_acts(shipped, claim):
    assert "C'est d'accord." in _texts(shipped, claim)  # missed without ACT_SHORT_BONUS


def test_bm25_reads_synonyms_on_both_sides():
    from lexlogic.engine.claims.retrieval import canon_words

    assert canon_words("un délai de prévenance d'un mois").endswith(" preavi")
    assert canon_words("moyennant un préavis de deux mois").endswith(" preavi")
    assert canon_words("le fournisseur a livré").endswith(" livr")
    assert canon_words("la résiliation du contrat") == "la résiliation du contrat contrat"  # rupture: no key
    assert canon_words("Bonjour") == "Bonjour"


def test_other_words_for_the_notice_find_the_notice(shipped):
    texts = _texts(shipped, "Le délai de prévenance accordé par l'enseigne était plus long que celui du contrat.")
    assert any("préavis de trois mois" in t for t in texts)  # missed without canon_words


def test_an_antonym_in_the_contract_contradicts(shipped):
    """« n'est pas exclusif » against a claim of exclusivity. (Session 3: retrieval now ranks that passage first,
    so the former « below the top three » half of this test had no object; e5's similarity for it sits at the
    old 0.84 cut-off, 0.8398 on this machine's CPU, hence the 0.83 floor.)"""
    from lexlogic.engine.claims.judge_reading import ReadingJudge
    from lexlogic.engine.claims.models import Status
    from lexlogic.engine.claims.verify import verify_all

    claim = "Le fabricant devait travailler exclusivement avec Distrimarché."
    (result,) = verify_all(shipped, [claim], k=10, judge=ReadingJudge())
    assert result.judged is Status.CONTRADICTED
    quotes = [e.content for e in [result.evidence, *result.contradictory] if e is not None]
    assert any("n'est pas exclusif" in q for q in quotes)
