"""Issue 18, round 3: party names without a legal form (the parser's entities, a case-level registry of
variants) and roles decided by evidence from the syntax of the rupture sentences (texts written here for the
test, not taken from any evaluation set)."""

from __future__ import annotations

from lexlogic.engine.documents.model import DocumentKind
from lexlogic.engine.perception import reader
from lexlogic.engine.perception.offline import _spec
from tests.perception.one_text import document as _doc
from tests.perception.one_text import facts_of as _facts
from tests.support.packs import SHIPPED


def _view(text: str, author: str = "neutral", kind: DocumentKind = DocumentKind.OTHER) -> reader.DocView:
    spec, _types = _spec(SHIPPED.pack("rupture_brutale"))
    assert spec is not None
    v = reader.view(_doc(text, author, kind))
    reader._names(v)
    reader._roles(v, spec)
    return v


def test_a_name_without_legal_form_is_found_with_its_exact_span() -> None:
    text = (
        "Objet : maintenance\n\nBonjour,\n\nPar courriel du 4 avril 2022, nous avons mis fin à la maintenance confiée à Hexaplan, avec un préavis "
        "de deux mois.\n\nCordialement,\nJeanne Morel — Direction des achats, Groupe Valcourt"
    )
    facts = _facts(text, author="defence", kind=DocumentKind.EMAIL)
    assert facts["claimant_name"]["value"] == "Hexaplan"
    g = facts["claimant_name"]["grounding"][0]
    assert text[g["char_start"] : g["char_end"]] == "Hexaplan"
    assert facts["defendant_name"]["value"] == "Groupe Valcourt"


def test_roles_from_a_passive_sentence() -> None:
    # the passive subject is the victim, the agent « par Y » the author: the order of mention says nothing
    facts = _facts(
        "Le 3 mai 2021, Tonnellerie Brassac a été déréférencée sans préavis par Caves Réunies Distribution, "
        "après douze ans de commandes régulières."
    )
    assert facts["claimant_name"]["value"] == "Tonnellerie Brassac"
    assert facts["defendant_name"]["value"] == "Caves Réunies Distribution"


def test_the_author_named_first_in_an_active_sentence_and_the_victim_after_avec() -> None:
    facts = _facts(
        "Par lettre du 2 juin 2020, la société Orfèvrerie Delaunay a rompu sans préavis sa relation avec "
        "Polissage Vernier, qui travaillait pour elle depuis 2009."
    )
    assert facts["defendant_name"]["value"] == "Orfèvrerie Delaunay"
    assert facts["claimant_name"]["value"] == "Polissage Vernier"


def test_a_court_and_a_signatory_are_no_parties() -> None:
    v = _view(
        "Objet : contrat de nettoyage\n\nMadame,\n\nNous résilions le contrat de nettoyage qui nous lie à votre société, Propreté Azur, à compter "
        "du 1er juillet 2023. Le tribunal de commerce de Marseille serait seul compétent en cas de litige.\n\n"
        "Bien cordialement,\nMarc Lemaire\nDirecteur général\nHôtels Calanques",
        author="defence",
        kind=DocumentKind.EMAIL,
    )
    assert "Marc Lemaire" not in v.names
    assert not any("Marseille" in n or "Tribunal" in n for n in v.names)
    assert v.roles.get("claimant") == "Propreté Azur"


def test_variants_of_one_name_are_one_party() -> None:
    v = _view(
        "La société Ferrand SAS fournissait des pièces à Atelier Mauduit depuis 2012. Ferrand a été "
        "déréférencée par Atelier Mauduit le 5 mars 2022 ; la société Ferrand réclame réparation."
    )
    assert [n for n in v.names if "Ferrand" in n] == ["Ferrand"]
    assert v.roles == {"claimant": "Ferrand", "defence": "Atelier Mauduit"}


def test_the_last_named_is_cette_derniere() -> None:
    v = _view(
        "Depuis 2015, la société Fonderie Gaillac fournissait des moules à la société Robinetterie Ducros. En "
        "mars 2022, cette dernière a cessé toute commande sans préavis."
    )
    assert v.roles == {"claimant": "Fonderie Gaillac", "defence": "Robinetterie Ducros"}


def test_the_victims_activity_is_what_its_own_phrase_says_not_the_other_sides() -> None:
    # « le fabricant » describes the author (its apposition), never the victim named a few words later
    facts = _facts(
        "Par lettre du 3 mars 2021, le fabricant Verres Alpins a mis fin sans préavis à sa relation avec "
        "Optiloire Vision. Optiloire Vision revendait depuis 2012 les montures dans ses quatre magasins."
    )
    assert facts["claimant_name"]["value"] == "Optiloire Vision"
    assert facts.get("claimant_activity", {}).get("value") != "production"
