"""Offline French extraction: expected facts with exact groundings; ambiguity node; LLM path."""

from __future__ import annotations

import pytest

from lexlogic.bridges.llm import LLMClient, LLMError
from lexlogic.engine.perception.french import duration_months
from lexlogic.engine.perception.llm import LLMExtraction, perceive_with_llm
from lexlogic.engine.perception.model import validate_case_file
from lexlogic.logic.facts import World
from lexlogic.logic.ontology import json_schema
from tests.support.fake_llm import ScriptedLLM
from tests.support.packs import SHIPPED

EXPECTED = {
    "claimant_name": "Biscuiterie des Monts d'Arrée",
    "defendant_name": "Distrimarché",
    "claimant_activity": "production",
    "relation_start": "2013-03-04",
    "notification_date": "2024-03-15",
    "notice_given_months": 3.0,
    "notice_written": True,
    "contractual_notice_months": 2.0,
    "arbitration_clause": False,
    "court_specialised": True,
    "claim_date": "2024-09-12",
    "framework_contract": True,
    "minimum_volume": False,
    "exclusivity": False,
    "private_label": True,
    "fault_alleged": True,
    "formal_notice_sent": True,
    "dedicated_investments": True,
    "regular_orders": True,
    "orders_count": 572,
    "rupture_kind": "total",
}


@pytest.mark.parametrize(
    "text,months",
    [
        ("un préavis de trois mois", 3),
        ("préavis d'un an", 12),
        ("préavis de 18 mois", 18),
        ("six semaines", 1.4),
        ("préavis de dix-huit mois", 18),
    ],
)
def test_durations(text, months):
    assert duration_months(text) == months


def test_expected_facts(case_file):
    facts = case_file["facts"]
    for name, value in EXPECTED.items():
        assert facts[name]["value"] == value, name
    assert facts["annual_turnover"]["value"]["2023"] == 1610000.0
    assert "2024" not in facts["annual_turnover"]["value"]  # partial year after the notification
    assert facts["margin_rate_pct"]["value"] == 28.0


def test_every_grounding_quotes_its_document(case_file, docs):
    by_id = {d.id: d for d in docs}
    n = 0
    for name, fv in case_file["facts"].items():
        for reading in [fv, *fv.get("alternatives", [])]:
            assert reading["grounding"], name
            for g in reading["grounding"]:
                assert by_id[g["document_id"]].text[g["char_start"] : g["char_end"]] == g["quote"]
                n += 1
    assert n > 40


def test_ambiguity_has_one_branch_per_world(case_file, perception):
    fv = case_file["facts"]["rupture_kind"]
    assert fv["world"] == "NARRATIVE_A" and fv["value"] == "total"
    (alt,) = fv["alternatives"]
    assert alt["world"] == "NARRATIVE_B" and alt["value"] == "none"
    assert any(g["quote"] == "C'est d'accord" for g in alt["grounding"])
    (amb,) = perception.ambiguities
    assert {r.world for r in amb.readings} == {World.NARRATIVE_A, World.NARRATIVE_B}
    findings = [f for f in perception.findings if f.ambiguity == amb.id]
    assert len(findings) == 2 and {f.world for f in findings} == {World.NARRATIVE_A, World.NARRATIVE_B}


def test_case_file_passes_the_leads_parser(case_file):
    validate_case_file(case_file, SHIPPED.pack("rupture_brutale"))
    from lexlogic.engine.perception.model import PACKS_DIR
    from lexlogic.logic.facts import parse_case
    from lexlogic.logic.pack import load_pack

    parsed = parse_case(case_file, load_pack(PACKS_DIR / "rupture_brutale"))
    assert parsed.facts["rupture_kind"].alternatives[0].world.value == "NARRATIVE_B"


def test_ontology_actors_and_schema_export(perception):
    assert {a.role for a in perception.ontology.actors} == {"claimant", "defendant"}
    schema = json_schema()
    assert {"Actor", "Event", "Evidence"} <= set(schema["$defs"])


def _reply(doc_id: str, quote: str, value=3, fact="notice_given_months") -> dict:
    return {
        "content": LLMExtraction.model_validate(
            {
                "facts": [
                    {
                        "fact": fact,
                        "readings": [
                            {"value": value, "confidence": 0.9, "evidence": [{"document_id": doc_id, "quote": quote}]}
                        ],
                    }
                ]
            }
        ).model_dump_json()
    }


def test_llm_path_validates_grounds_and_retries(docs):
    bad_quote = _reply("05-courriel-dereferencement", "un préavis de 12 mois")
    unknown_fact = _reply("05-courriel-dereferencement", "préavis de trois mois", fact="no_such_fact")
    not_json = {"content": "désolé"}
    good = _reply("05-courriel-dereferencement", "préavis  de trois\nmois")  # whitespace differs: still located
    with ScriptedLLM([bad_quote, unknown_fact, not_json, good]) as server:
        client = LLMClient(server.base_url, "test", max_retries=2)
        p = perceive_with_llm(client, docs, SHIPPED.pack("rupture_brutale"), max_rounds=3)
        assert len(server.requests) == 4
        assert "quote not found" in server.requests[1]["messages"][-1]["content"]
    (f,) = p.findings
    g = f.grounding[0]
    doc = next(d for d in docs if d.id == g.document_id)
    assert f.value == 3.0 and doc.text[g.char_start : g.char_end] == "préavis de trois mois" == g.quote


def test_llm_path_gives_up_after_bounded_rounds(docs):
    bad = _reply("05-courriel-dereferencement", "texte absent")
    with ScriptedLLM([bad, bad]) as server:
        with pytest.raises(LLMError, match="no grounded extraction"):
            perceive_with_llm(
                LLMClient(server.base_url, "t", max_retries=1), docs, SHIPPED.pack("rupture_brutale"), max_rounds=2
            )
