"""Traversal: tiers, escalation, grade on every edge, no transitivity through DISCURSIVE (issue §7)."""

from __future__ import annotations

import pytest

from lexlogic.engine.kg.model import DefensibilityTier as T
from lexlogic.engine.kg.model import DiscursiveBasis, ExtractionMethod, SemanticRelation, SupportStrength
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.model import SemanticGrade as G
from lexlogic.engine.kg.promote import promote
from lexlogic.engine.kg.store import search_spans
from lexlogic.engine.kg.traverse import (
    EXTENDED,
    STRICT_ONLY,
    GradeViolation,
    Graph,
    infer_transitive,
    make_inferred,
    query,
)
from tests.kg.factory import discursive, explicit


def graph():
    """lease -REQUIRES-> insurance -REQUIRES-> certificate (explicit), euros ~ dollars (discursive strict),
    card ~ cheque (discursive extended), insurance -REQUIRES-> broker (discursive, obligation marker)."""
    weak = "Payment by card instead of cheque."
    rels = promote(
        [
            explicit("lease", R.REQUIRES, "insurance"),
            explicit("insurance", R.REQUIRES, "certificate"),
            discursive(section="a"),
            discursive(section="b"),
            discursive(s="card", o="cheque", text=weak, markers=("instead of",), section="a"),
            discursive(s="card", o="cheque", text=weak, markers=("instead of",), section="b"),
            *[
                discursive(
                    s="insurance",
                    r=R.REQUIRES,
                    o="broker",
                    basis=DiscursiveBasis.DEFAULT,
                    markers=("by default",),
                    text="By default, the insurance must include a broker.",
                    section=s,
                )
                for s in "ab"
            ],
            explicit("broker", R.REQUIRES, "licence"),
        ]
    ).relations
    return Graph(rels)


def test_default_tiers_are_strict_only_and_edges_carry_grade():
    g = graph()
    edges = g.traverse("lease")
    assert {(e.source, e.target, e.grade, e.tier) for e in edges} >= {
        ("lease", "insurance", G.EXPLICIT, T.STRICT),
        ("insurance", "certificate", G.EXPLICIT, T.STRICT),
        ("insurance", "broker", G.DISCURSIVE, T.STRICT),
    }
    assert all(e.tier is T.STRICT for e in edges)
    assert max(e.depth for e in edges) == 3  # broker -> licence at depth 3
    assert g.traverse("lease", max_depth=1)[0].target == "insurance" and len(g.traverse("lease", max_depth=1)) == 1


def test_extended_tier_only_when_allowed():
    g = graph()
    assert g.traverse("card") == []
    [e] = g.traverse("card", EXTENDED)
    assert (e.tier, e.grade) == (T.EXTENDED, G.DISCURSIVE)


def test_escalation_strict_then_extended_then_text():
    g = graph()
    r = query(g, "card", escalate=True)
    assert r.level == "EXTENDED" and r.tried == ["STRICT", "EXTENDED"] and r.edges
    assert query(g, "card").level == "NONE"  # no escalation: strict only
    spans = [discursive(s="deposit", o="guarantee", text="The deposit is held in escrow.").bundle.spans[0]]
    r = query(g, "deposit", escalate=True, text_search=lambda e: search_spans(spans, e))
    assert r.level == "TEXT" and r.tried == ["STRICT", "EXTENDED", "TEXT"]
    assert r.passages[0].text == "The deposit is held in escrow." and r.passages[0].doc_id == "d1"
    assert query(g, "nothing", escalate=True, text_search=lambda e: []).level == "NONE"


def test_no_transitivity_through_a_discursive_edge():
    g = graph()
    inferred = infer_transitive(g)
    assert {(r.subject, r.object) for r in inferred} == {("lease", "certificate")}
    [r] = inferred
    assert r.tier is T.EXPERIMENTAL and r.methods == [ExtractionMethod.INFERRED]
    assert r.derived_from == ["lease|REQUIRES|insurance", "insurance|REQUIRES|certificate"]
    path = g.paths("lease", "licence", EXTENDED, relation=R.REQUIRES)[0]
    assert [p.grade for p in path] == [G.EXPLICIT, G.DISCURSIVE, G.EXPLICIT]
    with pytest.raises(GradeViolation, match="DISCURSIVE"):
        make_inferred(path)


def test_inferred_edges_are_experimental_and_hidden_by_default():
    g = graph()
    for r in infer_transitive(g):
        g.add(r)
    assert ("lease", "certificate") not in {(e.source, e.target) for e in g.traverse("lease", max_depth=1)}
    everything = g.traverse("lease", frozenset(T), max_depth=1)
    assert any(e.tier is T.EXPERIMENTAL and e.target == "certificate" for e in everything)


def test_make_inferred_rejects_bad_chains():
    g = graph()
    with pytest.raises(GradeViolation, match="at least two"):
        make_inferred([g.relations["lease|REQUIRES|insurance"]])
    alt = g.relations["dollars|ALTERNATIVE_TO|euros"]
    with pytest.raises(GradeViolation):
        make_inferred([alt, alt])


def test_no_silent_upgrade_of_a_discursive_relation():
    fake = SemanticRelation(
        id="a|APPLIES_TO|b",
        subject="a",
        relation=R.APPLIES_TO,
        object="b",
        grade=G.EXPLICIT,
        tier=T.STRICT,
        methods=[ExtractionMethod.PATTERN],
        strength=SupportStrength(support_count=2, discursive_count=2),
    )
    with pytest.raises(GradeViolation, match="support says DISCURSIVE"):
        Graph([fake])
    assert STRICT_ONLY == frozenset({T.STRICT})


def test_only_semantic_relations_are_traversable():
    from lexlogic.engine.kg.aggregate import aggregate

    a = explicit()
    for thing in (a, a.bundle, aggregate([a]).canonical_relations()[0]):
        with pytest.raises(TypeError, match="only SemanticRelation"):
            Graph([thing])


def test_explanations_are_proof_trees_with_grounding_and_visible_grade():
    from lexlogic.engine.kg.explain import explain
    from lexlogic.logic.proof import NodeKind

    support = [discursive(section="a"), discursive(section="b")]
    [rel] = promote(support).relations
    tree = explain(rel, {a.id: a for a in support})
    assert "[DISCURSIVE, STRICT]" in tree.label and tree.rule_id == "kg.promotion.discursive"
    assert [c.kind for c in tree.children] == [NodeKind.FACT, NodeKind.FACT]
    assert tree.children[0].grounding[0].quote == "Payment may be made in euros or in dollars."
    assert "DISCURSIVE/ALTERNATIVE via PATTERN" in tree.render()
    g = graph()
    [inf] = infer_transitive(g)
    node = explain(inf, {}, g.relations)
    assert node.kind is NodeKind.DYNAMIC and len(node.children) == 2 and "EXPERIMENTAL" in node.label
