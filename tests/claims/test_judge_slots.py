"""Issue 19, third round: contradiction by another value in the same slot, and a reason a party gave itself.

Claims written for these tests (other wording than the dev and frozen sets). Each rule only ever yields
CONTRADICTED, except the reported reason, which needs the party's own passage giving that reason."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.verify import DEFAULT_K, ReadingJudge, find_evidence


def _status(shipped, claim: str) -> str:  # type: ignore[no-untyped-def]
    return find_evidence(shipped, claim, k=DEFAULT_K, judge=ReadingJudge()).judged.value


@pytest.mark.parametrize(
    "claim,status",
    [
        ("Le contrat-cadre a été conclu à Brest entre les parties.", "CONTRADICTED"),  # « Fait à Lyon »
        ("Les parties ont signé le contrat-cadre à Quimper le 4 mars 2013.", "CONTRADICTED"),  # verb, then the piece
        ("Le courriel du 15 mars annonçant la rupture a été envoyé par Sophie Garnier.", "CONTRADICTED"),  # a name
        ("Le fournisseur a opposé un refus à la demande de baisse de prix.", "CONTRADICTED"),  # a refusal as a noun
        ("Les retards de livraison avaient commencé dès février 2023.", "CONTRADICTED"),  # « depuis juin 2023 »
        ("Le courriel du 15 mars 2024 a été envoyé par la directrice commerciale de l'enseigne.", "CONTRADICTED"),
        ("La directrice commerciale a refusé la proposition de baisse des tarifs pour 2024.", "CONTRADICTED"),
        (
            "Pour justifier la résiliation, Distrimarché a invoqué les retards de livraison constatés en 2023.",
            "VERIFIED",
        ),
    ],
)
def test_the_judge_reads_another_value_in_the_same_slot(shipped, claim, status):
    assert _status(shipped, claim) == status


@pytest.mark.parametrize(
    "claim",
    [
        "Le contrat-cadre a été signé à Lyon.",  # the same place: never contradicted by this rule
        "Le contrat-cadre a été signé à la demande du distributeur.",  # « à » + no proper name: no place
        "Le courriel du 15 mars 2024 a été envoyé par Jean Dupont.",  # a name the dossier does not know
        "Le courriel du 15 mars 2024 a été envoyé par l'acheteur de Distrimarché.",  # his own title
        "La biscuiterie n'a pas refusé la baisse de ses tarifs.",  # negated: left to the other rules
        "Les retards de livraison duraient depuis juin 2023.",  # the same start
        "La biscuiterie n'a jamais consenti à la baisse de ses tarifs.",  # consent denied: an interpretation
    ],
)
def test_the_same_value_is_not_contradicted(shipped, claim):
    assert _status(shipped, claim) != "CONTRADICTED"


@pytest.mark.parametrize(
    "claim,status",
    [
        ("Distrimarché a justifié la résiliation par les retards de livraison répétés constatés en 2023.", "VERIFIED"),
        (
            "Distrimarché a motivé la résiliation par une baisse de la qualité des biscuits.",
            "UNKNOWN",
        ),  # not its reason
    ],
)
def test_a_reason_the_party_gave_is_read_in_its_own_piece(shipped, claim, status):
    assert _status(shipped, claim) == status


def test_a_reported_reason_wrapped_in_an_interpretation_stays_debatable(shipped):
    claim = "Distrimarché s'est prévalue des retards de livraison de 2023, un prétexte pour rompre."
    assert _status(shipped, claim) != "VERIFIED"
