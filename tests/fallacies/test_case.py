"""Findings attach to a narrative's arguments and lower their reliability prior, visibly in the proof tree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lexlogic.engine.fallacies.case import ArgumentNode, attach_fallacies, penalised_prior
from lexlogic.engine.fallacies.navigation import ConfirmedFallacy, FallacyAnalysis
from lexlogic.logic.grounding import Grounding, SourceKind
from lexlogic.logic.proof import NodeKind


def _analysis(text: str, confidences: list[float]) -> FallacyAnalysis:
    found = [
        ConfirmedFallacy(
            node_id=f"f{i}",
            path=f"1.{i}",
            name_fr=f"Sophisme {i}",
            name_en=f"Fallacy {i}",
            family_id="insuffisance",
            family_fr="Preuve insuffisante",
            trail=["Preuve insuffisante", f"Sophisme {i}"],
            confidence=c,
            justification=f"j{i}",
        )
        for i, c in enumerate(confidences)
    ]
    return FallacyAnalysis(
        argument=text,
        outcome="fallacies" if found else "no_fallacy",
        confirmed=found,
        reason=None if found else "argument sain",
        navigator="test",
        stopped_by="exhausted" if found else "conclude_no_fallacy",
        taxonomy="t",
    )


def test_fallacy_lowers_prior_and_explains_it() -> None:
    span = Grounding(
        kind=SourceKind.DOCUMENT,
        document_id="conclusions_B",
        page=3,
        char_start=10,
        char_end=60,
        quote="tout le monde le fait",
    )
    args = [
        ArgumentNode(id="b1", narrative="B", text="tout le monde le fait", reliability=0.8, grounding=[span]),
        ArgumentNode(id="b2", narrative="B", text="le préavis est de trois mois", reliability=0.9),
        ArgumentNode(id="a1", narrative="A", text="autre", reliability=0.7),
    ]
    before = [a.model_copy(deep=True) for a in args]
    out = attach_fallacies(
        args, {"b1": _analysis("x", [0.8]), "b2": _analysis("y", []), "a1": _analysis("z", [0.9])}, narrative="B"
    )
    assert args == before  # pure: inputs untouched
    assert [o.argument_id for o in out] == ["b1", "b2"]  # narrative A left alone
    b1, b2 = out
    assert abs(b1.prior_after - 0.48) < 1e-12 and b2.prior_after == b2.prior_before == 0.9
    tree = b1.explanation
    assert (
        abs(tree.value - 0.48) < 1e-12 and "0.80 → 0.48" in tree.label and tree.rule_id == "fallacy_reliability_penalty"
    )
    fallacy_nodes = [n for n in tree.walk() if n.rule_id == "fallacy:f0"]
    assert fallacy_nodes and fallacy_nodes[0].kind is NodeKind.COMPUTED and fallacy_nodes[0].value == 0.8
    assert any(g.document_id == "conclusions_B" for n in tree.walk() for g in n.grounding)
    rendered = tree.render()
    assert "Sophisme 0" in rendered and "conclusions_B p.3" in rendered
    assert any(n.kind is NodeKind.ASSUMPTION and n.note == "argument sain" for n in b2.explanation.walk())


@settings(max_examples=60, deadline=None)
@given(prior=st.floats(0, 1), confs=st.lists(st.floats(0, 1), max_size=5))
def test_penalty_never_raises_and_respects_floor(prior: float, confs: list[float]) -> None:
    after = penalised_prior(prior, confs)
    assert after <= prior + 1e-9
    assert after >= min(0.05, prior) - 1e-9
    if not confs:
        assert abs(after - prior) < 1e-6
