"""The API's ownership records: which tenant owns which case and which uploaded document.

The reasoning state itself (FSM snapshots, time travel) lives in ``engine.store.cases`` under the run
id ``api-<case id>``; this module only adds what that store does not know: the owning tenant, the
case's display name and pack, and the documents uploaded through the API (text kept for the page's
side panel, the original bytes kept on disk in the case's dossier directory for the orchestrator).
Every read takes the tenant: a row of another tenant is simply not found.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint, bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.store.db import Base, JSONType, create_tables, make_engine, point_reads, session_factory
from lexlogic.engine.store.tenants import Tenant
from lexlogic.logic.errors import LexlogicError


class DocumentExists(LexlogicError):
    """A document of that name is already in the case (upload with replace to overwrite it)."""

    status = 409


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(t: datetime | None) -> datetime | None:
    """SQLite drops the zone of stored datetimes: they were written in UTC."""
    return t.replace(tzinfo=UTC) if t is not None and t.tzinfo is None else t


def run_of(case_id: str) -> str:
    """The orchestrator's run of an API case (its snapshots' ``case_id`` in the runs' store)."""
    return f"api-{case_id}"


class ApiCase(Base):
    __tablename__ = "api_cases"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(32), ForeignKey("api_tenants.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    pack: Mapped[str] = mapped_column(String(100))
    origin: Mapped[str] = mapped_column(String(16))  # facts | documents
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    @property
    def run_id(self) -> str:
        return run_of(self.id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "pack": self.pack,
            "origin": self.origin,
            "created_at": _aware(self.created_at),
        }


_CASE_COLUMNS = ("id", "tenant_id", "name", "pack", "origin", "created_at")


# the case-owner read of every API request on a case, built once (``PointReads`` compiles it once)
_OWNED_CASE = select(*(ApiCase.__table__.c[name] for name in _CASE_COLUMNS)).where(
    ApiCase.id == bindparam("case_id"), ApiCase.tenant_id == bindparam("tenant_id")
)


class ApiDocument(Base):
    __tablename__ = "api_documents"
    __table_args__ = (UniqueConstraint("case_id", "doc_id", name="uq_api_document"),)
    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(32), ForeignKey("api_tenants.id"), index=True)
    case_id: Mapped[str] = mapped_column(String(32), ForeignKey("api_cases.id"), index=True)
    doc_id: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(300))
    media_type: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(32))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    pages: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    def as_dict(self, with_text: bool = False) -> dict[str, Any]:
        out = {
            "id": self.doc_id,
            "filename": self.filename,
            "media_type": self.media_type,
            "kind": self.kind,
            "size": self.size,
            "sha256": self.sha256,
            "pages": len(self.pages or []),
            "chars": len(self.text),
            "created_at": _aware(self.created_at),
        }
        if with_text:
            out["text"] = self.text
            out["page_spans"] = self.pages
        return out


class ApiRuleOwner(Base):
    """Which tenant owns a dynamic rule (``engine.dynamic_rules``; its id), and the API case it is
    scoped to (None: every case of the tenant). The rule store knows no tenants: this table does."""

    __tablename__ = "api_rule_owners"
    rule_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(32), ForeignKey("api_tenants.id"), index=True)
    case_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("api_cases.id"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ApiRulePrincipal(Base):
    """Which API key proposed and which approved a dynamic rule: approval must come from another key
    than the author's (or an admin-scoped key), and both are kept for the audit."""

    __tablename__ = "api_rule_principals"
    rule_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    proposed_by_key: Mapped[str | None] = mapped_column(String(32), nullable=True)
    approved_by_key: Mapped[str | None] = mapped_column(String(32), nullable=True)
    approved_as_admin: Mapped[bool | None] = mapped_column(nullable=True)


class ApiCaseStore:
    def __init__(self, url: str | None = None, engine=None) -> None:  # type: ignore[no-untyped-def]
        self.engine = engine or make_engine(url)
        create_tables(
            self.engine,
            [
                Tenant.__table__,
                ApiCase.__table__,
                ApiDocument.__table__,
                ApiRuleOwner.__table__,
                ApiRulePrincipal.__table__,
            ],
        )
        self.Session = session_factory(self.engine)
        self._owned: dict[tuple[str, str], ApiCase] = {}  # (tenant, case) → its record: see ``get_case``
        self._owned_lock = threading.Lock()

    def create_case(self, tenant_id: str, name: str, pack: str, origin: str) -> ApiCase:
        with self.Session.begin() as s:
            row = ApiCase(id=uuid.uuid4().hex, tenant_id=tenant_id, name=name, pack=pack, origin=origin)
            s.add(row)
            s.flush()
            return row

    def get_case(self, tenant_id: str, case_id: str) -> ApiCase | None:
        """The tenant's case (a detached record: one round trip, ``db.PointReads``), or None. A case found is
        remembered (4,096 kept): its row is written once by ``create_case`` and never updated or deleted, and
        every API request on a case reads it (one of the three round trips a cached verdict made on the event
        loop). A case not found is not remembered: another process may create it. Deleting or editing cases
        would have to forget them here."""
        hit = self._owned.get((tenant_id, case_id))
        if hit is not None:
            return hit
        return self._remember(
            tenant_id, case_id, point_reads(self.engine).first(_OWNED_CASE, case_id=case_id, tenant_id=tenant_id)
        )

    async def aget_case(self, tenant_id: str, case_id: str) -> ApiCase | None:
        """``get_case`` awaited: the event loop serves other requests during the round trip (the API's)."""
        hit = self._owned.get((tenant_id, case_id))
        if hit is not None:
            return hit
        row = await point_reads(self.engine).afirst(_OWNED_CASE, case_id=case_id, tenant_id=tenant_id)
        return self._remember(tenant_id, case_id, row)

    def _remember(self, tenant_id: str, case_id: str, row: Any) -> ApiCase | None:
        if row is None:
            return None
        case = ApiCase(**row._asdict())
        with self._owned_lock:
            self._owned[(tenant_id, case_id)] = case
            while len(self._owned) > 4096:
                self._owned.pop(next(iter(self._owned)))
        return case

    def list_cases(self, tenant_id: str, limit: int = 100, offset: int = 0) -> list[ApiCase]:
        with self.Session() as s:
            return list(
                s.scalars(
                    select(ApiCase)
                    .where(ApiCase.tenant_id == tenant_id)
                    .order_by(ApiCase.created_at.desc(), ApiCase.id)
                    .limit(limit)
                    .offset(offset)
                )
            )

    def add_document(self, tenant_id: str, case_id: str, **fields: Any) -> ApiDocument:
        with self.Session.begin() as s:
            row = ApiDocument(tenant_id=tenant_id, case_id=case_id, **fields)
            s.add(row)
            s.flush()
            return row

    def put_document(
        self, tenant_id: str, case_id: str, *, replace: bool, place: Callable[[], object], **fields: Any
    ) -> ApiDocument:
        """Record a document and put its file in place (``place``: an atomic rename) in ONE transaction,
        under the row's lock: of two uploads of one name, one wins and the other gets DocumentExists
        (or, with ``replace``, waits and replaces); the file beside the row is always the winner's."""
        doc_id = fields["doc_id"]
        for _ in range(2):
            try:
                with self.Session.begin() as s:
                    row = s.scalars(
                        select(ApiDocument)
                        .where(ApiDocument.tenant_id == tenant_id, ApiDocument.case_id == case_id)
                        .where(ApiDocument.doc_id == doc_id)
                        .with_for_update()
                    ).one_or_none()
                    if row is not None and not replace:
                        raise DocumentExists(f"document {doc_id!r} already exists in this case")
                    if row is None:
                        row = ApiDocument(tenant_id=tenant_id, case_id=case_id, **fields)
                        s.add(row)
                    else:
                        for name, value in fields.items():
                            setattr(row, name, value)
                        row.created_at = _now()
                    s.flush()  # a concurrent insert of the same name fails here (unique), before any file moves
                    place()
                    return row
            except IntegrityError:
                if not replace:
                    raise DocumentExists(f"document {doc_id!r} already exists in this case") from None
        raise DocumentExists(f"document {doc_id!r}: replaced by another upload meanwhile; try again")

    def delete_document(self, tenant_id: str, case_id: str, doc_id: str, *, remove: Callable[[], object]) -> bool:
        """Delete the document's row and (``remove``) its file, in one transaction; False if there is none."""
        with self.Session.begin() as s:
            row = s.scalars(
                select(ApiDocument)
                .where(ApiDocument.tenant_id == tenant_id, ApiDocument.case_id == case_id)
                .where(ApiDocument.doc_id == doc_id)
                .with_for_update()
            ).one_or_none()
            if row is None:
                return False
            s.delete(row)
            s.flush()
            remove()
            return True

    def has_document(self, tenant_id: str, case_id: str, doc_id: str) -> bool:
        return self.get_document(tenant_id, case_id, doc_id) is not None

    def list_documents(self, tenant_id: str, case_id: str) -> list[ApiDocument]:
        with self.Session() as s:
            return list(
                s.scalars(
                    select(ApiDocument)
                    .where(ApiDocument.tenant_id == tenant_id, ApiDocument.case_id == case_id)
                    .order_by(ApiDocument.doc_id)
                )
            )

    def get_document(self, tenant_id: str, case_id: str, doc_id: str) -> ApiDocument | None:
        with self.Session() as s:
            return s.scalars(
                select(ApiDocument).where(
                    ApiDocument.tenant_id == tenant_id, ApiDocument.case_id == case_id, ApiDocument.doc_id == doc_id
                )
            ).one_or_none()

    # dynamic rules: ownership only (the rule itself lives in engine.dynamic_rules)
    def own_rule(self, tenant_id: str, rule_id: str, case_id: str | None, key_id: str | None = None) -> None:
        with self.Session.begin() as s:
            s.add(ApiRuleOwner(rule_id=rule_id, tenant_id=tenant_id, case_id=case_id))
            s.add(ApiRulePrincipal(rule_id=rule_id, proposed_by_key=key_id))

    def rule_principal(self, rule_id: str) -> ApiRulePrincipal | None:
        with self.Session() as s:
            return s.get(ApiRulePrincipal, rule_id)

    def record_approval(self, rule_id: str, key_id: str | None, as_admin: bool) -> None:
        with self.Session.begin() as s:
            row = s.get(ApiRulePrincipal, rule_id)
            if row is None:
                row = ApiRulePrincipal(rule_id=rule_id)
                s.add(row)
            row.approved_by_key, row.approved_as_admin = key_id, as_admin

    def rule_owner(self, tenant_id: str, rule_id: str) -> ApiRuleOwner | None:
        with self.Session() as s:
            return s.scalars(
                select(ApiRuleOwner).where(ApiRuleOwner.rule_id == rule_id, ApiRuleOwner.tenant_id == tenant_id)
            ).one_or_none()

    def rule_ids(self, tenant_id: str, case_id: str | None = None, *, with_tenant_wide: bool = True) -> list[str]:
        """The tenant's rule ids; with ``case_id``: those scoped to that case (and the tenant-wide ones)."""
        q = select(ApiRuleOwner.rule_id).where(ApiRuleOwner.tenant_id == tenant_id)
        if case_id is not None:
            q = (
                q.where((ApiRuleOwner.case_id == case_id) | (ApiRuleOwner.case_id.is_(None)))
                if with_tenant_wide
                else q.where(ApiRuleOwner.case_id == case_id)
            )
        with self.Session() as s:
            return list(s.scalars(q.order_by(ApiRuleOwner.rule_id)))


def repair_answers(state: Any, packs: Any) -> list[str]:
    """Drop stored answers that do not validate any more, so that a case poisoned by bad stored data (a NaN
    amount stored as null by an older version, a date the engine cannot compute with) recovers instead of
    failing every later request with 500. Each drop is logged in the state; returns the dropped facts."""
    import math
    from datetime import date

    from lexlogic.logic.facts import check_value

    if not state.answers:
        return []
    try:
        pack = packs.pack(state.pack)
    except Exception:
        return []
    dropped = []
    for fact, value in list(state.answers.items()):
        spec = pack.facts.get(fact)
        if spec is None:
            continue
        try:
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError("not a finite number")
            checked = check_value(spec, value)
            if isinstance(checked, date) and not 1800 <= checked.year <= 2199:
                raise ValueError(f"date {checked} out of range")
        except (ValueError, TypeError, OverflowError) as exc:
            del state.answers[fact]
            state.log.append(f"stored answer {fact} dropped: invalid value {value!r} ({exc})"[:300])
            dropped.append(fact)
    return dropped
