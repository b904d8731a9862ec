"""Aggregation, SupportStrength, thresholds, grade, tier rules and the promotion log (issue §4-5)."""

from __future__ import annotations

import pytest

from lexlogic.engine.kg.aggregate import aggregate
from lexlogic.engine.kg.model import DefensibilityTier as T
from lexlogic.engine.kg.model import DiscursiveBasis as B
from lexlogic.engine.kg.model import ExtractionMethod
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.model import SemanticGrade as G
from lexlogic.engine.kg.promote import PromotionPolicy, promote
from lexlogic.engine.kg.tiers import strength_of
from tests.kg.factory import discursive, explicit, span


def only(result):
    assert len(result.relations) == 1, result.log
    return result.relations[0]


def test_aggregation_deduplicates_and_counts():
    agg = aggregate(
        [
            explicit(doc="d1", section="a"),
            explicit(s="The lease", doc="d2", section="b"),
            discursive(
                s="lease",
                r=R.REQUIRES,
                o="insurance",
                basis=B.DEFAULT,
                text="By default, the lease must include insurance.",
                markers=("by default",),
                doc="d2",
                section="c",
                extra_spans=(span("x", "d3", "e"), span("y", "d3", "f")),
            ),
        ]
    )
    [c] = agg.canonical_relations()
    s = c.strength
    assert (c.subject, c.relation, c.object) == ("lease", R.REQUIRES, "insurance")
    assert (s.support_count, s.explicit_count, s.discursive_count) == (3, 2, 1)
    assert s.doc_coverage == 3 and s.distinct_sections == 5
    assert s.bundle_diversity == 1.0  # the max over bundles (the 3-section bundle)
    assert len(c.assertion_ids) == 3


def test_explicit_alone_promotes_with_one_assertion_strict():
    rel = only(promote([explicit()]))
    assert (rel.grade, rel.tier) == (G.EXPLICIT, T.STRICT)


def test_discursive_alone_needs_two_assertions_in_two_sections():
    assert promote([discursive()]).relations == []
    assert promote([discursive(), discursive()]).relations == []  # same section twice
    rel = only(promote([discursive(section="a"), discursive(section="b")]))
    assert (rel.grade, rel.tier) == (G.DISCURSIVE, T.STRICT)


def test_mixed_one_plus_one_is_strict():
    policy = PromotionPolicy(explicit_min=2)  # make the MIXED rule the one that decides
    rel = only(promote([explicit(s="euros", r=R.ALTERNATIVE_TO, o="dollars"), discursive()], policy))
    assert (rel.grade, rel.tier) == (G.MIXED, T.STRICT)
    assert "mixed support 1+1" in rel.tier_reason
    assert promote([explicit(s="euros", r=R.ALTERNATIVE_TO, o="dollars")], policy).relations == []


def test_grade_is_never_upgraded_discursive_stays_discursive():
    rel = only(promote([discursive(section=s) for s in "abc"]))
    assert rel.grade is G.DISCURSIVE and rel.methods == [ExtractionMethod.PATTERN]


@pytest.mark.parametrize(
    "basis,text,markers,kw,strong",
    [
        (B.ALTERNATIVE, "Payment may be made in euros or in dollars.", ("or",), {}, True),
        (B.ALTERNATIVE, "Payment in euros instead of dollars.", ("instead of",), {}, False),
        (B.ALTERNATIVE, "Le prix est payable en euros ou en dollars.", ("ou",), {}, True),
        (B.ALTERNATIVE, "Payment in euros instead of dollars.", ("or",), {}, False),  # claimed cue not in text
        (B.DEFAULT, "By default, euros apply to dollars.", ("by default",), {}, True),
        (B.DEFAULT, "Par défaut, x s'applique à y.", ("par défaut",), {}, True),
        (B.DEFAULT, "Failing agreement, euros apply to dollars.", ("failing agreement",), {}, False),
        (B.EXCEPTION, "Euros apply to dollars, unless agreed.", ("unless",), {}, True),
        (B.EXCEPTION, "X s'applique à y, sauf si z.", ("sauf si",), {}, True),
        (B.EXCEPTION, "X s'applique à y, à moins que z.", ("à moins que",), {}, True),
        (B.EXCEPTION, "Euros apply to dollars, save where agreed.", ("save where",), {}, False),
        (B.SCOPE, "In this Article, euros apply to dollars.", (), {"anchor": "Article 4"}, False),  # one span
        (
            B.SCOPE,
            "In this Article, euros apply to dollars.",
            (),
            {"anchor": "Article 4", "extra_spans": (span("Article 4"),)},
            True,
        ),
        (B.SCOPE, "In this Article, euros apply to dollars.", (), {"extra_spans": (span("Article 4"),)}, False),
        (
            B.COREF,
            "It applies to dollars.",
            (),
            {"anchor": "it → euros", "extra_spans": (span("The euros are..."),)},
            True,
        ),
        (B.COREF, "It applies to dollars.", (), {"anchor": "it → euros"}, False),
        (B.ENUMERATION, "Euros apply to a, b and dollars.", (), {"complete": True}, True),
        (B.ENUMERATION, "Euros apply to a, b and dollars.", (), {"complete": False}, False),
        (B.ENUMERATION, "Euros apply to a, including b and dollars.", (), {"complete": True}, False),
    ],
)
def test_tier_rules_per_basis(basis, text, markers, kw, strong):
    rel = R.ALTERNATIVE_TO if basis is B.ALTERNATIVE else R.APPLIES_TO
    pair = [discursive(r=rel, basis=basis, text=text, markers=markers, section=s, **kw) for s in "ab"]
    assert strength_of(pair[0])[0] is strong
    result = only(promote(pair))
    assert result.tier is (T.STRICT if strong else T.EXTENDED)
    assert result.grade is G.DISCURSIVE


def test_alternative_needs_both_options_identified():
    a = discursive(s="euros", o="other", text="Payment in euros or other.")
    assert strength_of(a) == (False, "ALTERNATIVE whose options are not both identified")


def test_discursive_strict_needs_the_strong_ones_to_meet_the_threshold():
    strong = discursive(section="a")
    weak = discursive(section="b", text="Payment in euros instead of dollars.", markers=("instead of",))
    assert only(promote([strong, weak])).tier is T.EXTENDED
    assert only(promote([strong, weak, discursive(section="c")])).tier is T.STRICT


def test_every_decision_is_logged_with_metrics():
    result = promote([explicit(), discursive(s="x", o="y", text="x or y may be used")], run_id="r1")
    assert len(result.log) == 2 and {r.run_id for r in result.log} == {"r1"}
    by = {r.relation_id: r for r in result.log}
    yes, no = by["lease|REQUIRES|insurance"], by["x|ALTERNATIVE_TO|y"]
    assert yes.promoted and yes.tier is T.STRICT and yes.strength.explicit_count == 1
    assert not no.promoted and no.tier is None and "below thresholds" in no.reason
    assert no.strength.discursive_count == 1 and no.strong_discursive == 1
