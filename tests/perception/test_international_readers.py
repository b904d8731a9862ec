"""The pack's international facts (issue 20's readings: L.444-1 A, Bruxelles I bis, Rome I/II) read from prose:
where a party is established, which law the contract chose, where goods were delivered and sold (texts written
here for the test, not taken from any evaluation set)."""

from __future__ import annotations

import pytest

from tests.perception.one_text import facts_of as _facts


def test_a_foreign_party_and_its_chosen_law() -> None:
    text = (
        "La société Ferrand, fabricant de meubles établi à Lyon, livrait depuis 2009 la société allemande "
        "Holzhaus GmbH, dont le siège est à Munich. Le contrat-cadre était soumis au droit allemand. Par lettre "
        "du 3 mai 2022, Holzhaus a mis fin à la relation sans préavis."
    )
    facts = _facts(text)
    assert facts["international_relation"]["value"] is True
    assert facts["chosen_law"]["value"] == "foreign"
    span = facts["chosen_law"]["grounding"][0]
    assert text[span["char_start"] : span["char_end"]] == span["quote"]
    assert "droit allemand" in span["quote"]


def test_french_law_chosen_and_products_sold_in_france() -> None:
    facts = _facts(
        "Notre cliente, Verrerie Dumas, fournissait depuis 2012 un distributeur suisse, Alpenglas AG, établi à "
        "Genève, qui commercialisait les produits en France. Le 2 février 2021, Alpenglas a cessé toute commande. "
        "Le contrat stipulait qu'il était régi par la loi française."
    )
    assert facts["international_relation"]["value"] is True
    assert facts["chosen_law"]["value"] == "french"
    assert facts["products_marketed_in_france"]["value"] is True


def test_goods_delivered_in_france() -> None:
    facts = _facts(
        "La société Bianchi, de droit italien, reproche à la société Dupont, son importateur exclusif à Marseille, "
        "la rupture brutale intervenue le 5 mars 2019. Les marchandises étaient livrées en France, dans les "
        "entrepôts de Dupont."
    )
    assert facts["performance_place_in_france"]["value"] is True
    assert facts["international_relation"]["value"] is True


@pytest.mark.parametrize(
    "text",
    [
        # French parties, foreign customers: the relation in dispute is not international
        "La société Roux exportait ses fromages vers des clients allemands. Le 3 mars 2020, son distributeur "
        "lyonnais Fromalys a cessé ses commandes.",
        # a hypothesis denied by the text itself
        "Si la société Bertin était établie en Suisse, la loi suisse pourrait s'appliquer ; tel n'est pas le cas. "
        "Bertin a rompu sa relation avec Durand le 4 mai 2020.",
        "La société Lemoine, établie à Nantes, a rompu le 2 juin 2021 la relation nouée en 2008 avec Atelier Girard.",
    ],
)
def test_no_foreign_party_no_international_relation(text: str) -> None:
    facts = _facts(text)
    assert facts.get("international_relation", {}).get("value") is not True
    assert facts.get("chosen_law", {}).get("value") != "foreign"
