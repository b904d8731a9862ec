"""The late-payment reader reads what a lawyer needs, by mechanism, and says nothing a text does not state (issue 29).

Texts here are the developer's own (other words than the dev set's): invoice date, TTC before HT (HT + TVA only
when both are given), the agreed term and its kind, payment, part payment, penalty clause and rate, recovery
costs (never the 40 € indemnity), and the party whose own document makes a reading an allegation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from lexlogic.engine.documents.model import DocumentKind
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from tests.perception.one_text import document
from tests.support.packs import SHIPPED

OWN = Path(__file__).resolve().parent / "late_payment" / "own"


def read(text: str, author: str = "neutral", kind: DocumentKind = DocumentKind.OTHER) -> dict[str, Any]:
    pack = SHIPPED.pack("late_payment")
    return to_case_file(extract([document(text, author, kind)], pack), "t", pack)["facts"]  # type: ignore[no-any-return]


def values(facts: dict[str, Any]) -> dict[str, Any]:
    return {k: v["value"] for k, v in facts.items()}


@pytest.mark.parametrize("path", sorted(OWN.glob("o0[1-5]-*.yaml")), ids=lambda p: p.stem)
def test_the_developers_texts_are_read_right(path: Path) -> None:
    """Every gold fact of these texts is read with its value, as an allegation where the gold says so."""
    item = yaml.safe_load(path.read_text(encoding="utf-8"))
    kind = {"letter": DocumentKind.LETTER, "email": DocumentKind.EMAIL}.get(item["kind"], DocumentKind.OTHER)
    facts = read(item["text"], item["author_party"], kind)
    for name, gold in item["gold"].items():
        if name == "amount_outstanding" and "acompte" in item["text"]:
            assert name not in facts  # a part payment: the sum due at the due date is not written
            continue
        assert name in facts, name
        got = facts[name]["value"]
        assert (
            (float(got) == float(gold["value"]))
            if isinstance(gold["value"], (int, float)) and not isinstance(gold["value"], bool)
            else str(got) == str(gold["value"])
        ), (name, got)
        if gold.get("status") == "alleged":
            assert facts[name].get("allegation") == "alleged" and facts[name].get("alleged_by") == gold["by"], name


def test_ttc_is_preferred_and_ht_alone_is_no_reading() -> None:
    both = read("La facture s'élève à 1 000 € HT, soit 1 200 € TTC.")
    assert values(both)["amount_outstanding"] == 1200.0
    ht_only = read("La facture s'élève à 1 000 € HT.")
    assert "amount_outstanding" not in ht_only  # the fact is TTC: an HT sum alone is no reading of it


def test_ht_plus_tva_makes_the_ttc_only_when_both_are_written() -> None:
    facts = read("Montant de la prestation : 2 500,00 € HT ; TVA à 20 % : 500,00 €.")
    assert values(facts)["amount_outstanding"] == 3000.0


def test_a_sum_in_words_is_read() -> None:
    facts = read("La facture d'un montant de trois mille six cents euros TTC n'a jamais été réglée.")
    assert values(facts)["amount_outstanding"] == 3600.0
    assert values(facts)["paid"] is False


def test_an_instalment_withholds_the_amount_due() -> None:
    facts = read("La facture de 9 000 € TTC a donné lieu à un acompte de 2 000 € ; le reste a été payé plus tard.")
    assert "amount_outstanding" not in facts


def test_the_forty_euro_indemnity_is_no_recovery_cost_and_no_costs_is_zero() -> None:
    flat = read("Le créancier réclame l'indemnité forfaitaire de 40 € pour frais de recouvrement.", "claimant")
    assert "recovery_costs" not in flat
    beside = read("Il a exposé 1 350 € de frais d'avocat, outre l'indemnité forfaitaire de 40 €.")
    assert values(beside)["recovery_costs"] == 1350.0
    none = read("Aucun frais de recouvrement n'a été engagé à ce jour.")
    assert values(none)["recovery_costs"] == 0.0


def test_terms_and_their_kinds() -> None:
    cases = {
        "Nos factures sont payables à 30 jours fin de mois.": ("days_end_of_month", 30),
        "Les factures sont réglées fin de mois plus 15 jours.": ("end_of_month_days", 15),
        "Conditions de paiement : 45 jours date de facture.": ("days_from_invoice", 45),
        "Règlement : à réception de facture.": ("days_from_invoice", 0),
    }
    for text, (kind, days) in cases.items():
        facts = values(read(text))
        assert facts["agreed_term_kind"] == kind and facts["agreed_term_days"] == days, text
    none = values(read("Les parties n'ont convenu d'aucun délai de paiement."))
    assert none["agreed_term_kind"] == "none" and "agreed_term_days" not in none


def test_penalty_clause_and_rate() -> None:
    own = values(read("Tout retard entraîne des pénalités au taux annuel de 9 %.", "claimant"))
    assert own["penalty_clause"] is True and own["contractual_penalty_rate_pct"] == 9.0
    legal = values(read("Pénalités de retard : taux de la BCE majoré de 10 points."))
    assert legal["penalty_clause"] is False and "contractual_penalty_rate_pct" not in legal
    formula = values(read("Les pénalités sont fixées à trois fois le taux d'intérêt légal."))
    assert formula["penalty_clause"] is True and "contractual_penalty_rate_pct" not in formula


def test_invoice_date_after_its_reference_and_the_balance_s_payment_date() -> None:
    facts = values(read("Notre facture 24-118 du 3 mars 2024 reste impayée.", "claimant"))
    assert facts["invoice_date"] == "2024-03-03" and facts["paid"] is False
    paid = values(read("Le client a réglé un acompte le 2 mai 2024, puis le solde le 15 juin 2024."))
    assert paid["payment_date"] == "2024-06-15"


def test_a_text_that_states_none_of_the_facts_gives_no_reading() -> None:
    facts = read("Nous vous remercions de votre confiance et restons à votre disposition pour tout renseignement.")
    assert facts == {}


def test_procedural_dates_are_read_as_evidence() -> None:
    facts = read(
        "Par exploit du 9 octobre 2024, le fournisseur a fait assigner son client. Le tribunal a ouvert une "
        "procédure de redressement judiciaire à l'égard du client par jugement du 3 février 2025."
    )
    assert facts["claim_date"]["value"] == "2024-10-09" and facts["claim_date"].get("allegation") is None
    assert facts["insolvency_opening_date"]["value"] == "2025-02-03"
    heading = read("Ordonnance du 11 avril 2025\nProcédure de sauvegarde de la société Alpha.")
    assert "insolvency_opening_date" not in heading  # a procedure's name dated by the order is no opening
