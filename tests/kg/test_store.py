"""Persistence with the case store, on SQLite and PostgreSQL (``db_url``): append-only journal and logs."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from lexlogic.engine.kg.constraints import AssertionRefused
from lexlogic.engine.kg.model import DefensibilityTier as T
from lexlogic.engine.kg.model import DiscursiveBasis as B
from lexlogic.engine.kg.model import RelationType as R
from lexlogic.engine.kg.patterns import extract
from lexlogic.engine.kg.store import AppendOnlyError, KGStore, RawAssertionRow
from lexlogic.engine.kg.traverse import GradeViolation, infer_transitive
from tests.kg.factory import discursive, explicit

DOC = "By default, French law applies to this contract. Payment may be made in euros or in US dollars."


@pytest.fixture
def store(db_url):
    s = KGStore(db_url)
    yield s
    s.engine.dispose()


def test_journal_round_trip_and_order(store):
    a, b = extract(DOC, "A"), extract(DOC, "B")
    assert store.append("c1", a.assertions) == 2 and store.append("c1", b.assertions) == 2
    got = store.assertions("c1")
    assert [x.id for x in got] == [x.id for x in a.assertions + b.assertions]
    assert got[0] == a.assertions[0]  # the whole model survives JSON/JSONB
    assert store.assertions("other") == [] and store.cases() == ["c1"]


def test_refused_batch_writes_nothing(store):
    bad = discursive(r=R.CAUSES, text="By default a causes b.")
    with pytest.raises(AssertionRefused):
        store.append("c1", [explicit(), bad])
    assert store.assertions("c1") == []


@pytest.mark.parametrize("table", ["kg_raw_assertion", "kg_abstention", "kg_promotion_log"])
def test_no_update_or_delete_at_the_database_level(store, table):
    store.append("c1", [explicit()])
    store.record_abstentions("c1", extract("Late delivery causes termination, unless waived.").abstentions)
    store.promote("c1")
    for stmt in (f"UPDATE {table} SET case_id = 'x'", f"DELETE FROM {table}"):
        with pytest.raises(DBAPIError, match="append-only"):
            with store.engine.begin() as conn:
                conn.execute(text(stmt))
    with store.engine.connect() as conn:
        assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() >= 1


def test_no_update_or_delete_through_the_orm(store):
    store.append("c1", [explicit()])
    with Session(store.engine) as session:
        row = session.query(RawAssertionRow).one()
        session.delete(row)
        with pytest.raises(AppendOnlyError):
            session.flush()
    with Session(store.engine) as session:
        row = session.query(RawAssertionRow).one()
        row.subject = "tampered"
        with pytest.raises(AppendOnlyError):
            session.flush()
    assert store.assertions("c1")[0].subject == "lease"


def test_promote_persists_layers_and_log(store):
    store.append("c1", extract(DOC, "A").assertions + extract(DOC, "B").assertions + [explicit()])
    result = store.promote("c1")
    assert result.by_tier()["STRICT"] == 3
    sem = store.semantic("c1")
    assert {r.id for r in sem} == {r.id for r in result.relations}
    log = store.promotion_log("c1", result.run_id)
    assert len(log) == 3 and all(rec.promoted for rec in log)
    assert store.graph("c1").traverse("french law")[0].target == "contract"
    again = store.promote("c1")  # a new run replaces the derived layers, and logs again
    assert len(store.semantic("c1")) == 3 and len(store.promotion_log("c1")) == 6 and again.run_id != result.run_id


def test_write_inferred_refuses_discursive_premises(store):
    store.append(
        "c1",
        [explicit("lease", R.REQUIRES, "insurance"), explicit("insurance", R.REQUIRES, "certificate")]
        + [
            discursive(
                s="certificate",
                r=R.REQUIRES,
                o="stamp",
                markers=("by default",),
                basis=B.DEFAULT,
                text="By default, the certificate must include a stamp.",
                section=s,
            )
            for s in "ab"
        ],
    )
    store.promote("c1")
    g = store.graph("c1")
    inferred = infer_transitive(g)
    assert [(r.subject, r.object) for r in inferred] == [("lease", "certificate")]  # not lease/insurance → stamp
    assert store.write_inferred("c1", inferred) == 1
    assert [r.tier for r in store.semantic("c1") if r.derived_from] == [T.EXPERIMENTAL]
    # a forged INFERRED edge (built without make_inferred) over the DISCURSIVE premise is refused by the store
    forged = inferred[0].model_copy(
        update={
            "id": "insurance|REQUIRES|stamp|inferred",
            "subject": "insurance",
            "object": "stamp",
            "derived_from": ["insurance|REQUIRES|certificate", "certificate|REQUIRES|stamp"],
        }
    )
    with pytest.raises(GradeViolation, match="DISCURSIVE"):
        store.write_inferred("c1", [forged])
    assert "insurance|REQUIRES|stamp|inferred" not in {r.id for r in store.semantic("c1")}


def test_text_fallback_reads_the_journal_and_abstentions(store):
    r = extract("Late delivery causes termination, unless waived. By default, French law applies to sales.", "A")
    store.append("c1", r.assertions)
    store.record_abstentions("c1", r.abstentions)
    search = store.text_search("c1")
    assert [s.text for s in search("late delivery")] == ["Late delivery causes termination, unless waived."]
    assert search("french law")[0].doc_id == "A"
