"""The PATTERN extractor, French and English, one test per device and per abstain reason (issue §6)."""

from __future__ import annotations

import pytest

from lexlogic.engine.kg.model import AssertionKind, ExtractionMethod
from lexlogic.engine.kg.model import DiscursiveAbstainReason as A
from lexlogic.engine.kg.model import DiscursiveBasis as B
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.patterns import extract


def one(text: str):
    result = extract(text, "doc")
    assert len(result.assertions) == 1, (result.assertions, result.abstentions)
    assert not result.abstentions
    a = result.assertions[0]
    assert a.kind is AssertionKind.DISCURSIVE and a.method is ExtractionMethod.PATTERN
    return a


def abstains(text: str, reason: A) -> None:
    result = extract(text, "doc")
    assert result.assertions == [], result.assertions
    assert [x.reason for x in result.abstentions] == [reason], result.abstentions
    assert all(x.detail and x.span.text for x in result.abstentions)


@pytest.mark.parametrize(
    "text,s,o",
    [
        ("Notice may be given by registered letter or by bailiff's writ.", "registered letter", "bailiff's writ"),
        ("Le loyer est payable soit par virement, soit par prélèvement.", "virement", "prélèvement"),
        (
            "La garantie prend la forme d'une caution bancaire ou d'un dépôt de garantie.",
            "caution bancaire",
            "dépôt de garantie",
        ),
    ],
)
def test_alternative(text, s, o):
    a = one(text)
    assert (a.relation, a.basis) == (R.ALTERNATIVE_TO, B.ALTERNATIVE)
    assert a.key == (min(s, o), R.ALTERNATIVE_TO, max(s, o))
    assert a.bundle.spans[0].text == text and a.bundle.spans[0].char_start == 0


def test_three_options_give_every_pair():
    result = extract("Notice may be sent by post, by fax or by email.")
    assert {(a.subject, a.object) for a in result.assertions} == {("post", "fax"), ("post", "email"), ("fax", "email")}


def test_plain_disjunction_is_not_an_alternative():
    assert extract("The buyer paid the invoice or the deposit.").assertions == []


def test_default_en_and_fr_with_qualifier_and_markers():
    a = one("By default, French law applies to this contract.")
    assert (a.subject, a.relation, a.object, a.basis) == ("French law", R.APPLIES_TO, "this contract", B.DEFAULT)
    assert a.markers == ("by default",) and a.qualifier is None
    b = one("Par défaut, la vente est régie par la Convention de Vienne.")
    assert b.key == ("convention de vienne", R.APPLIES_TO, "vente") and b.basis is B.DEFAULT


def test_exception_keeps_the_carve_out():
    a = one("La clause de non-concurrence s'applique au distributeur, sauf si le contrat est résilié.")
    assert a.basis is B.EXCEPTION and a.object == "distributeur"
    assert a.qualifier == "sauf si le contrat est résilié"
    b = one("Unless otherwise agreed, the general conditions apply to every sale.")
    assert b.qualifier == "Unless otherwise agreed" and b.key[2] == "sale"


def test_requires_with_obligation_and_replaces_with_temporality():
    assert one("By default, each invoice shall include the purchase order number.").relation is R.REQUIRES
    a = one("Sauf stipulation contraire, le présent avenant remplace l'annexe 2 à compter du 1er mars 2024.")
    assert (a.relation, a.object) == (R.REPLACES, "l'annexe 2")


def test_scope_is_anchored_to_its_section_with_two_spans():
    text = "Article 4 — Delivery\nFor the purposes of this Article, the delivery schedule applies to all shipments."
    a = one(text)
    assert a.basis is B.SCOPE and a.anchor == "Article 4 — Delivery"
    assert len(a.bundle.spans) == 2 and a.bundle.spans[1].text == "Article 4 — Delivery"
    assert a.bundle.spans[0].section == "Article 4 — Delivery"


def test_scope_to_a_named_section_elsewhere_in_the_document():
    text = (
        "Article 3 — Prix\nLe prix est ferme.\nArticle 9 — Divers\n"
        "Aux fins de l'article 3, la pénalité s'applique aux commandes urgentes."
    )
    a = one(text)
    assert a.anchor == "Article 3 — Prix" and a.bundle.spans[0].section == "Article 9 — Divers"


def test_coref_resolves_to_the_previous_subject():
    a = one("La clause pénale figure à l'article 9. Elle s'applique à tout retard de livraison.")
    assert a.basis is B.COREF and a.subject == "La clause pénale" and a.anchor == "Elle → La clause pénale"
    assert len(a.bundle.spans) == 2


def test_enumeration_closed_and_open():
    closed = extract(
        "The price revision clause applies to the base price, the transport costs and the packaging costs."
    )
    assert len(closed.assertions) == 3 and all(a.enumeration_complete for a in closed.assertions)
    opened = extract("La garantie s'applique aux pièces, notamment le moteur, la boîte et la batterie.")
    assert opened.assertions and not any(a.enumeration_complete for a in opened.assertions)
    assert all(a.basis is B.ENUMERATION for a in closed.assertions + opened.assertions)


def test_no_cue_no_output():
    assert extract("The contract requires written notice. Le bail exige une assurance.").assertions == []
    assert extract("The contract requires written notice.").abstentions == []


@pytest.mark.parametrize(
    "text,reason",
    [
        ("By default, the lease requires insurance, therefore the sublease requires insurance.", A.TYPE2_RISK),
        ("Par défaut, le juge appliquera probablement la Convention de Vienne à la vente.", A.TYPE2_RISK),
        ("Évidemment, le droit français s'applique à un contrat signé à Paris ou à Lyon.", A.TYPE2_RISK),
        ("Late delivery causes the termination, unless the buyer waives it.", A.WHITELIST_VIOLATION),
        ("Par défaut, l'assurance atténue les conséquences d'un incendie.", A.WHITELIST_VIOLATION),
        ("By default, the new tariff replaces the old tariff.", A.WHITELIST_VIOLATION),
        ("Sauf accord contraire, la sous-location nécessite l'accord du bailleur.", A.WHITELIST_VIOLATION),
        ("It applies to all the parties, unless they agree otherwise.", A.COREF_UNRESOLVED),
        ("For the purposes of Article 12, the penalty applies to each late delivery.", A.SCOPE_BREAK),
        ("In lieu of damages, the buyer may accept a price reduction.", A.WEAK_BUNDLE),
        ("By default, the penalty applies to the buyer or the seller.", A.WEAK_BUNDLE),
        ("By default, the contract renews for one year, unless either party objects.", A.AMBIGUOUS_PREDICATE),
        (
            "Unless agreed, the annex applies to the lease and requires a deposit that is mandatory.",
            A.AMBIGUOUS_PREDICATE,
        ),
    ],
)
def test_abstentions_are_motivated(text, reason):
    abstains(text, reason)


def test_coref_across_a_section_boundary_is_a_scope_break():
    abstains("Article 1 — A\nThe guarantee is annexed.\nArticle 2 — B\nIt applies to all rents.", A.SCOPE_BREAK)


def test_offsets_point_into_the_document():
    text = "Preamble.\nBy default, French law applies to this contract."
    a = extract(text, "d").assertions[0]
    s = a.bundle.spans[0]
    assert text[s.char_start : s.char_end] == s.text
