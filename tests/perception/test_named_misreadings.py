"""Issue 29, point 2: the misreadings found on the example dossiers, fixed by mechanism and tested here in
other words than the dossiers' (a contract's own jurisdiction clause; a sum of money read near its cue)."""

from __future__ import annotations

from typing import Any

import pytest

from lexlogic.engine.documents.model import DocumentKind
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from tests.perception.one_text import document
from tests.support.packs import SHIPPED


def read(text: str, pack: str = "rupture_brutale", kind: DocumentKind = DocumentKind.OTHER) -> dict[str, Any]:
    p = SHIPPED.pack(pack)
    return to_case_file(extract([document(text, kind=kind)], p), "t", p)["facts"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("clause", "court"),
    [
        (
            "Article 11 – Attribution de compétence\nLes contestations auxquelles le présent accord pourrait donner "
            "lieu relèveront de la compétence exclusive du tribunal de commerce de Bordeaux.",
            "france",
        ),
        (
            "Article 14 – Contestations\nToute contestation sera portée devant les juridictions de Milan, seules "
            "compétentes.",
            "eu_member_state",
        ),
        (
            "Article 9 – Règlement des litiges\nLes parties conviennent de soumettre leurs litiges aux tribunaux de "
            "Genève.",
            "non_eu",
        ),
    ],
)
def test_a_contracts_own_clause_designating_a_court_is_read(clause: str, court: str) -> None:
    """The pack's reader used to skip contracts (their clauses were the structural readers', which read no
    jurisdiction clause): the court designated by a contract was read as « aucune clause » by default."""
    text = "CONTRAT DE FOURNITURE\n\nArticle 1 – Objet\nLe fournisseur livre des palettes.\n\n" + clause + "\n"
    found = read(text, kind=DocumentKind.CONTRACT)
    assert found["jurisdiction_clause_court"]["value"] == court
    assert "compéten" in text or "litiges" in text
    quote = found["jurisdiction_clause_court"]["grounding"][0]["quote"]
    assert quote in text


def test_a_contract_without_a_jurisdiction_clause_reads_none() -> None:
    text = (
        "CONTRAT DE PRESTATION\n\nArticle 2 – Prix\nLe prix est révisé chaque année.\n\n"
        "Article 3 – Durée\nLe contrat est conclu pour deux ans.\n"
    )
    assert "jurisdiction_clause_court" not in read(text, kind=DocumentKind.CONTRACT)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("La facture F-88 du 2 février 2024, d'un montant de 7 250,40 € TTC, est restée impayée.", 7250.40),
        ("Net à payer TTC : 12 480,00 €", 12480.0),
        ("Au 30 avril, le solde dû s'élevait à 3 100 euros.", 3100.0),
    ],
)
def test_the_unpaid_amount_is_read_where_it_is_written(text: str, value: float) -> None:
    """« 18 600 € TTC » stood in three pieces, yet the amount was « incalculable » (no reader for a sum)."""
    assert read(text, "late_payment")["amount_outstanding"]["value"] == pytest.approx(value)


def test_the_recovery_costs_incurred_are_read_not_the_flat_indemnity() -> None:
    """The note's « 420 € de frais … justifiés » gave « ✘ Non : indemnisation complémentaire » (the costs were
    never read, so they defaulted to 0 € — below the 40 € indemnity)."""
    facts = read(
        "Le créancier a dû engager 1 150 euros de frais de recouvrement (honoraires d'un cabinet), justifiés par "
        "les factures du cabinet.",
        "late_payment",
    )
    assert facts["recovery_costs"]["value"] == pytest.approx(1150.0)
    assert facts["recovery_costs_justified"]["value"] is True
    flat = read("Indemnité forfaitaire pour frais de recouvrement : 40 € (art. D.441-5).", "late_payment")
    assert "recovery_costs" not in flat
