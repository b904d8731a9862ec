"""The batch ingest path (``ingest_many``): same rules as one-by-one, all or nothing, both stores identical.

Decision tested here: a batch is ALL-OR-NOTHING in both stores. One schema-invalid row (ValidationError,
location prefixed with its index), one refused assertion (BatchRefused, an AssertionRefused naming the
index, id, rule and reason) or one repeated id (AppendOnlyError) and nothing of the batch is written.
"""

from __future__ import annotations

import gc
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from lexlogic.engine.kg.aggregate import Aggregator
from lexlogic.engine.kg.constraints import AssertionRefused, check
from lexlogic.engine.kg.ingest import BatchRefused, gc_paused, validate_rows
from lexlogic.engine.kg.model import AssertionKind, RawAssertion
from lexlogic.engine.kg.model import DiscursiveAbstainReason as A
from lexlogic.engine.kg.model import DiscursiveBasis as B
from lexlogic.engine.kg.model import ExtractionMethod as M
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.promote import promote
from lexlogic.engine.kg.store import AppendOnlyError, KGStore, MemoryJournal, MemoryKG
from lexlogic.engine.kg.tiers import basis_weakness, strength_of
from tests.kg.factory import discursive, explicit, span


def row(i: int, **over) -> dict:  # type: ignore[type-arg]
    """A JSON-shaped row as `kg ingest` or the benchmark feeds them."""
    text = f"Payment may be made in euros or in currency {i % 3}."
    base = {
        "id": f"r{i}",
        "subject": "euros",
        "relation": "ALTERNATIVE_TO",
        "object": f"currency {i % 3}",
        "kind": "DISCURSIVE",
        "basis": "ALTERNATIVE",
        "method": "PATTERN",
        "markers": ["or"],
        "bundle": {
            "spans": [
                {"doc_id": f"d{i % 2}", "section": f"s{i % 4}", "char_start": 0, "char_end": len(text), "text": text}
            ]
        },
    }
    base.update(over)
    return base


ROWS = [row(i) for i in range(12)] + [
    row(20, kind="EXPLICIT", basis=None, markers=[], relation="REQUIRES", subject="lease", object="insurance"),
    row(
        21,
        basis="DEFAULT",
        relation="REQUIRES",
        markers=["by default"],
        bundle={
            "spans": [
                {
                    "doc_id": "d9",
                    "section": "a",
                    "char_start": 0,
                    "char_end": 40,
                    "text": "By default, the lease must include insurance.",
                }
            ]
        },
        subject="lease",
        object="insurance",
    ),
]
FORBIDDEN = row(99, relation="CAUSES", basis="DEFAULT", markers=["by default"])  # V1.forbidden
INVALID = row(98, basis=None)  # DISCURSIVE without a basis: a schema error, not a constraint refusal


def accumulators(agg: Aggregator) -> dict:  # type: ignore[type-arg]
    return {
        k: (
            acc.assertion_ids,
            acc.explicit_count,
            acc.discursive_count,
            acc.docs,
            acc.sections,
            acc.diversity,
            acc.discursive_sections,
            acc.strong_count,
            acc.strong_sections,
            acc.methods,
        )
        for k, acc in agg.by_key.items()
    }


def decisions(result) -> tuple:  # type: ignore[no-untyped-def]
    """A promotion result without its run id and timestamps (which differ between runs by design)."""
    rels = sorted((r.model_dump() for r in result.relations), key=lambda r: r["id"])
    log = sorted((r.model_dump(exclude={"run_id", "at"}) for r in result.log), key=lambda r: r["relation_id"])
    return rels, log


# ---------------------------------------------------------------- same result as one by one


def test_ingest_many_equals_one_by_one():
    kg = MemoryKG()
    assert kg.ingest_many(ROWS) == len(ROWS)
    one_by_one = [RawAssertion.model_validate(r) for r in ROWS]
    journal = MemoryJournal()
    for a in one_by_one:
        journal.append(a)
    assert list(kg.journal) == list(journal) == one_by_one
    assert accumulators(kg.aggregator) == accumulators(Aggregator().add_all(one_by_one))
    assert decisions(kg.promote()) == decisions(promote(one_by_one))


def test_ingest_many_accepts_models_and_dicts_alike():
    kg = MemoryKG()
    kg.ingest_many([explicit(), ROWS[0]])
    assert [a.id for a in kg.journal][1] == "r0" and len(kg.aggregator) == 2


# ---------------------------------------------------------------- all or nothing, memory


@pytest.mark.parametrize("position", [0, 5, len(ROWS)])
def test_memory_batch_with_one_refused_assertion_writes_nothing(position):
    kg = MemoryKG()
    kg.ingest_many([row(1000)])  # earlier content must survive untouched
    before_journal, before_agg = kg.journal.snapshot(), accumulators(kg.aggregator)
    batch = ROWS[:position] + [FORBIDDEN] + ROWS[position:]
    with pytest.raises(BatchRefused) as info:
        kg.ingest_many(batch)
    err = info.value
    assert isinstance(err, AssertionRefused)  # callers catching the single-assertion error still do
    assert (err.index, err.assertion_id) == (position, "r99")
    assert err.violation.rule == "V1.forbidden" and err.violation.reason is A.WHITELIST_VIOLATION
    assert "nothing written" in str(err) and f"[{position}]" in str(err)
    assert kg.journal.snapshot() == before_journal and accumulators(kg.aggregator) == before_agg


def test_every_offender_is_listed_with_its_rule():
    llm = row(50, method="LLM")  # DISCURSIVE by the LLM alone
    inferred = row(51, kind="EXPLICIT", basis=None, method="INFERRED")
    requires = row(52, relation="REQUIRES")  # no obligation marker in "Payment may be made ..."
    with pytest.raises(BatchRefused) as info:
        MemoryKG().ingest_many([ROWS[0], llm, ROWS[1], inferred, requires])
    assert [(i, aid, v.rule) for i, aid, v in info.value.violations] == [
        (1, "r50", "discursive.method"),
        (3, "r51", "journal.no_inferred"),
        (4, "r52", "V1.requires_obligation"),
    ]
    assert "and 2 more" in str(info.value)


def test_memory_batch_with_one_invalid_row_writes_nothing():
    kg = MemoryKG()
    with pytest.raises(ValidationError) as info:
        kg.ingest_many(ROWS[:3] + [INVALID] + ROWS[3:])
    err = info.value.errors()[0]
    assert err["loc"][0] == 3 and "needs a basis" in err["msg"]
    assert len(kg.journal) == 0 and len(kg.aggregator) == 0


def test_memory_batch_with_a_repeated_id_writes_nothing():
    kg = MemoryKG()
    kg.ingest_many(ROWS[:2])
    with pytest.raises(AppendOnlyError):
        kg.ingest_many([row(500), row(501), row(500)])  # twice in the batch
    with pytest.raises(AppendOnlyError):
        kg.ingest_many([row(502), ROWS[0]])  # already journaled
    assert [a.id for a in kg.journal] == ["r0", "r1"] and len(kg.aggregator) == 2


def test_memory_journal_extend_is_all_or_nothing_too():
    journal = MemoryJournal()
    with pytest.raises(AssertionRefused):
        journal.extend([explicit(), discursive(r=R.CAUSES, basis=B.DEFAULT, text="By default a causes b.")])
    assert len(journal) == 0
    assert journal.extend([explicit(), explicit()]) == 2


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_restored_after_a_batch(enabled):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        MemoryKG().ingest_many(ROWS)
        assert gc.isenabled() is enabled
        with pytest.raises(BatchRefused):
            MemoryKG().ingest_many([FORBIDDEN])
        assert gc.isenabled() is enabled
        with gc_paused():
            with gc_paused():  # nested (or a concurrent batch): the last one out restores
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# ---------------------------------------------------------------- all or nothing, SQL (SQLite and PostgreSQL)


@pytest.fixture
def store(db_url):
    s = KGStore(db_url)
    yield s
    s.engine.dispose()


def test_sql_ingest_many_refuses_the_whole_batch(store):
    store.ingest_many("c", [row(1000)])
    with pytest.raises(BatchRefused) as info:
        store.ingest_many("c", ROWS[:4] + [FORBIDDEN] + ROWS[4:])
    assert info.value.index == 4 and info.value.violation.rule == "V1.forbidden"
    with pytest.raises(ValidationError):
        store.ingest_many("c", ROWS[:2] + [INVALID])
    with pytest.raises(AppendOnlyError):
        store.ingest_many("c", [row(1), row(2), row(1)])  # repeated in the batch
    with pytest.raises(AppendOnlyError):
        store.ingest_many("c", [row(3), row(1000)])  # already journaled: the unique index refuses it
    assert [a.id for a in store.assertions("c")] == ["r1000"]
    assert store.ingest_many("c", ROWS) == len(ROWS)  # the store still works after the refusals
    assert len(store.assertions("c")) == len(ROWS) + 1


def test_memory_and_sql_stores_are_identical(store):
    kg = MemoryKG()
    kg.ingest_many(ROWS)
    store.ingest_many("c", ROWS)
    stored = store.assertions("c")
    assert stored == list(kg.journal)  # every field survives the one-call JSON dump
    assert [a.model_dump(mode="json") for a in stored] == [a.model_dump(mode="json") for a in kg.journal]
    assert decisions(store.promote("c")) == decisions(kg.promote())


# ---------------------------------------------------------------- properties

RELS = [R.APPLIES_TO, R.ALTERNATIVE_TO, R.REQUIRES, R.REPLACES, R.CAUSES]
TEXTS = [
    "X may be a or b.",
    "By default, a must include b.",
    "By default, a replaces b from 2025.",
    "A applies to b, unless c.",
    "A, instead of b.",
    "In this Article, a applies to b.",
    "Failing which, a.",
]
MARKERS = [(), ("or",), ("by default",), ("unless",), ("instead of",), ("OR",), ("sauf",)]


@st.composite
def any_assertion(draw):
    """Admissible and refused ones alike: every relation, method, basis, cue and span count."""
    s, o = draw(st.sampled_from(["a", "b", "other", "c"])), draw(st.sampled_from(["a", "b", "it", "d"]))
    rel, method = draw(st.sampled_from(RELS)), draw(st.sampled_from([M.PATTERN, M.HYBRID, M.LLM]))
    doc, section = draw(st.sampled_from(["d1", "d2"])), draw(st.sampled_from(["s1", "s2", "s3"]))
    if draw(st.integers(0, 3)) == 0:
        return explicit(s, rel, o, doc=doc, section=section, method=method)
    extra = (span("anchor text", doc, "s9"),) if draw(st.booleans()) else ()
    return discursive(
        s,
        rel,
        o,
        basis=draw(st.sampled_from(list(B))),
        text=draw(st.sampled_from(TEXTS)),
        markers=draw(st.sampled_from(MARKERS)),
        doc=doc,
        section=section,
        method=method,
        extra_spans=extra,
        anchor=draw(st.sampled_from([None, "", "Article 1"])),
        complete=draw(st.sampled_from([None, True, False])),
    )


@settings(max_examples=300, deadline=None)
@given(any_assertion())
def test_admitted_fast_strength_equals_the_full_rule(a):
    """The batch path's shortcut (no re-check of gates the journal already passed) never changes a tier."""
    if a.kind is AssertionKind.DISCURSIVE and check(a) is None:
        strong, why = strength_of(a)
        assert (basis_weakness(a) is None) is strong
        if not strong:
            assert basis_weakness(a) == why


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(any_assertion(), max_size=6), max_size=5))
def test_batches_are_all_or_nothing_and_match_one_by_one(batches):
    kg = MemoryKG()
    admitted: list[RawAssertion] = []
    for batch in batches:
        before = kg.journal.snapshot()
        ok = all(check(a) is None for a in batch)
        try:
            kg.ingest_many(batch)
        except BatchRefused as exc:
            assert not ok and check(batch[exc.index]) is not None
        after = kg.journal.snapshot()
        assert after == (before + tuple(batch) if ok else before)
        if ok:
            admitted += batch
    assert accumulators(kg.aggregator) == accumulators(Aggregator().add_all(admitted))
    assert decisions(kg.promote()) == decisions(promote(admitted))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(any_assertion(), min_size=1, max_size=6))
def test_sql_batch_is_all_or_nothing(db_url, batch):
    store = KGStore(db_url)
    try:
        case = uuid.uuid4().hex
        ok = all(check(a) is None for a in batch)
        try:
            store.append(case, batch)
        except BatchRefused:
            assert not ok
        assert store.assertions(case) == (batch if ok else [])
    finally:
        store.engine.dispose()


def test_validate_rows_matches_model_validate_field_for_field():
    got = validate_rows(ROWS)
    assert got == [RawAssertion.model_validate(r) for r in ROWS]
    assert [a.model_fields_set for a in got] == [RawAssertion.model_validate(r).model_fields_set for r in ROWS]
