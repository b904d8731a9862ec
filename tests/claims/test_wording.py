"""Issue 19, second session: a lawyer's wording read as the documents' (numbers, frames, interpretation).

Claims are written for these tests (not copied from any evaluation set); the memory is the shipped dossier.
"""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.batch import classify
from lexlogic.engine.claims.judge_reading import ReadingJudge
from lexlogic.engine.claims.normalise import normalise
from lexlogic.engine.claims.passages import passages_of
from lexlogic.engine.claims.quantities import quantities
from lexlogic.engine.claims.verify import verify_all


@pytest.mark.parametrize(
    "text,expected",
    [
        ("depuis plus de onze (11) ans", "depuis plus de 11 ans"),
        ("le quinze juin deux mille vingt-quatre (15/06/2024).", "le 15 juin 2024."),
        ("vingt-huit pour cent (28 %).", "28 %."),
        ("selon l'article 7 (article 7.1)", "selon l'article 7 (article 7.1)"),  # not an echo: kept
        ("une vingtaine de livraisons", "environ 20 livraisons"),
    ],
)
def test_a_lawyers_double_spelling_and_round_numbers_are_read_once(text: str, expected: str) -> None:
    assert normalise(text) == expected


def test_millions_are_amounts() -> None:
    (q,) = quantities("Le chiffre d'affaires avoisine 1,54 million d'euros.")
    assert (q.kind, q.value, q.cmp) == ("amount", 1_540_000.0, "~")
    (q,) = quantities("La marge cumulée a dépassé un million et demi d'euros.")
    assert (q.kind, q.value, q.cmp) == ("amount", 1_500_000.0, ">")


def test_a_period_qualifier_is_not_a_count() -> None:
    assert not [q for q in quantities("Sur les trois derniers exercices, les ventes ont crû.") if q.kind == "count"]


def test_a_signature_is_one_passage(dossier_documents) -> None:  # type: ignore[no-untyped-def]
    texts = [" ".join(m.text.split()) for m in passages_of(dossier_documents)]
    assert "Sophie Garnier Directrice des achats" in texts
    assert "Sophie Garnier" not in texts


@pytest.fixture(scope="module")
def judged(shipped):  # type: ignore[no-untyped-def]
    judge = ReadingJudge()

    def run(claim: str) -> str:
        return verify_all(shipped, [claim], judge=judge)[0].judged.value

    return run


@pytest.mark.parametrize(
    "claim,status",
    [
        # another court in the same slot of the stating sentence
        ("L'assignation a été portée devant le tribunal de commerce de Lyon.", "CONTRADICTED"),
        # the notice a clause requires is compared with the clause (two months), not with the notice given
        ("Le contrat imposait un préavis de trois mois à la partie qui voulait le résilier.", "CONTRADICTED"),
        # a round number against the count the letter gives (twelve)
        ("La mise en demeure reprochait une trentaine de livraisons en retard.", "CONTRADICTED"),
        # an average over the table, in millions
        ("Le chiffre d'affaires moyen des années 2021 à 2023 avoisine 1,54 million d'euros.", "VERIFIED"),
        # a duration computed from the contract's start to the announcement, written twice
        (
            "Les parties étaient en relation d'affaires depuis plus de onze (11) ans lorsque le déréférencement "
            "a été annoncé.",
            "VERIFIED",
        ),
        # knowledge the dossier never records
        ("Distrimarché savait que la biscuiterie employait des intérimaires.", "UNKNOWN"),
    ],
)
def test_reading_judge_on_paraphrases(judged, claim: str, status: str) -> None:  # type: ignore[no-untyped-def]
    assert judged(claim) == status


@pytest.mark.parametrize(
    "claim",
    [
        "La baisse de 6 % a bien été appliquée aux factures d'avril 2024.",  # a proposal, not an act done
        "Le courriel du 15 mars 2024 a été envoyé par la directrice des achats.",  # the date is not the sender
    ],
)
def test_verified_is_not_earned_by_agreeing_numbers_alone(judged, claim: str) -> None:  # type: ignore[no-untyped-def]
    assert judged(claim) != "VERIFIED"


@pytest.mark.parametrize(
    "sentence,kind",
    [
        ("Pour la société Alpha SAS, demanderesse, contre la société Beta SA, défenderesse.", "heading"),
        ("Un préavis d'au moins dix-huit mois s'imposait compte tenu de la durée de la relation.", "legal_argument"),
        ("Un tel comportement ne saurait rester sans conséquence.", "legal_argument"),
        ("Le contrat a pris effet le 4 mars 2013.", "claim"),
    ],
)
def test_batch_sets_aside_captions_and_what_should_have_been(sentence: str, kind: str) -> None:
    got, reason = classify(sentence)
    assert got == kind
    assert bool(reason) == (kind != "claim")


def test_a_claim_of_two_facts_is_split_with_its_subject() -> None:
    from lexlogic.engine.claims.judge_reading import conjuncts

    assert conjuncts("Le contrat est soumis au droit français et confie ses litiges au tribunal de Paris.") == [
        "Le contrat est soumis au droit français.",
        "Le contrat confie ses litiges au tribunal de Paris.",
    ]
    assert conjuncts("Distrimarché a annoncé le déréférencement et la biscuiterie a protesté.") == []  # two subjects
    assert conjuncts("La biscuiterie fabrique des biscuits et des galettes.") == []


@pytest.mark.parametrize(
    "claim,status",
    [
        # two facts, two articles of the contract, the first said with a synonym (« régi » / « soumis »)
        (
            "Le contrat est régi par le droit français et confie au tribunal de commerce de Paris les différends "
            "nés de sa cessation.",
            "VERIFIED",
        ),
        # one of the two facts is false (another court)
        (
            "Le contrat est régi par le droit français et confie au tribunal de commerce de Lyon les différends "
            "nés de sa cessation.",
            "CONTRADICTED",
        ),
    ],
)
def test_conjunctions_need_every_fact(judged, claim: str, status: str) -> None:  # type: ignore[no-untyped-def]
    assert judged(claim) == status


@pytest.mark.parametrize(
    "claim",
    [
        "Le courriel du 1er février 2024 équivalait à une notification de la rupture.",
        "En répondant « C'est d'accord », la biscuiterie a implicitement accepté la sortie de ses références.",
    ],
)
def test_a_characterisation_of_a_recorded_act_is_debatable(judged, claim: str) -> None:  # type: ignore[no-untyped-def]
    assert judged(claim) == "AMBIGUOUS"
