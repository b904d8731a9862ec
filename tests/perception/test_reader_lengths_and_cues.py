"""Issue 18, second session round 2: lengths read with the pack's reach, a cue's own length, wrapped phrases
(texts written here for the test, not taken from any evaluation set)."""

from __future__ import annotations

from tests.perception.one_text import facts_of as _facts


def test_a_sector_usage_stated_far_from_its_cue() -> None:
    facts = _facts(
        "Le fabricant a mis fin au contrat par lettre du 3 janvier 2022. L'usage dans la papeterie, tel que le "
        "syndicat professionnel le rappelle, est d'un préavis de cinq mois pour les grossistes."
    )
    assert facts["sector_usage_months"]["value"] == 5


def test_the_first_months_of_the_notice_are_the_cues_own_length() -> None:
    facts = _facts(
        "Par lettre du 2 mai 2022, le client a mis fin à la relation avec un préavis de huit mois. Aucune "
        "commande n'a pourtant été passée pendant les trois premiers mois de ce préavis."
    )
    assert facts["notice_suspended_months"]["value"] == 3


def test_a_phrase_cue_cut_by_a_wrapped_indented_line() -> None:
    facts = _facts(
        "- mars 2022 : lettre annonçant la fin des achats ;\n"
        "- d'avril à juin 2022 : aucune commande, soit trois mois de\n"
        "    suspension ; reprise ensuite."
    )
    assert facts["notice_suspended_months"]["value"] == 3


def test_my_client_is_the_authors_party_and_your_client_the_other() -> None:
    facts = _facts(
        "Cher confrère,\n\nVotre cliente, la société Menuiseries Pélissier, conteste la compétence du tribunal. "
        "Mon client, Vitrages Moreau, maintient son assignation : la relation a été rompue sans préavis par "
        "lettre du 4 mars 2021.\n\nBien confraternellement,",
        author="claimant",
    )
    assert facts["claimant_name"]["value"] == "Vitrages Moreau"
    assert facts["defendant_name"]["value"] == "Menuiseries Pélissier"


def test_ca_fait_n_ans_dates_the_relation_from_the_document() -> None:
    facts = _facts(
        "Bonjour,\n\nÇa fait neuf ans qu'on travaille avec Optimo Conseil. Hier, ils ont mis fin à la relation "
        "par téléphone.\n\nPaul — Atelier Brissac",
        author="claimant",
    )
    assert str(facts["relation_start"]["value"]).startswith("2014")
