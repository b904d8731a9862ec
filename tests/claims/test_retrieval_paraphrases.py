"""Issue 19, round 4: claims retrieval for other people's wording (paraphrase classes, computed claims).

Claims written for these tests, not taken from the dev or frozen sets. Each retrieval test fails with its
mechanism switched off in ``engine.claims.retrieval`` (checked: ``LEXICON = False``, ``END_SLOTS = 0``,
``BIGRAMS = False``, ``DATE_TOP = 0``, the « forme » notion removed, the knowledge cues removed)."""

from __future__ import annotations

import numpy as np
import pytest


def _texts(shipped, claim: str, k: int = 10) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.memory.text for c in shipped.search(claim, k)]


@pytest.mark.parametrize(
    "a,b",
    [
        ("les produits ont été retirés des rayons", "une sortie progressive de vos références"),
        ("l'enseigne a déréférencé le fabricant", "le retrait de ses articles"),
        ("par voie électronique", "par courriel du 15 mars"),
        ("une relation durable", "il se renouvelle par tacite reconduction"),
        ("un retrait échelonné", "une sortie progressive"),
        ("une réduction de ses prix", "une baisse de 6 %"),
        ("l'enseigne lui a fait savoir", "nous vous informons de notre décision"),
        ("les ventes réalisées avec l'enseigne", "le chiffre d'affaires réalisé"),
        ("le fabricant a protesté", "le fournisseur conteste les retards"),
    ],
)
def test_paraphrases_share_a_class_key(a, b):
    from lexlogic.engine.claims.lexicon import class_keys
    from lexlogic.engine.text.fold import fold

    assert set(class_keys(fold(a))) & set(class_keys(fold(b)))


@pytest.mark.parametrize("text", ["Le contrat est soumis au droit français.", "Bonjour", "12 commandes en 2023"])
def test_unrelated_text_gets_no_class_key(text):
    from lexlogic.engine.claims.lexicon import class_keys
    from lexlogic.engine.text.fold import fold

    assert class_keys(fold(text)) == ()


def test_class_keys_join_bm25_on_both_sides():
    from lexlogic.engine.claims.retrieval import canon_words

    assert "zqretrait" in canon_words("le retrait des références").split()
    assert "zqretrait" in canon_words("nous envisageons une sortie progressive").split()


def test_a_nominalised_paraphrase_retrieves_its_sentence(shipped):
    # « retrait » (noun of « retirer ») and « message électronique » for « déréférencement » and « courriel »
    texts = _texts(
        shipped, "L'enseigne a fait connaître par message électronique le retrait de tous les articles du fabricant."
    )
    assert any(t.startswith("Par courriel du 15 mars 2024") for t in texts)


def test_renewal_in_other_words_retrieves_the_renewal_clause(shipped):
    texts = _texts(shipped, "Le contrat ne se prolongeait pas d'année en année.")
    assert any("tacite reconduction" in t for t in texts)


def test_a_claim_computed_from_two_pieces_retrieves_both(shipped):
    claim = (
        "Il s'est écoulé plus de quatre ans entre l'achat de la ligne de conditionnement et l'annonce du "
        "déréférencement."
    )
    texts = _texts(shipped, claim)
    assert any("investi 380 000" in t for t in texts)  # the note: the investment's year
    assert any(t.startswith("Par courriel du 15 mars 2024") for t in texts)  # the e-mail: the announcement


def test_the_ends_of_a_computed_claim():
    from lexlogic.engine.claims.retrieval import HybridMemory

    mem = HybridMemory([], np.zeros((0, 384), np.float32))
    ends = mem._ends("Plus de quatre ans se sont écoulés entre l'investissement et la rupture.")
    assert ends == ["investissement", "rupture"]
    assert len(mem._ends("L'enseigne a écrit par courriel avant d'envoyer une lettre recommandée.")) == 2
    assert mem._ends("Le contrat a été signé à Lyon.") == []
    assert mem._ends("Les commandes ont baissé de 30 % entre 2019 et 2021.") == []  # a range of years


@pytest.mark.parametrize(
    "claim",
    [
        "Les retards de livraison autorisaient une rupture sans préavis.",
        "Les livraisons tardives permettaient à l'enseigne une rupture sans préavis.",
    ],
)
def test_a_phrase_weighs_more_than_its_scattered_words(shipped, claim):
    # « sans préavis » in the clause that allows it (7.2), not « préavis » alone in every letter
    assert any(t.startswith("7.2") for t in _texts(shipped, claim))


def test_bigrams_keep_the_privative_word():
    from lexlogic.engine.claims.retrieval import bigrams

    assert bigrams("une rupture sans préavis") == "zbrupturxsans zbsansxpreav"  # « une »: a stop word
    assert set(bigrams("rompre sans préavis").split()) & set(bigrams("résilié sans préavis").split())


@pytest.mark.parametrize(
    "claim",
    [
        "L'annonce du déréférencement a été faite oralement au fabricant.",
        "Le fabricant a appris la fin de la relation au téléphone.",
    ],
)
def test_a_claim_on_the_form_of_a_notice_reads_how_it_was_sent(shipped, claim):
    # the notion « forme » (how a piece was sent): the letter's « notifiée par courriel » shares no word with it
    assert any("notifiée par courriel" in t.replace("\n", " ") for t in _texts(shipped, claim))


@pytest.mark.parametrize(
    "claim",
    [
        "Le fabricant ignorait tout du projet de sortie de ses produits.",
        "Avant le 15 mars 2024, personne n'avait informé le fabricant du retrait envisagé.",
    ],
)
def test_what_a_party_knew_reads_its_own_agreement(shipped, claim):
    assert "C'est d'accord." in _texts(shipped, claim)


@pytest.mark.parametrize(
    "claim",
    [
        "Le fournisseur a eu trois mois pleins de préavis.",
        "Le préavis laissé au fabricant couvrait trois mois entiers.",
    ],
)
def test_a_duration_reads_the_date_of_the_piece_it_is_counted_from(shipped, claim):
    # the notice runs from the letter's date: its date line shares no word with the claim (``DATE_TOP = 0``: fails)
    assert "Lyon, le 18 mars 2024" in _texts(shipped, claim)


def test_piece_dates_never_replace_a_date_line_or_a_dated_claim(shipped):
    claim = "Moins d'un mois a passé entre la mise en demeure et le déréférencement du fabricant."
    assert "Date: Fri, 15 Mar 2024 11:20:00 +0100" in _texts(shipped, claim)
    assert shipped._with_piece_dates("Le 15 mars 2024, trois mois de préavis.", [(1, 1.0)], {}) == [(1, 1.0)]
