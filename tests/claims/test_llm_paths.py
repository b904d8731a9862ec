"""LLM judge and LLM claim extraction, against the scripted chat-completions server."""

import json

import pytest

from lexlogic.bridges.llm import LLMClient, LLMError
from lexlogic.engine.claims.extract import extract_claims
from lexlogic.engine.claims.judge_llm import LLMJudge
from lexlogic.engine.claims.models import Candidate, Memory, Stance, Status
from lexlogic.engine.claims.verify import default_judge, result_of
from lexlogic.logic.grounding import Grounding
from lexlogic.settings import Settings
from tests.support.fake_llm import ScriptedLLM


def cand(i: int, text: str) -> Candidate:
    return Candidate(
        memory=Memory(
            id=f"m{i}",
            document_id=f"d{i}",
            text=text,
            grounding=Grounding(document_id=f"d{i}", char_start=0, char_end=len(text)),
        ),
        similarity=0.9 - i / 100,
    )


CANDS = [cand(0, "Beta a notifié la rupture le 12 mars 2021."), cand(1, "La rupture date du 15 mars 2021.")]


def verdicts(*items):  # type: ignore[no-untyped-def]
    return {"content": json.dumps({"verdicts": [{"index": i, "stance": s, "nuance": n} for i, s, n in items]})}


def test_llm_judge_ambiguous_with_schema_and_short_prompt():
    with ScriptedLLM([verdicts((0, "supports", "même date"), (1, "contradicts", "autre date"))]) as srv:
        judge = LLMJudge(LLMClient(srv.base_url, "m"))
        j = judge.judge("La rupture a été notifiée le 12 mars 2021.", CANDS)
        req = srv.requests[0]
    assert j.status is Status.AMBIGUOUS and j.stances == [Stance.SUPPORTS, Stance.CONTRADICTS]
    assert req["response_format"]["type"] == "json_schema"
    assert "[1] (d1)" in req["messages"][1]["content"]
    r = result_of("c", CANDS, j, judge.name)
    assert r.judge == "llm" and r.evidence.source_id == "m0" and r.contradictory[0].source_id == "m1"


def test_llm_judge_retries_invalid_output_and_ignores_invented_indexes():
    with ScriptedLLM(
        [{"content": "pas du JSON"}, verdicts((7, "supports", "inventé"), (1, "contradicts", "autre date"))]
    ) as srv:
        j = LLMJudge(LLMClient(srv.base_url, "m")).judge("x", CANDS)
        assert len(srv.requests) == 2
        assert "Invalid output" in srv.requests[1]["messages"][-1]["content"]
    assert j.status is Status.CONTRADICTED and j.stances == [Stance.IRRELEVANT, Stance.CONTRADICTS]


def test_llm_judge_gives_up_after_the_retry_budget():
    with ScriptedLLM([{"content": "{}"}] * 3) as srv, pytest.raises(LLMError):
        LLMJudge(LLMClient(srv.base_url, "m", max_retries=3)).judge("x", CANDS)


def test_default_judge_is_llm_only_when_configured(monkeypatch):
    monkeypatch.delenv("LEXLOGIC_LLM_BASE_URL", raising=False)
    assert default_judge(LLMClient.from_settings(Settings())).name == "offline-reading"
    monkeypatch.setenv("LEXLOGIC_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert default_judge(LLMClient.from_settings(Settings())).name == "llm"


def test_llm_claim_extraction():
    reply = {
        "content": json.dumps(
            {
                "claims": [
                    "Beta a notifié la rupture le 12 mars 2021.",
                    "x",
                    "Beta a notifié la rupture le 12 mars 2021.",
                ]
            }
        )
    }
    with ScriptedLLM([reply]) as srv:
        claims = extract_claims("texte des conclusions", client=LLMClient(srv.base_url, "m"))
    assert claims == ["Beta a notifié la rupture le 12 mars 2021."]
