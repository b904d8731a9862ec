"""Dynamic rules: their lifecycle (store) and their place in a case's evaluation.

A dynamic rule is a small Python function proposed by an LLM (or written by a legal engineer) when the
hard rules have a gap. It is stored with its text, sha256, author and creation time, and moves
proposed → approved (by a person, optional per deployment) → active → retired. Only ACTIVE rules run,
and only in the sandbox (`sandbox.pool`). Their results enter the case as facts marked DYNAMIC, with a
proof node of kind DYNAMIC naming the rule, and with the rule's reliability as a prior the
probabilistic model can use to discount them: an interpretation, never hard law.

Every transition is kept in `dynamic_rule_events` (who, when, from, to, why): the audit trail.
"""

from __future__ import annotations

import builtins  # the store has a method named `list`
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import DateTime, Engine, Float, ForeignKey, Integer, String, Text, select, update
from sqlalchemy.orm import Mapped, mapped_column

from lexlogic.engine.extensions.provenance import Provenance
from lexlogic.engine.store.db import Base, JSONType, create_tables, make_engine, session_factory
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.grounding import Grounding, SourceKind
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import NodeKind, ProofNode
from lexlogic.sandbox.errors import SandboxError
from lexlogic.sandbox.pool import SandboxPool, default_pool, source_sha256
from lexlogic.sandbox.schema import SchemaError, build_output_adapter
from lexlogic.settings import Settings

DEFAULT_RELIABILITY = 0.7
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$")


class RuleStatus(str, Enum):
    PROPOSED = "proposed"
    APPROVED = "approved"
    ACTIVE = "active"
    RETIRED = "retired"


class AuthorKind(str, Enum):
    LLM = "llm"
    PERSON = "person"


class DynamicRuleError(LexlogicError, ValueError):
    """A lifecycle request that cannot be honoured (unknown rule, forbidden transition, bad input)."""


class DeploymentPolicy(BaseModel):
    """Per deployment: must a person approve a rule before it can become active?"""

    require_approval: bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> DeploymentPolicy:
        return cls(require_approval=settings.dynamic_require_approval)


# ---------------------------------------------------------------------------------- tables


class DynamicRuleRow(Base):
    __tablename__ = "dynamic_rules"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    case_id: Mapped[str | None] = mapped_column(String(200), index=True, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    author: Mapped[str] = mapped_column(String(200))
    author_kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), index=True)
    reliability: Mapped[float] = mapped_column(Float)
    output_schema: Mapped[Any] = mapped_column(JSONType, nullable=True)
    description: Mapped[str] = mapped_column(Text, default="")
    approved_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    approved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    activated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    retired_reason: Mapped[str | None] = mapped_column(Text, nullable=True)


class DynamicRuleEventRow(Base):
    __tablename__ = "dynamic_rule_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    rule_id: Mapped[str] = mapped_column(String(80), ForeignKey("dynamic_rules.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str] = mapped_column(String(200))
    from_status: Mapped[str | None] = mapped_column(String(16), nullable=True)
    to_status: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")


_TABLES = [DynamicRuleRow.__table__, DynamicRuleEventRow.__table__]


# ---------------------------------------------------------------------------------- views


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class DynamicRule(BaseModel):
    id: str
    name: str
    case_id: str | None = None
    text: str
    sha256: str
    author: str
    author_kind: AuthorKind
    created_at: datetime
    status: RuleStatus
    reliability: float = Field(ge=0.0, le=1.0)
    output_schema: Any = None
    description: str = ""
    approved_by: str | None = None
    approved_at: datetime | None = None
    activated_at: datetime | None = None
    retired_at: datetime | None = None
    retired_reason: str | None = None

    @classmethod
    def from_row(cls, row: DynamicRuleRow) -> DynamicRule:
        return cls(
            id=row.id,
            name=row.name,
            case_id=row.case_id,
            text=row.text,
            sha256=row.sha256,
            author=row.author,
            author_kind=AuthorKind(row.author_kind),
            created_at=_utc(row.created_at),
            status=RuleStatus(row.status),
            reliability=row.reliability,
            output_schema=row.output_schema,
            description=row.description or "",
            approved_by=row.approved_by,
            approved_at=_utc(row.approved_at),
            activated_at=_utc(row.activated_at),
            retired_at=_utc(row.retired_at),
            retired_reason=row.retired_reason,
        )

    @property
    def intact(self) -> bool:
        """The stored text still hashes to the stored sha256 (no edit behind the lifecycle's back)."""
        return source_sha256(self.text) == self.sha256


class RuleEvent(BaseModel):
    rule_id: str
    at: datetime
    actor: str
    from_status: RuleStatus | None
    to_status: RuleStatus
    note: str = ""


# ---------------------------------------------------------------------------------- store


class DynamicRuleStore:
    """Dynamic rules and their lifecycle, in the shared database (SQLite or PostgreSQL)."""

    def __init__(self, engine: Engine | str, policy: DeploymentPolicy | None = None) -> None:
        """``policy``: ``DeploymentPolicy.from_settings(settings)`` at the edge; default: approval required."""
        self.engine = engine if isinstance(engine, Engine) else make_engine(engine)
        create_tables(self.engine, _TABLES)
        self._session = session_factory(self.engine)
        self.policy = policy or DeploymentPolicy()

    @staticmethod
    def _now() -> datetime:
        return datetime.now(UTC)

    def _event(
        self,
        session: Any,
        rule_id: str,
        actor: str,
        before: str | None,
        after: RuleStatus,
        note: str = "",
        at: datetime | None = None,
    ) -> None:
        session.add(
            DynamicRuleEventRow(
                rule_id=rule_id, at=at or self._now(), actor=actor, from_status=before, to_status=after.value, note=note
            )
        )

    def add(
        self,
        text: str,
        *,
        author: str,
        author_kind: AuthorKind | str = AuthorKind.LLM,
        name: str | None = None,
        rule_id: str | None = None,
        case_id: str | None = None,
        output_schema: Any = None,
        reliability: float = DEFAULT_RELIABILITY,
        description: str = "",
        checker: Callable[[str], None] | None = None,
    ) -> DynamicRule:
        """Store a new rule as PROPOSED (ACTIVE at once if the deployment requires no approval).

        `checker` (typically `SandboxPool.check`) refuses a rule that does not compile under the policy
        before it is ever stored; it raises `SandboxError`.
        """
        if not text.strip():
            raise DynamicRuleError("the rule text is empty")
        if not author.strip():
            raise DynamicRuleError("a rule needs an author (an LLM model name or a person)")
        try:
            kind = AuthorKind(author_kind)
        except ValueError:
            raise DynamicRuleError(f"author kind must be 'llm' or 'person', not {author_kind!r}") from None
        if not 0.0 < float(reliability) <= 1.0:
            raise DynamicRuleError(f"reliability must be in (0, 1], got {reliability}")
        try:
            build_output_adapter(output_schema)
        except SchemaError as exc:
            raise DynamicRuleError(f"invalid output schema: {exc}") from None
        if checker is not None:
            checker(text)
        sha = source_sha256(text)
        if rule_id is not None and not _ID.match(rule_id):
            raise DynamicRuleError(f"invalid rule id {rule_id!r} (letters, digits, _ . : -; at most 80)")
        now = self._now()
        with self._session.begin() as s:
            same = s.scalars(select(DynamicRuleRow).where(DynamicRuleRow.sha256 == sha)).all()
            for other in same:
                if other.case_id == case_id and other.status != RuleStatus.RETIRED.value:
                    raise DynamicRuleError(f"the same rule text is already stored as {other.id} ({other.status})")
            if rule_id is None:  # default id from the hash; a suffix if that text lived before
                rule_id, n = f"dyn-{sha[:12]}", 1
                while s.get(DynamicRuleRow, rule_id) is not None:
                    n += 1
                    rule_id = f"dyn-{sha[:12]}-{n}"
            elif s.get(DynamicRuleRow, rule_id) is not None:
                raise DynamicRuleError(f"a dynamic rule with id {rule_id} already exists")
            row = DynamicRuleRow(
                id=rule_id,
                name=name or rule_id,
                case_id=case_id,
                text=text,
                sha256=sha,
                author=author,
                author_kind=kind.value,
                created_at=now,
                status=RuleStatus.PROPOSED.value,
                reliability=float(reliability),
                output_schema=output_schema,
                description=description,
            )
            s.add(row)
            s.flush()
            self._event(s, rule_id, author, None, RuleStatus.PROPOSED, "proposed", at=now)
            if not self.policy.require_approval:
                row.status = RuleStatus.ACTIVE.value
                row.activated_at = now
                self._event(
                    s,
                    rule_id,
                    "policy",
                    RuleStatus.PROPOSED.value,
                    RuleStatus.ACTIVE,
                    "deployment policy: no approval required",
                    at=now,
                )
            s.flush()
            return DynamicRule.from_row(row)

    def _load(self, s: Any, rule_id: str, *, lock: bool = False) -> DynamicRuleRow:
        row = s.get(DynamicRuleRow, rule_id, with_for_update=lock)
        if row is None:
            raise DynamicRuleError(f"no dynamic rule with id {rule_id}")
        return row

    def _move(self, s: Any, row: DynamicRuleRow, before: str, **values: Any) -> None:
        """Change a rule's status only if it is still ``before`` (compare-and-set, on top of the row lock
        PostgreSQL takes in ``_load``): of two transitions at once, one wins and the other is refused
        (issue 34: approve and retire together left a retired rule ACTIVE; two approvals both passed)."""
        res = s.execute(
            update(DynamicRuleRow).where(DynamicRuleRow.id == row.id, DynamicRuleRow.status == before).values(**values)
        )
        if res.rowcount != 1:
            raise DynamicRuleError(f"rule {row.id} changed meanwhile (it was {before}): look again and retry")
        s.refresh(row)

    def get(self, rule_id: str) -> DynamicRule:
        with self._session() as s:
            return DynamicRule.from_row(self._load(s, rule_id))

    def approve(self, rule_id: str, *, by: str, activate: bool = True, note: str = "") -> DynamicRule:
        """A person approves a proposed rule (never its own author); by default it becomes active."""
        if not by.strip():
            raise DynamicRuleError("an approval needs the name of the person approving")
        with self._session.begin() as s:
            row = self._load(s, rule_id, lock=True)
            if row.status != RuleStatus.PROPOSED.value:
                raise DynamicRuleError(f"rule {rule_id} is {row.status}: only a proposed rule can be approved")
            if by.strip() == row.author.strip():
                raise DynamicRuleError(f"rule {rule_id} cannot be approved by its own author ({by})")
            now = self._now()
            after = RuleStatus.ACTIVE if activate else RuleStatus.APPROVED
            extra = {"activated_at": now} if activate else {}
            self._move(s, row, RuleStatus.PROPOSED.value, status=after.value, approved_by=by, approved_at=now, **extra)
            self._event(s, rule_id, by, RuleStatus.PROPOSED.value, RuleStatus.APPROVED, note or "approved", at=now)
            if activate:
                self._event(
                    s, rule_id, by, RuleStatus.APPROVED.value, RuleStatus.ACTIVE, "activated on approval", at=now
                )
            s.flush()
            return DynamicRule.from_row(row)

    def activate(self, rule_id: str, *, by: str) -> DynamicRule:
        """Approved → active; proposed → active only where the deployment requires no approval."""
        with self._session.begin() as s:
            row = self._load(s, rule_id, lock=True)
            if row.status == RuleStatus.PROPOSED.value and self.policy.require_approval:
                raise DynamicRuleError(f"rule {rule_id} must be approved by a person before it can be active")
            if row.status not in (RuleStatus.PROPOSED.value, RuleStatus.APPROVED.value):
                raise DynamicRuleError(f"rule {rule_id} is {row.status}: it cannot be activated")
            before, now = row.status, self._now()
            self._move(s, row, before, status=RuleStatus.ACTIVE.value, activated_at=now)
            self._event(s, rule_id, by, before, RuleStatus.ACTIVE, "activated", at=now)
            s.flush()
            return DynamicRule.from_row(row)

    def retire(self, rule_id: str, *, by: str, reason: str = "") -> DynamicRule:
        """Any rule not yet retired can be retired; retirement is final (add a new rule instead)."""
        with self._session.begin() as s:
            row = self._load(s, rule_id, lock=True)
            if row.status == RuleStatus.RETIRED.value:
                raise DynamicRuleError(f"rule {rule_id} is already retired")
            before, now = row.status, self._now()
            self._move(s, row, before, status=RuleStatus.RETIRED.value, retired_at=now, retired_reason=reason or None)
            self._event(s, rule_id, by, before, RuleStatus.RETIRED, reason or "retired", at=now)
            s.flush()
            return DynamicRule.from_row(row)

    def list(self, *, status: RuleStatus | str | None = None, case_id: str | None = None) -> list[DynamicRule]:
        q = select(DynamicRuleRow).order_by(DynamicRuleRow.created_at, DynamicRuleRow.id)
        if status is not None:
            q = q.where(DynamicRuleRow.status == RuleStatus(status).value)
        if case_id is not None:
            q = q.where((DynamicRuleRow.case_id == case_id) | (DynamicRuleRow.case_id.is_(None)))
        with self._session() as s:
            return [DynamicRule.from_row(r) for r in s.scalars(q).all()]

    def active_rules(self, case_id: str | None = None) -> builtins.list[DynamicRule]:
        """The rules that run for a case: active, and scoped to that case or to every case."""
        q = select(DynamicRuleRow).where(DynamicRuleRow.status == RuleStatus.ACTIVE.value)
        if case_id is None:
            q = q.where(DynamicRuleRow.case_id.is_(None))
        else:
            q = q.where((DynamicRuleRow.case_id == case_id) | (DynamicRuleRow.case_id.is_(None)))
        with self._session() as s:
            return [DynamicRule.from_row(r) for r in s.scalars(q.order_by(DynamicRuleRow.id)).all()]

    def history(self, rule_id: str) -> builtins.list[RuleEvent]:
        q = select(DynamicRuleEventRow).where(DynamicRuleEventRow.rule_id == rule_id).order_by(DynamicRuleEventRow.id)
        with self._session() as s:
            return [
                RuleEvent(
                    rule_id=e.rule_id,
                    at=_utc(e.at),
                    actor=e.actor,
                    from_status=RuleStatus(e.from_status) if e.from_status else None,
                    to_status=RuleStatus(e.to_status),
                    note=e.note or "",
                )
                for e in s.scalars(q).all()
            ]


# ---------------------------------------------------------------------------------- evaluation


class DynamicFact(BaseModel):
    """A fact produced by a dynamic rule: an interpretation, discounted by the rule's reliability."""

    name: str
    value: Any
    kind: Literal["dynamic"] = "dynamic"
    rule_id: str
    rule_sha256: str
    reliability: float = Field(description="prior probability that this interpretation is right")
    proof: ProofNode = Field(description="the DYNAMIC node; its premises are named by `premises`, not copied")
    premises: str = Field(default="", description="id of the premise list in the run's provenance")


class DynamicRuleFailure(BaseModel):
    """An active rule that produced nothing this time, and why (the case goes on without it)."""

    rule_id: str
    kind: str
    code: str
    message: str


class DynamicEvaluation(BaseModel):
    facts: list[DynamicFact] = Field(default_factory=new_list)
    failures: list[DynamicRuleFailure] = Field(default_factory=new_list)
    provenance: Provenance = Field(default_factory=Provenance, description="the run's premises, once each")

    def proof(self, fact: DynamicFact) -> ProofNode:
        """The fact's proof with its premises as children (shared with the provenance, not copied)."""
        return self.provenance.resolve(fact.proof, fact.premises)

    def resolved(self) -> list[DynamicFact]:
        """The facts with full proofs, for a verdict (one interpretation per pack fact is used there)."""
        return [f.model_copy(update={"proof": self.proof(f)}) for f in self.facts]

    def values(self) -> dict[str, Any]:
        return {f.name: f.value for f in self.facts}

    def priors(self) -> dict[str, float]:
        """Fact name → reliability prior (the lowest one if several rules give the same fact)."""
        out: dict[str, float] = {}
        for f in self.facts:
            out[f.name] = min(out.get(f.name, 1.0), f.reliability)
        return out


def _premise(key: str, facts: Mapping[str, Any], premises: Mapping[str, ProofNode]) -> ProofNode:
    if key in premises:
        return premises[key]
    if key in facts:
        return ProofNode(
            atom=key,
            kind=NodeKind.FACT,
            value=facts[key],
            grounding=[Grounding(kind=SourceKind.CASE_FILE, json_path=f"$.{key}")],
        )
    return ProofNode(atom=key, kind=NodeKind.MISSING, holds=False, note="read by the rule, absent from the case")


def rule_facts(
    rule: DynamicRule,
    output: Any,
    reads: list[str],
    facts: Mapping[str, Any],
    premises: Mapping[str, ProofNode] | None = None,
    missing: list[str] | None = None,
    provenance: Provenance | None = None,
) -> list[DynamicFact]:
    """Turn one rule's validated output into DYNAMIC facts (an object → one fact per non-null field;
    any other non-null value → one fact named after the rule). Premises = the facts the sandbox saw the
    rule read (`reads`), then the absent ones it asked for (`missing`, MISSING nodes), stored ONCE in
    ``provenance`` (one per run, over the same facts); each output names them by id."""
    premises = premises or {}
    provenance = provenance if provenance is not None else Provenance()
    pairs = list(output.items()) if isinstance(output, dict) else [(rule.name, output)]
    keys = list(dict.fromkeys([*reads, *(missing or [])]))
    set_id = provenance.add([(k, _premise(k, facts, premises)) for k in keys])
    grounding = [
        Grounding(
            kind=SourceKind.DYNAMIC_RULE,
            note=f"rule {rule.id} sha256:{rule.sha256[:12]} by {rule.author} ({rule.author_kind.value})",
        )
    ]
    note = f"interpretation, not hard law; reliability prior {rule.reliability:.2f}"
    out: list[DynamicFact] = []
    for name, value in pairs:
        if value is None:  # "no interpretation": the fact stays unknown
            continue
        node = ProofNode(
            atom=name,
            label=f"{name} (interprétation: règle dynamique {rule.name})",
            kind=NodeKind.DYNAMIC,
            value=value,
            rule_id=rule.id,
            grounding=grounding,
            note=note,
        )
        out.append(
            DynamicFact(
                name=name,
                value=value,
                rule_id=rule.id,
                rule_sha256=rule.sha256,
                reliability=rule.reliability,
                proof=node,
                premises=set_id,
            )
        )
    return out


def run_active_rules(
    store: DynamicRuleStore,
    facts: Mapping[str, Any],
    *,
    case_id: str | None = None,
    pool: SandboxPool | None = None,
    premises: Mapping[str, ProofNode] | None = None,
    admit: Callable[[], AbstractContextManager[object]] | None = None,
    scope: str = "",
) -> DynamicEvaluation:
    """Run every active rule of the case in the sandbox; a failing rule is reported, never fatal.
    ``admit``: entered around each rule's run (a tenant's quota reserving that run's cost before it starts;
    its refusal propagates). ``scope``: the tenant, whose compile cache alone the rules may use."""
    pool = pool or default_pool()
    result = DynamicEvaluation()
    for rule in store.active_rules(case_id):
        if not rule.intact:
            result.failures.append(
                DynamicRuleFailure(
                    rule_id=rule.id,
                    kind="refused",
                    code="integrity",
                    message="stored text does not match its sha256; not run",
                )
            )
            continue
        try:
            with admit() if admit is not None else nullcontext():  # provenance built inside: charged too
                run = pool.run(
                    rule.text, dict(facts), output_schema=rule.output_schema, filename=f"dynamic:{rule.id}", scope=scope
                )
                made = rule_facts(rule, run.output, run.reads, facts, premises, run.missing, result.provenance)
        except SandboxError as exc:
            result.failures.append(
                DynamicRuleFailure(rule_id=rule.id, kind=exc.kind.value, code=exc.code, message=exc.describe())
            )
            continue
        except SchemaError as exc:
            result.failures.append(
                DynamicRuleFailure(rule_id=rule.id, kind="output", code="schema_declared", message=str(exc))
            )
            continue
        result.facts.extend(made)
    return result
