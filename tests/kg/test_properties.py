"""Hypothesis properties: monotone promotion, append-only journal, no INFERRED edge from a DISCURSIVE path."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.engine.kg.constraints import AssertionRefused
from lexlogic.engine.kg.model import DefensibilityTier as T
from lexlogic.engine.kg.model import DiscursiveBasis as B
from lexlogic.engine.kg.model import ExtractionMethod, SemanticRelation, SupportStrength, relation_id
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.model import SemanticGrade as G
from lexlogic.engine.kg.promote import promote
from lexlogic.engine.kg.store import AppendOnlyError, KGStore, MemoryJournal
from lexlogic.engine.kg.tiers import TIER_ORDER
from lexlogic.engine.kg.traverse import GradeViolation, Graph, infer_transitive, make_inferred
from tests.kg.factory import discursive, explicit, span

ENTITIES = ["a", "b", "c", "d"]
# (basis, text, markers, extra) variants, strong and weak
VARIANTS = [
    (B.ALTERNATIVE, "X may be a or b.", ("or",), {}),
    (B.ALTERNATIVE, "X: a instead of b.", ("instead of",), {}),
    (B.DEFAULT, "By default, a applies to b.", ("by default",), {}),
    (B.DEFAULT, "Failing which, a applies to b.", ("failing which",), {}),
    (B.EXCEPTION, "A applies to b, unless c.", ("unless",), {}),
    (B.SCOPE, "In this Article, a applies to b.", (), {"anchor": "Art. 1", "extra_spans": (span("Art. 1"),)}),
    (B.SCOPE, "In this Article, a applies to b.", (), {}),
    (B.COREF, "It applies to b.", (), {"anchor": "it → a", "extra_spans": (span("The a is here."),)}),
    (B.ENUMERATION, "A applies to b, c and d.", (), {"complete": True}),
    (B.ENUMERATION, "A applies to b, c and d.", (), {"complete": False}),
]


@st.composite
def assertion(draw):
    s, o = draw(st.sampled_from(ENTITIES)), draw(st.sampled_from(ENTITIES))
    rel = draw(st.sampled_from([R.APPLIES_TO, R.ALTERNATIVE_TO]))
    doc, section = draw(st.sampled_from(["d1", "d2"])), draw(st.sampled_from(["s1", "s2", "s3"]))
    if draw(st.booleans()):
        return explicit(s, rel, o, doc=doc, section=section)
    basis, text, markers, extra = draw(st.sampled_from(VARIANTS))
    method = draw(st.sampled_from([ExtractionMethod.PATTERN, ExtractionMethod.HYBRID]))
    return discursive(
        s, rel, o, basis=basis, text=text, markers=markers, doc=doc, section=section, method=method, **extra
    )


def ranks(assertions):
    result = promote(assertions)
    return {r.id: (TIER_ORDER[r.tier], r.grade) for r in result.relations}


@settings(max_examples=150, deadline=None)
@given(st.lists(assertion(), max_size=12), st.lists(assertion(), min_size=1, max_size=6))
def test_promotion_is_monotone_in_support(base, extra):
    before, after = ranks(base), ranks(base + extra)
    for rid, (rank, grade) in before.items():
        assert rid in after, f"{rid} lost its promotion when support was added"
        new_rank, new_grade = after[rid]
        assert new_rank >= rank, f"{rid} demoted from {rank} to {new_rank}"
        assert new_grade is grade or new_grade is G.MIXED  # grades only ever move to MIXED


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(assertion(), st.booleans()), max_size=15))
def test_memory_journal_is_append_only(ops):
    journal = MemoryJournal()
    previous: tuple = ()
    for a, forbidden in ops:
        candidate = discursive(r=R.CAUSES, text="By default a causes b.") if forbidden else a
        try:
            journal.append(candidate)
        except AssertionRefused:
            assert forbidden
        snap = journal.snapshot()
        assert snap[: len(previous)] == previous  # earlier entries never change nor disappear
        assert len(snap) - len(previous) == (0 if forbidden else 1)
        previous = snap
    if previous:
        with pytest.raises(AppendOnlyError):
            journal.append(previous[0])  # the same entry cannot be re-journaled (no replacement)


MUTATORS = (
    "update",
    "delete",
    "remove",
    "pop",
    "clear",
    "set",
    "truncate",
    "replace",
    "edit",
    "__setitem__",
    "__delitem__",
)


@pytest.mark.parametrize("cls", [MemoryJournal, KGStore])
def test_no_update_or_delete_path_exists(cls):
    names = [n for n in dir(cls) if not n.startswith("__") or n in ("__setitem__", "__delitem__")]
    assert not [n for n in names if any(m in n.lower() for m in MUTATORS)]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(assertion(), min_size=1, max_size=5))
def test_store_journal_is_append_only(db_url, batch):
    store = KGStore(db_url)
    try:
        case = uuid.uuid4().hex
        before = store.assertions(case)
        store.append(case, batch)
        mid = store.assertions(case)
        store.append(case, [batch[0].model_copy(update={"id": uuid.uuid4().hex})])
        after = store.assertions(case)
        assert before == [] and mid == batch and after[: len(mid)] == mid and len(after) == len(mid) + 1
    finally:
        store.engine.dispose()


def edge(s: str, o: str, grade: G) -> SemanticRelation:
    e = 1 if grade in (G.EXPLICIT, G.MIXED) else 0
    d = 2 if grade in (G.DISCURSIVE, G.MIXED) else 0
    return SemanticRelation(
        id=relation_id(s, R.REQUIRES, o),
        subject=s,
        relation=R.REQUIRES,
        object=o,
        grade=grade,
        tier=T.STRICT,
        methods=[ExtractionMethod.PATTERN],
        strength=SupportStrength(support_count=e + d, explicit_count=e, discursive_count=d),
        tier_reason="test",
    )


NODES = ["n0", "n1", "n2", "n3", "n4", "n5"]


@st.composite
def graphs(draw):
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)).filter(lambda p: p[0] != p[1]),
            unique=True,
            max_size=14,
        )
    )
    return [edge(s, o, draw(st.sampled_from(list(G)))) for s, o in pairs]


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_a_discursive_path_never_yields_an_inferred_edge(edges):
    g = Graph(edges)
    for inferred in infer_transitive(g):
        premises = [g.relations[p] for p in inferred.derived_from]
        assert all(p.grade is not G.DISCURSIVE for p in premises)
        assert inferred.tier is T.EXPERIMENTAL and inferred.methods == [ExtractionMethod.INFERRED]
    discursive_only = Graph([e for e in edges if e.grade is G.DISCURSIVE])
    assert infer_transitive(discursive_only) == []
    for path in g.paths("n0", "n3", frozenset(T), max_depth=3):
        if any(p.grade is G.DISCURSIVE for p in path) and len(path) >= 2:
            with pytest.raises(GradeViolation):
                make_inferred(path)


WORDS = [
    "by default",
    "par défaut",
    "unless",
    "sauf si",
    "or",
    "ou",
    "may",
    "peut",
    "the lease",
    "la garantie",
    "applies to",
    "s'applique à",
    "must include",
    "doit comporter",
    "replaces",
    "remplace",
    "from 2025",
    "causes",
    "entraîne",
    "therefore",
    "donc",
    "It",
    "Elle",
    "For the purposes of this Article,",
    ",",
    ".",
    "\n",
    "Article 3 — Prix\n",
    "\n## Article 4\n",
    "euros",
    "dollars",
    "a, b and c",
    "including",
    "instead of",
    "soit",
    "either",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=8), max_size=25))
def test_extractor_output_is_always_admissible_and_motivated(words):
    from lexlogic.engine.kg.constraints import check
    from lexlogic.engine.kg.patterns import extract

    text = " ".join(words)
    result = extract(text, "fuzz")
    for a in result.assertions:
        assert check(a) is None
        assert a.kind.value == "DISCURSIVE" and a.basis is not None and a.method is ExtractionMethod.PATTERN
        for s in a.bundle.spans:
            assert text[s.char_start : s.char_end] == s.text
    for x in result.abstentions:
        assert x.reason is not None and x.detail.strip()
