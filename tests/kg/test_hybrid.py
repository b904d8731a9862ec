"""HYBRID: the pattern proposes, the LLM confirms, through kg.hybrid.confirm as the CLI and the API call it
(ScriptedLLM is a real local HTTP server)."""

from __future__ import annotations

import json

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.kg.hybrid import confirm
from lexlogic.engine.kg.model import DiscursiveAbstainReason as A
from lexlogic.engine.kg.model import ExtractionMethod as M
from lexlogic.engine.kg.patterns import extract
from tests.support.fake_llm import ScriptedLLM

TEXT = "Payment may be made in euros or in US dollars. By default, French law applies to this contract."


def reply(verdict: str, reason: str | None = None, note: str = "") -> dict:
    return {"content": json.dumps({"verdict": verdict, "reason": reason, "note": note})}


def test_confirmed_candidates_become_hybrid_and_rejected_ones_abstain():
    with ScriptedLLM([reply("confirm", note="stated"), reply("reject", "TYPE2_RISK", "law not chosen")]) as server:
        result = confirm(extract(TEXT, "d"), LLMClient(server.base_url, "m", max_retries=1))
        prompts = [r["messages"][1]["content"] for r in server.requests]
    assert [a.method for a in result.assertions] == [M.HYBRID]
    assert result.assertions[0].relation.value == "ALTERNATIVE_TO"
    [x] = result.abstentions
    assert x.reason is A.TYPE2_RISK and "law not chosen" in x.detail and "french law" in x.candidate.lower()
    assert "euros" in prompts[0] and "Device: ALTERNATIVE" in prompts[0]  # the LLM saw the candidate and cue


def test_the_llm_never_proposes_relations_of_its_own():
    with ScriptedLLM([]) as server:
        result = confirm(extract("The contract requires written notice.", "d"), LLMClient(server.base_url, "m"))
        assert server.requests == []  # nothing proposed by the pattern: nothing to confirm
    assert result.assertions == []


def test_invalid_answer_is_retried_then_a_failure_keeps_pattern():
    with ScriptedLLM([{"content": "not json"}, reply("confirm")]) as server:
        ok = confirm(
            extract("Payment may be made in euros or in US dollars.", "d"),
            LLMClient(server.base_url, "m", max_retries=2),
        )
        assert len(server.requests) == 2
    assert ok.assertions[0].method is M.HYBRID
    with ScriptedLLM([]) as server:  # every call answers HTTP 500
        kept = confirm(
            extract("Payment may be made in euros or in US dollars.", "d"),
            LLMClient(server.base_url, "m", max_retries=1),
        )
    assert kept.assertions[0].method is M.PATTERN and "LLM unavailable" in kept.assertions[0].note
