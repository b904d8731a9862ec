"""Perception's reading of French prose nobody here wrote the extractor for (issue 18): dates known only to
the month stay intervals, a defence's allegation never exonerates, a negated or conditional statement never
gives the positive fact, allegations are marked, the LLM path shares the pack's specification."""

from __future__ import annotations

from datetime import date

import pytest

from lexlogic.engine.documents.layout import detect_blocks
from lexlogic.engine.documents.model import Document, DocumentKind, Page
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from lexlogic.engine.text import dates, numbers
from lexlogic.logic.facts import DatePrecision
from tests.support.packs import SHIPPED


def _doc(text: str, kind: str = "other", author: str = "neutral", on: str = "2022-02-08") -> Document:
    return Document(
        id="t",
        kind=DocumentKind(kind),
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=detect_blocks(text, page=1),
        metadata={"author_party": author, "document_date": on},
    )


def _facts(text: str, **kw: str) -> dict:
    doc = _doc(text, **kw)
    case = to_case_file(extract([doc], SHIPPED.pack("rupture_brutale")), "t", SHIPPED.pack("rupture_brutale"))
    for fv in case["facts"].values():  # every reading is grounded on its exact span
        for g in fv.get("grounding", []):
            assert doc.text[g["char_start"] : g["char_end"]] == g["quote"]
    return case["facts"]


# --- dates ------------------------------------------------------------------------------------------------
def test_month_only_date_becomes_an_interval_never_the_first():
    facts = _facts(
        "La société Vergers du Lot fournit la société Primeur Express depuis septembre 2017. "
        "Le 3 mars 2021, Primeur Express a mis fin à leurs relations par courriel, sans préavis."
    )
    start = facts["relation_start"]
    assert start["interval"] == {"start": "2017-09-01", "end": "2017-09-30", "precision": "month"}
    assert start["value"] != "2017-09-01"
    assert facts["notification_date"]["value"] == "2021-03-03" and "interval" not in facts["notification_date"]


@pytest.mark.parametrize(
    "text,start,end,precision",
    [
        ("septembre 2017", date(2017, 9, 1), date(2017, 9, 30), DatePrecision.MONTH),
        ("2011", date(2011, 1, 1), date(2011, 12, 31), DatePrecision.YEAR),
        ("1er février 2010", date(2010, 2, 1), date(2010, 2, 1), DatePrecision.DAY),
        ("février 2020", date(2020, 2, 1), date(2020, 2, 29), DatePrecision.MONTH),
    ],
)
def test_read_date_keeps_its_precision(text, start, end, precision):
    iv = dates.read_date(text)
    assert (iv.start, iv.end, iv.precision) == (start, end, precision)


def test_relative_years_are_anchored_on_the_document_date():
    facts = _facts(
        "Notre cliente, la société Laiterie du Col, livre la société Frais Plus depuis onze ans. "
        "Frais Plus a cessé toute commande le 2 mars 2021.",
        author="claimant",
        on="2021-05-12",
    )
    assert facts["relation_start"]["interval"]["start"] == "2010-01-01"
    assert facts["relation_start"]["interval"]["precision"] == "year"


def test_numbers_in_words():
    assert numbers.digits("un préavis de trois mois") == "un préavis de 3 mois"
    facts = _facts(
        "Par lettre du 10 février 2015, la société Primeurs Réunis a mis un terme à ses relations avec la "
        "société Fruits du Sud en respectant un préavis de deux mois."
    )
    assert facts["notice_given_months"]["value"] == 2.0


# --- allegations ----------------------------------------------------------------------------------------------
DEFENCE_NOTE = (
    "Note en défense — Ateliers Dumont c/ Menuiseries Balcon\n\n"
    "Notre cliente, Menuiseries Balcon, a cessé le 21 juin 2021 de confier ses travaux aux Ateliers Dumont, "
    "sans préavis. Nous soutiendrons que l'incendie de son atelier constitue un cas de force majeure."
)


def test_a_defence_allegation_of_force_majeure_does_not_exonerate():
    facts = _facts(DEFENCE_NOTE, kind="submission", author="defence")
    fm = facts["force_majeure"]
    assert fm["value"] is True and fm["allegation"] == "alleged" and fm["alleged_by"] == "defence"
    assert [a["value"] for a in fm["alternatives"]] == [False]  # contested: one reading per narrative

    from lexlogic.engine.symbolic.analysis import analyse
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, program = pack_by_name("rupture_brutale")
    result = analyse(pack, program, parse_case({"pack": pack.name, "case_id": "t", "facts": facts}, pack))
    assert result.outcomes["exonerated"].status != "yes"
    assert result.verdict != "NOT_LIABLE"


def test_a_court_rejecting_force_majeure_gives_false_and_reported_claims_are_alleged():
    facts = _facts(
        "La société Textiles Berthier fournissait depuis 2012 la société Hôtels Azur. Le 30 mars 2020, Hôtels "
        "Azur a cessé toute commande, sans préavis. Hôtels Azur soutient que la pandémie constituait un cas de "
        "force majeure. Le tribunal relève que la force majeure n'est pas caractérisée."
    )
    assert facts["force_majeure"]["value"] is False
    assert facts["force_majeure"].get("allegation") is None


def test_a_claimants_own_note_alleges():
    facts = _facts(
        "Note pour la demanderesse. Notre cliente, l'Imprimerie Valcourt, imprime depuis janvier 2009 les "
        "catalogues des Editions du Pont. En avril 2020, l'éditeur a réduit ses commandes de 70 %.",
        kind="submission",
        author="claimant",
    )
    assert facts["volume_drop_pct"]["allegation"] == "alleged"
    assert facts["volume_drop_pct"]["alleged_by"] == "claimant"
    assert facts["rupture_kind"]["value"] == "partial_volume"


# --- negation and condition ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,fact",
    [
        ("Nous ne vous avons jamais adressé de mise en demeure.", "formal_notice_sent"),
        ("Le contrat ne comportait aucune clause d'exclusivité.", "exclusivity"),
        ("La force majeure n'est pas caractérisée.", "force_majeure"),
        ("Si les retards persistent, nous mettrons fin à notre collaboration.", "rupture_kind"),
        ("Si les retards persistent, nous mettrons fin à notre collaboration.", "notification_date"),
        (
            "Dans l'hypothèse où nous nous retirerions, un préavis de six mois vous serait accordé.",
            "notice_given_months",
        ),
        ("Nous pourrions être amenés à résilier le contrat si la qualité ne s'améliore pas.", "rupture_kind"),
        ("Aucun investissement spécifique n'a été réalisé pour ce client.", "dedicated_investments"),
        ("Les produits n'étaient pas vendus sous marque de distributeur.", "private_label"),
    ],
)
def test_a_negated_or_conditional_statement_never_yields_the_positive_fact(text, fact):
    facts = _facts(f"Monsieur,\n\n{text}\n\nSalutations, la société Alpha Conseil.", kind="letter", author="defence")
    if fact in facts:
        assert facts[fact]["value"] not in (True, "total", "partial_volume", "partial_terms") and fact not in (
            "notification_date",
            "notice_given_months",
        ), facts[fact]


# --- the LLM path shares the pack's specification -------------------------------------------------------------
def test_llm_path_reads_allegations_and_intervals():
    from lexlogic.engine.perception.llm import LLMExtraction, ground_extraction

    doc = _doc(DEFENCE_NOTE, kind="submission", author="defence")
    reply = LLMExtraction.model_validate(
        {
            "facts": [
                {
                    "fact": "force_majeure",
                    "readings": [
                        {
                            "value": True,
                            "alleged_by": "defence",
                            "evidence": [{"document_id": "t", "quote": "constitue un cas de force majeure"}],
                        }
                    ],
                },
                {
                    "fact": "notification_date",
                    "readings": [
                        {
                            "value": "2021-06",
                            "precision": "month",
                            "evidence": [{"document_id": "t", "quote": "21 juin 2021"}],
                        }
                    ],
                },
            ]
        }
    )
    perception, problems = ground_extraction(reply, [doc], SHIPPED.pack("rupture_brutale"))
    assert not problems
    fm, nd = perception.findings
    assert fm.allegation == "alleged" and fm.alleged_by == "defence"
    assert nd.interval is not None and nd.interval.precision is DatePrecision.MONTH and nd.value == "2021-06-15"
