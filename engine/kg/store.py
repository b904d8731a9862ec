"""Persistence with the case store (SQLAlchemy, SQLite or PostgreSQL) and a fast in-memory journal.

The raw journal has no update or delete path: the store class offers none, the ORM mappers refuse
one, and database triggers abort any UPDATE/DELETE (and TRUNCATE on PostgreSQL) on the journal and the
two logs. Canonical and semantic layers are derived views: a promotion run replaces them for its case.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

from sqlalchemy import DDL, Boolean, DateTime, Engine, Integer, String, Text, delete, event, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.kg.aggregate import Aggregator
from lexlogic.engine.kg.constraints import ensure_admissible
from lexlogic.engine.kg.ingest import BATCH, Row, admit_all, duplicate_ids, gc_paused, validate_rows
from lexlogic.engine.kg.model import (
    Abstention,
    EvidenceSpan,
    ExtractionMethod,
    PromotionRecord,
    RawAssertion,
    SemanticGrade,
    SemanticRelation,
    normalize_entity,
    relation_id,
)
from lexlogic.engine.kg.promote import DEFAULT_POLICY, PromotionPolicy, PromotionResult, promote
from lexlogic.engine.kg.traverse import GradeViolation, Graph, check_grade
from lexlogic.engine.store.db import Base, JSONType, create_tables, make_engine
from lexlogic.logic.errors import LexlogicError

APPEND_ONLY_TABLES = ("kg_raw_assertion", "kg_abstention", "kg_promotion_log")


def _now() -> datetime:
    return datetime.now(UTC)


class RawAssertionRow(Base):
    __tablename__ = "kg_raw_assertion"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(64), unique=True)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    subject: Mapped[str] = mapped_column(Text)
    relation: Mapped[str] = mapped_column(String(32))
    object: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    basis: Mapped[str | None] = mapped_column(String(16), nullable=True)
    method: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict] = mapped_column(JSONType)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class AbstentionRow(Base):
    __tablename__ = "kg_abstention"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    reason: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict] = mapped_column(JSONType)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class CanonicalRow(Base):
    __tablename__ = "kg_canonical_relation"
    case_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    relation_id: Mapped[str] = mapped_column(Text, primary_key=True)
    payload: Mapped[dict] = mapped_column(JSONType)


class SemanticRow(Base):
    __tablename__ = "kg_semantic_relation"
    case_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    subject: Mapped[str] = mapped_column(Text)
    relation: Mapped[str] = mapped_column(String(32))
    object: Mapped[str] = mapped_column(Text)
    grade: Mapped[str] = mapped_column(String(16))
    tier: Mapped[str] = mapped_column(String(16))
    run_id: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict] = mapped_column(JSONType)


class PromotionLogRow(Base):
    __tablename__ = "kg_promotion_log"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    case_id: Mapped[str] = mapped_column(String(200), index=True)
    run_id: Mapped[str] = mapped_column(String(32), index=True)
    relation_id: Mapped[str] = mapped_column(Text)
    promoted: Mapped[bool] = mapped_column(Boolean)
    grade: Mapped[str | None] = mapped_column(String(16), nullable=True)
    tier: Mapped[str | None] = mapped_column(String(16), nullable=True)
    payload: Mapped[dict] = mapped_column(JSONType)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


# -- database-level append-only guards -------------------------------------------------------------
_PG_FUNCTION = DDL(
    "CREATE OR REPLACE FUNCTION kg_append_only() RETURNS trigger AS $$ BEGIN "
    "RAISE EXCEPTION 'table %% is append-only (no update, delete or truncate)', TG_TABLE_NAME; END $$ "
    "LANGUAGE plpgsql"
)

for _table in (RawAssertionRow.__table__, AbstentionRow.__table__, PromotionLogRow.__table__):
    _name = _table.name
    event.listen(_table, "after_create", _PG_FUNCTION.execute_if(dialect="postgresql"))
    event.listen(
        _table,
        "after_create",
        DDL(
            f"CREATE TRIGGER {_name}_append_only BEFORE UPDATE OR DELETE ON {_name} "
            f"FOR EACH ROW EXECUTE FUNCTION kg_append_only()"
        ).execute_if(dialect="postgresql"),
    )
    event.listen(
        _table,
        "after_create",
        DDL(
            f"CREATE TRIGGER {_name}_no_truncate BEFORE TRUNCATE ON {_name} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION kg_append_only()"
        ).execute_if(dialect="postgresql"),
    )
    for _op in ("UPDATE", "DELETE"):
        event.listen(
            _table,
            "after_create",
            DDL(
                f"CREATE TRIGGER {_name}_no_{_op.lower()} BEFORE {_op} ON {_name} "
                f"BEGIN SELECT RAISE(ABORT, '{_name} is append-only (no {_op.lower()})'); END"
            ).execute_if(dialect="sqlite"),
        )


class AppendOnlyError(LexlogicError, RuntimeError):
    """Someone tried to change or remove a journal or log entry."""


def _refuse(_mapper, _conn, target) -> None:  # type: ignore[no-untyped-def]
    raise AppendOnlyError(f"{type(target).__tablename__} is append-only")


for _cls in (RawAssertionRow, AbstentionRow, PromotionLogRow):
    event.listen(_cls, "before_update", _refuse)
    event.listen(_cls, "before_delete", _refuse)

KG_TABLES = [
    RawAssertionRow.__table__,
    AbstentionRow.__table__,
    CanonicalRow.__table__,
    SemanticRow.__table__,
    PromotionLogRow.__table__,
]


# -- the store ----------------------------------------------------------------------------------------
class KGStore:
    """The evidence graph of each case, in the case database. Append-only journal, derived layers."""

    def __init__(self, url: str | None = None, engine: Engine | None = None) -> None:
        self.engine = engine or make_engine(url)
        create_tables(self.engine, KG_TABLES)

    # journal ----------------------------------------------------------------------------------------
    def append(self, case_id: str, assertions: Iterable[RawAssertion]) -> int:
        """Journal admissible assertions, all or nothing, in one transaction (one executemany).

        Every constraint of every assertion is checked before anything is written: raises BatchRefused
        (an AssertionRefused naming the first offender's index, id and rule) when one is refused, and
        AppendOnlyError when an id repeats in the batch or is already journaled — nothing is written then.
        """
        items = list(assertions)
        if not items:
            return 0
        admit_all(items)
        dups = duplicate_ids(items)
        if dups:
            raise AppendOnlyError(f"assertion {dups[0]} occurs twice in the batch (entries are never replaced)")
        with gc_paused():
            payloads = BATCH.dump_python(items, mode="json")  # one pydantic-core call for the whole batch
            at = _now()  # one transaction, one recording time
            rows = [
                {
                    "id": a.id,
                    "case_id": case_id,
                    "subject": a.subject,
                    "relation": p["relation"],
                    "object": a.object,
                    "kind": p["kind"],
                    "basis": p["basis"],
                    "method": p["method"],
                    "payload": p,
                    "recorded_at": at,
                }
                for a, p in zip(items, payloads)
            ]
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(RawAssertionRow.__table__), rows)
            except IntegrityError as exc:  # the only unique constraint of the journal besides seq is id
                raise AppendOnlyError(
                    f"an assertion of this batch is already journaled (entries are never replaced): {exc.orig}"
                ) from exc
        return len(rows)

    def ingest_many(self, case_id: str, rows: Sequence[Row] | Iterable[Row]) -> int:
        """JSON-shaped rows (or RawAssertions) → validated in one call → journaled all or nothing."""
        return self.append(case_id, validate_rows(rows))

    def record_abstentions(self, case_id: str, abstentions: Iterable[Abstention]) -> int:
        rows = [
            {"case_id": case_id, "reason": x.reason.value, "payload": x.model_dump(mode="json"), "recorded_at": _now()}
            for x in abstentions
        ]
        if rows:
            with self.engine.begin() as conn:
                conn.execute(insert(AbstentionRow.__table__), rows)
        return len(rows)

    def assertions(self, case_id: str) -> list[RawAssertion]:
        t = RawAssertionRow.__table__
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.payload).where(t.c.case_id == case_id).order_by(t.c.seq)).scalars()
            return [RawAssertion.model_validate(p) for p in rows]

    def abstentions(self, case_id: str) -> list[Abstention]:
        t = AbstentionRow.__table__
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.payload).where(t.c.case_id == case_id).order_by(t.c.seq)).scalars()
            return [Abstention.model_validate(p) for p in rows]

    def cases(self) -> list[str]:
        t = RawAssertionRow.__table__
        with self.engine.connect() as conn:
            return sorted(conn.execute(select(t.c.case_id).distinct()).scalars())

    # promotion --------------------------------------------------------------------------------------
    def promote(self, case_id: str, policy: PromotionPolicy = DEFAULT_POLICY) -> PromotionResult:
        """Rebuild the canonical and semantic layers of a case from its journal; log every decision."""
        agg = Aggregator().add_all(self.assertions(case_id))
        result = promote(agg, policy, run_id=uuid.uuid4().hex[:12])
        canon = [
            {
                "case_id": case_id,
                "relation_id": relation_id(c.subject, c.relation, c.object),
                "payload": c.model_dump(mode="json"),
            }
            for c in agg.canonical_relations()
        ]
        sem = [self._semantic_row(case_id, result.run_id, r) for r in result.relations]
        log = [
            {
                "case_id": case_id,
                "run_id": rec.run_id,
                "relation_id": rec.relation_id,
                "promoted": rec.promoted,
                "grade": rec.grade.value if rec.grade else None,
                "tier": rec.tier.value if rec.tier else None,
                "payload": rec.model_dump(mode="json"),
                "at": rec.at,
            }
            for rec in result.log
        ]
        with self.engine.begin() as conn:
            conn.execute(delete(CanonicalRow.__table__).where(CanonicalRow.__table__.c.case_id == case_id))
            conn.execute(delete(SemanticRow.__table__).where(SemanticRow.__table__.c.case_id == case_id))
            for table, rows in (
                (CanonicalRow.__table__, canon),
                (SemanticRow.__table__, sem),
                (PromotionLogRow.__table__, log),
            ):
                if rows:
                    conn.execute(insert(table), rows)
        return result

    @staticmethod
    def _semantic_row(case_id: str, run_id: str, r: SemanticRelation) -> dict:  # type: ignore[type-arg]
        return {
            "case_id": case_id,
            "id": r.id,
            "subject": r.subject,
            "relation": r.relation.value,
            "object": r.object,
            "grade": r.grade.value,
            "tier": r.tier.value,
            "run_id": run_id,
            "payload": r.model_dump(mode="json"),
        }

    def semantic(self, case_id: str) -> list[SemanticRelation]:
        t = SemanticRow.__table__
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.payload).where(t.c.case_id == case_id).order_by(t.c.id)).scalars()
            return [SemanticRelation.model_validate(p) for p in rows]

    def write_inferred(self, case_id: str, inferred: Sequence[SemanticRelation], run_id: str = "inferred") -> int:
        """Persist INFERRED edges after re-checking, against the stored layer, that no premise is DISCURSIVE."""
        layer = {r.id: r for r in self.semantic(case_id)}
        rows = []
        for rel in inferred:
            check_grade(rel)
            if ExtractionMethod.INFERRED not in rel.methods:
                raise GradeViolation(f"{rel.id}: write_inferred takes INFERRED edges only")
            for pid in rel.derived_from:
                premise = layer.get(pid)
                if premise is None:
                    raise GradeViolation(f"{rel.id}: premise {pid} is not in the semantic layer of {case_id}")
                if premise.grade is SemanticGrade.DISCURSIVE:
                    raise GradeViolation(f"{rel.id}: premise {pid} is DISCURSIVE (no transitivity through it)")
            rows.append(self._semantic_row(case_id, run_id, rel))
        if rows:
            with self.engine.begin() as conn:
                conn.execute(insert(SemanticRow.__table__), rows)
        return len(rows)

    def graph(self, case_id: str) -> Graph:
        return Graph(self.semantic(case_id))

    def promotion_log(self, case_id: str, run_id: str | None = None) -> list[PromotionRecord]:
        t = PromotionLogRow.__table__
        stmt = select(t.c.payload).where(t.c.case_id == case_id)
        if run_id:
            stmt = stmt.where(t.c.run_id == run_id)
        with self.engine.connect() as conn:
            return [PromotionRecord.model_validate(p) for p in conn.execute(stmt.order_by(t.c.seq)).scalars()]

    def text_search(self, case_id: str):  # type: ignore[no-untyped-def]
        """A function entity → anchored passages (spans of the journal and of abstentions mentioning it)."""
        spans = [s for a in self.assertions(case_id) for s in a.bundle.spans]
        spans += [x.span for x in self.abstentions(case_id)]
        return lambda entity: search_spans(spans, entity)


def search_spans(spans: Iterable[EvidenceSpan], entity: str, limit: int = 20) -> list[EvidenceSpan]:
    needle = normalize_entity(entity)
    seen: set[tuple[str, int, int]] = set()
    out: list[EvidenceSpan] = []
    for s in spans:
        key = (s.doc_id, s.char_start, s.char_end)
        if needle and needle in s.text.lower() and key not in seen:
            seen.add(key)
            out.append(s)
            if len(out) >= limit:
                break
    return out


# -- the fast in-memory store (benchmarks, tests, one-shot CLI runs) ------------------------------
class MemoryJournal:
    """An append-only list: ``append``/``extend`` and reads, nothing else. Entries are frozen models."""

    __slots__ = ("_entries", "_ids")

    def __init__(self) -> None:
        self._entries: list[RawAssertion] = []
        self._ids: set[str] = set()

    def append(self, assertion: RawAssertion) -> RawAssertion:
        ensure_admissible(assertion)
        if assertion.id in self._ids:
            raise AppendOnlyError(f"assertion {assertion.id} is already journaled (entries are never replaced)")
        self._ids.add(assertion.id)
        self._entries.append(assertion)
        return assertion

    def extend(self, assertions: Iterable[RawAssertion]) -> int:
        """Journal a batch all or nothing, like ``KGStore.append``: every constraint of every assertion and
        every id is checked before the first one is written (BatchRefused / AppendOnlyError otherwise)."""
        items = list(assertions)
        admit_all(items)
        dups = duplicate_ids(items, self._ids)
        if dups:
            raise AppendOnlyError(
                f"assertion {dups[0]} is already journaled or occurs twice in the batch (entries are never replaced)"
            )
        self._ids.update(a.id for a in items)
        self._entries.extend(items)
        return len(items)

    def __iter__(self) -> Iterator[RawAssertion]:
        return iter(tuple(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> RawAssertion:
        return self._entries[index]

    def snapshot(self) -> tuple[RawAssertion, ...]:
        return tuple(self._entries)


class MemoryKG:
    """Journal + incremental aggregation: ingestion and promotion without a database."""

    def __init__(self) -> None:
        self.journal = MemoryJournal()
        self.aggregator = Aggregator()

    def ingest_many(self, rows: Sequence[Row] | Iterable[Row]) -> int:
        """Validate a batch in one pydantic call, admit it all or nothing, journal it, aggregate it.

        A batch with one invalid row (ValidationError), one refused assertion (BatchRefused) or one
        repeated id (AppendOnlyError) leaves the journal and the aggregation exactly as they were.
        """
        with gc_paused():
            assertions = validate_rows(rows)
            self.journal.extend(assertions)  # raises before writing anything
            self.aggregator.add_admitted(assertions)
        return len(assertions)

    def ingest(self, assertions: Iterable[RawAssertion]) -> int:
        return self.ingest_many(list(assertions))

    def promote(self, policy: PromotionPolicy = DEFAULT_POLICY) -> PromotionResult:
        return promote(self.aggregator, policy)
