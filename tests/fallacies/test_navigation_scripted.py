"""Every path of the guided navigation, with the LLM's replies scripted (the only double allowed)."""

from __future__ import annotations

from lexlogic.engine.fallacies.navigation import StepStatus, navigate, step
from lexlogic.engine.fallacies.navigators.llm import SYSTEM_PROMPT
from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy
from tests.fallacies.conftest import call, llm_navigator
from tests.support.fake_llm import ScriptedLLM

ARG = "Vous me reprochez mes retards, mais vous étiez vous-même en retard le mois dernier."


def test_explore_then_confirm_on_builtin_taxonomy() -> None:
    tax = builtin_taxonomy()
    replies = [
        {"tool_calls": [call("explore_branch", node_id="attaque_personne")]},
        {"tool_calls": [call("explore_branch", node_id="ad_hominem")]},
        {
            "tool_calls": [
                call(
                    "confirm_fallacy",
                    node_id="tu_quoque",
                    confidence=0.9,
                    justification="répond au reproche par un reproche",
                )
            ]
        },
    ]
    with ScriptedLLM(replies) as server:
        result = navigate(ARG, tax, llm_navigator(server))
    assert result.outcome == "fallacies" and result.stopped_by == "exhausted"
    (found,) = result.confirmed
    assert (found.node_id, found.family_id, found.confidence) == ("tu_quoque", "attaque_personne", 0.9)
    assert found.path == tax.nodes["tu_quoque"].path and found.path.count(".") == 2
    assert found.trail == ["Attaque de la personne", "Argument ad hominem", "Tu quoque (toi aussi)"]
    assert found.name_en == "Tu quoque" and "reproche" in found.justification
    assert [s.node_id for s in result.trace] == ["sophisme", "attaque_personne", "ad_hominem"]
    # the protocol: free choice among the three tools, and a system prompt stating the conclude option
    first = server.requests[0]
    assert first["tool_choice"] == "auto"
    assert {t["function"]["name"] for t in first["tools"]} == {
        "explore_branch",
        "confirm_fallacy",
        "conclude_no_fallacy",
    }
    assert first["messages"][0]["content"] == SYSTEM_PROMPT and "conclude_no_fallacy" in SYSTEM_PROMPT
    assert "[attaque_personne]" in first["messages"][1]["content"] and ARG in first["messages"][1]["content"]


def test_conclude_at_root() -> None:
    tax = builtin_taxonomy()
    replies = [
        {"tool_calls": [call("conclude_no_fallacy", reason="faits prouvés et texte applicable")]},
        {"tool_calls": [call("explore_branch", node_id="emotion")]},
    ]  # must never be consumed
    with ScriptedLLM(replies) as server:
        result = navigate("Le préavis de trois mois n'a pas été respecté.", tax, llm_navigator(server))
        assert len(server.requests) == 1 and len(server.replies) == 1
    assert result.outcome == "no_fallacy" and result.stopped_by == "conclude_no_fallacy"
    assert result.reason == "faits prouvés et texte applicable" and result.confirmed == []
    assert len(result.trace) == 1 and result.trace[0].status is StepStatus.CONCLUDED


def test_step_returns_concluded_status(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    with ScriptedLLM([{"tool_calls": [call("conclude_no_fallacy", reason="rien")]}]) as server:
        outcome = step("x", deep_taxonomy, llm_navigator(server), deep_taxonomy.root)
    assert outcome.status is StepStatus.CONCLUDED and outcome.reason == "rien" and outcome.explore == []


def test_conclude_at_depth_3_ends_the_whole_beam(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    tax = deep_taxonomy
    assert tax.nodes["11"].depth == 3 and tax.nodes["11"].children_ids == ["12", "14"]
    replies = [
        # root: open TWO branches (beam); the second must never be visited after the conclusion
        {"tool_calls": [call("explore_branch", node_id="1"), call("explore_branch", node_id="20")]},
        {"tool_calls": [call("explore_branch", node_id="10")]},  # at "1" (depth 1)
        {"tool_calls": [call("explore_branch", node_id="11")]},  # at "10" (depth 2)
        {"tool_calls": [call("conclude_no_fallacy", reason="argument sain après examen")]},  # at "11" (depth 3)
        {"tool_calls": [call("confirm_fallacy", node_id="21", confidence=0.8, justification="x")]},  # never
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", tax, llm_navigator(server), beam_width=2)
        assert len(server.replies) == 1  # the queued branch "20" was not explored
    assert [s.node_id for s in result.trace] == ["0", "1", "10", "11"]
    assert result.trace[-1].depth == 3 and result.trace[-1].status is StepStatus.CONCLUDED
    assert result.outcome == "no_fallacy" and result.stopped_by == "conclude_no_fallacy"
    assert result.reason == "argument sain après examen"


def test_bad_json_then_unknown_node_are_reported_back_and_retried() -> None:
    tax = builtin_taxonomy()
    replies = [
        {"tool_calls": [{"name": "explore_branch", "arguments": '{"node_id": "emotion"'}]},  # bad JSON
        {"tool_calls": [call("explore_branch", node_id="no_such_node")]},  # unknown node
        {"tool_calls": [call("explore_branch", node_id="emotion")]},  # valid at last
        {"tool_calls": [call("confirm_fallacy", node_id="appel_pitie", confidence=0.7, justification="pitié")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("Pensez à ses enfants.", tax, llm_navigator(server))
    assert result.outcome == "fallacies" and result.confirmed[0].node_id == "appel_pitie"
    root_errors = result.trace[0].errors
    assert any("not valid JSON" in e for e in root_errors) and any("no_such_node" in e for e in root_errors)
    # the model was told why: tool results carry the errors on the retries
    second = server.requests[1]["messages"]
    tool_msgs = [m for m in second if m["role"] == "tool"]
    assert tool_msgs and "not valid JSON" in tool_msgs[0]["content"]
    third = server.requests[2]["messages"]
    assert any(m["role"] == "tool" and "unknown node 'no_such_node'" in m["content"] for m in third)


def test_persistently_malformed_calls_abandon_the_branch_without_crash() -> None:
    tax = builtin_taxonomy()
    replies = [
        {"tool_calls": [call("confirm_fallacy", node_id="ghost", confidence=0.9, justification="x")]},
        {"tool_calls": [call("confirm_fallacy", node_id="tu_quoque", confidence="very", justification="x")]},
        {"tool_calls": [call("teleport", node_id="emotion"), call("explore_branch", node_id="tu_quoque")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", tax, llm_navigator(server))
        assert server.replies == []
    assert result.outcome == "no_fallacy" and result.stopped_by == "exhausted"
    assert "abandoned" in (result.reason or "")
    errors = " | ".join(result.trace[0].errors)
    assert "unknown node 'ghost'" in errors and "unknown tool 'teleport'" in errors
    assert "invalid arguments" in errors and "not a child" in errors


def test_explore_of_a_leaf_or_a_non_child_is_rejected(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    replies = [
        {"tool_calls": [call("explore_branch", node_id="12"), call("explore_branch", node_id="1")]},
        {"tool_calls": [call("confirm_fallacy", node_id="10", confidence=0.6, justification="généralise")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", deep_taxonomy, llm_navigator(server))
    assert result.trace[0].errors == ["explore_branch: '12' is not a child of the current node"]
    assert result.confirmed[0].node_id == "10" and result.confirmed[0].path == "1.1"


def test_beam_collects_confirmations_from_two_branches_and_text_reply_abandons(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    replies = [
        {"tool_calls": [call("explore_branch", node_id="1"), call("explore_branch", node_id="20")]},
        {"tool_calls": [call("confirm_fallacy", node_id="10", confidence=0.55, justification="a")]},
        {
            "tool_calls": [
                call("confirm_fallacy", node_id="22", confidence=0.85, justification="b"),
                call("explore_branch", node_id="21"),
            ]
        },  # 21 is a leaf: rejected, 22 kept
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", deep_taxonomy, llm_navigator(server))
    assert [c.node_id for c in result.confirmed] == ["22", "10"]  # most confident first
    assert result.top is not None and result.top.family_id == "20"
    with ScriptedLLM([{"content": "Je ne sais pas."}]) as server:
        quiet = navigate("argument", deep_taxonomy, llm_navigator(server))
    assert quiet.outcome == "no_fallacy" and quiet.stopped_by == "exhausted"


def test_confirmations_before_a_conclusion_are_kept(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    replies = [
        {
            "tool_calls": [
                call("confirm_fallacy", node_id="20", confidence=0.7, justification="influence"),
                call("explore_branch", node_id="1"),
            ]
        },
        {"tool_calls": [call("conclude_no_fallacy", reason="rien de plus")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", deep_taxonomy, llm_navigator(server))
    assert result.stopped_by == "conclude_no_fallacy" and result.outcome == "fallacies"
    assert [c.node_id for c in result.confirmed] == ["20"] and result.reason is None


def test_budget_stops_an_endless_navigator(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    replies = [
        {"tool_calls": [call("explore_branch", node_id="1")]},
        {"tool_calls": [call("explore_branch", node_id="10")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("argument", deep_taxonomy, llm_navigator(server), max_steps=2)
    assert result.stopped_by == "budget" and len(result.trace) == 2 and result.outcome == "no_fallacy"


def test_llm_navigation_on_the_1408_node_reference(reference_taxonomy) -> None:  # type: ignore[no-untyped-def]
    tax = reference_taxonomy
    first_family = tax.children(tax.root.id)[0]
    deeper = tax.children(first_family.id)[0]
    replies = [
        {"tool_calls": [call("explore_branch", node_id=first_family.id)]},
        {"tool_calls": [call("confirm_fallacy", node_id=deeper.id, confidence=0.6, justification="j")]},
    ]
    with ScriptedLLM(replies) as server:
        result = navigate("Deux cas suffisent à prouver la règle.", tax, llm_navigator(server))
        prompt = server.requests[0]["messages"][1]["content"]
    assert len(tax) == 1408 and result.confirmed[0].node_id == deeper.id == "2"
    assert result.confirmed[0].path == "1.1" and result.confirmed[0].name_en == "Hasty generalization"
    assert prompt.count("\n- [") == 7  # the seven Argumentum families are offered at the root
