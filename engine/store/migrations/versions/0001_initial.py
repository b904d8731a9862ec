"""The schema of every store, as the release before migrations created it at start (20 tables).

Revision ID: 0001
Revises:
Create Date: 2026-11-28

A database made by that release (tables created at start, no ``alembic_version``) keeps its tables and
data: a table that exists already is left as it is, and the revision is recorded.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy import Text
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


# JSON in SQLite, JSONB in PostgreSQL: the one column type every document field of the schema uses
JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=Text()), "postgresql")


def _table(name: str, *elements: Any, indexes: tuple[tuple[str, list[str]], ...] | list[Any] = ()) -> None:
    """Create a table and its indexes, unless the previous release already did."""
    if sa.inspect(op.get_bind()).has_table(name):
        return
    op.create_table(name, *elements)
    for index, columns in indexes:
        op.create_index(index, name, columns, unique=False)


def upgrade() -> None:
    _case_runs()
    _batches()
    _api_tenants()
    _api_cases()
    _api_rules()
    _kg_journal()
    _kg_append_only()
    _kg_layers()
    _dynamic_rules()


def _case_runs() -> None:
    """Case runs: heads, snapshots, leases, documents."""
    _table(
        "case_documents",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("document", JSON_DOCUMENT, nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    _table(
        "case_run_leases",
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("claimed_at", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("job", JSON_DOCUMENT, nullable=False),
        sa.PrimaryKeyConstraint("case_id"),
    )
    _table(
        "case_runs",
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("case_id"),
    )
    _table(
        "case_states",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("state", JSON_DOCUMENT, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("case_id", "seq", name="uq_case_state_seq"),
        indexes=[("ix_case_states_case_id", ["case_id"])],
    )


def _batches() -> None:
    """Batches and their items."""
    _table(
        "batch_items",
        sa.Column("batch_id", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=500), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result", JSON_DOCUMENT, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("repeats", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("batch_id", "key"),
    )
    _table(
        "batches",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("root", sa.Text(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def _api_tenants() -> None:
    """The API's tenants and keys."""
    _table(
        "api_tenants",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    _table(
        "api_keys",
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=32), nullable=False),
        sa.Column("secret_sha256", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["api_tenants.id"],
        ),
        sa.PrimaryKeyConstraint("key_id"),
        indexes=[("ix_api_keys_tenant_id", ["tenant_id"])],
    )
    _table(
        "api_key_scopes",
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_keys.key_id"],
        ),
        sa.PrimaryKeyConstraint("key_id", "scope"),
    )


def _api_cases() -> None:
    """The API's cases and documents."""
    _table(
        "api_cases",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("pack", sa.String(length=100), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["api_tenants.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        indexes=[("ix_api_cases_tenant_id", ["tenant_id"])],
    )
    _table(
        "api_documents",
        sa.Column("pk", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(length=32), nullable=False),
        sa.Column("case_id", sa.String(length=32), nullable=False),
        sa.Column("doc_id", sa.String(length=200), nullable=False),
        sa.Column("filename", sa.String(length=300), nullable=False),
        sa.Column("media_type", sa.String(length=100), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("pages", JSON_DOCUMENT, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["api_cases.id"],
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["api_tenants.id"],
        ),
        sa.PrimaryKeyConstraint("pk"),
        sa.UniqueConstraint("case_id", "doc_id", name="uq_api_document"),
        indexes=[("ix_api_documents_case_id", ["case_id"]), ("ix_api_documents_tenant_id", ["tenant_id"])],
    )


def _api_rules() -> None:
    """Who owns, proposed and approved each dynamic rule through the API."""
    _table(
        "api_rule_principals",
        sa.Column("rule_id", sa.String(length=80), nullable=False),
        sa.Column("proposed_by_key", sa.String(length=32), nullable=True),
        sa.Column("approved_by_key", sa.String(length=32), nullable=True),
        sa.Column("approved_as_admin", sa.Boolean(), nullable=True),
        sa.PrimaryKeyConstraint("rule_id"),
    )
    _table(
        "api_rule_owners",
        sa.Column("rule_id", sa.String(length=80), nullable=False),
        sa.Column("tenant_id", sa.String(length=32), nullable=False),
        sa.Column("case_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["api_cases.id"],
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["api_tenants.id"],
        ),
        sa.PrimaryKeyConstraint("rule_id"),
        indexes=[("ix_api_rule_owners_tenant_id", ["tenant_id"])],
    )


def _kg_journal() -> None:
    """The evidence graph's journal."""
    _table(
        "kg_abstention",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        indexes=[("ix_kg_abstention_case_id", ["case_id"])],
    )
    _table(
        "kg_promotion_log",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("run_id", sa.String(length=32), nullable=False),
        sa.Column("relation_id", sa.Text(), nullable=False),
        sa.Column("promoted", sa.Boolean(), nullable=False),
        sa.Column("grade", sa.String(length=16), nullable=True),
        sa.Column("tier", sa.String(length=16), nullable=True),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        indexes=[("ix_kg_promotion_log_case_id", ["case_id"]), ("ix_kg_promotion_log_run_id", ["run_id"])],
    )
    _table(
        "kg_raw_assertion",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("relation", sa.String(length=32), nullable=False),
        sa.Column("object", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("basis", sa.String(length=16), nullable=True),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("id"),
        indexes=[("ix_kg_raw_assertion_case_id", ["case_id"])],
    )


_KG_JOURNAL = ("kg_raw_assertion", "kg_abstention", "kg_promotion_log")


def _kg_append_only() -> None:
    """The journal's tables refuse UPDATE, DELETE (and TRUNCATE) in the database itself, whoever connects.

    A migration is a frozen record, so the SQL is written here rather than imported from the models (which attach
    the same triggers to ``create_all`` for a database made by the previous release)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION kg_append_only() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'table % is append-only (no update, delete or truncate)', TG_TABLE_NAME; END $$ "
            "LANGUAGE plpgsql"
        )
        for name in _KG_JOURNAL:  # a database of the previous release already has them: replaced, not doubled
            op.execute(f"DROP TRIGGER IF EXISTS {name}_append_only ON {name}")
            op.execute(f"DROP TRIGGER IF EXISTS {name}_no_truncate ON {name}")
            op.execute(
                f"CREATE TRIGGER {name}_append_only BEFORE UPDATE OR DELETE ON {name} "
                "FOR EACH ROW EXECUTE FUNCTION kg_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {name}_no_truncate BEFORE TRUNCATE ON {name} "
                "FOR EACH STATEMENT EXECUTE FUNCTION kg_append_only()"
            )
    elif op.get_bind().dialect.name == "sqlite":
        for name in _KG_JOURNAL:
            for verb in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER IF NOT EXISTS {name}_no_{verb.lower()} BEFORE {verb} ON {name} "
                    f"BEGIN SELECT RAISE(ABORT, '{name} is append-only (no {verb.lower()})'); END"
                )


def _kg_layers() -> None:
    """The evidence graph's derived layers."""
    _table(
        "kg_canonical_relation",
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("relation_id", sa.Text(), nullable=False),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.PrimaryKeyConstraint("case_id", "relation_id"),
    )
    _table(
        "kg_semantic_relation",
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("relation", sa.String(length=32), nullable=False),
        sa.Column("object", sa.Text(), nullable=False),
        sa.Column("grade", sa.String(length=16), nullable=False),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("run_id", sa.String(length=32), nullable=False),
        sa.Column("payload", JSON_DOCUMENT, nullable=False),
        sa.PrimaryKeyConstraint("case_id", "id"),
    )


def _dynamic_rules() -> None:
    """Dynamic rules."""
    _table(
        "dynamic_rules",
        sa.Column("id", sa.String(length=80), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("author", sa.String(length=200), nullable=False),
        sa.Column("author_kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reliability", sa.Float(), nullable=False),
        sa.Column("output_schema", JSON_DOCUMENT, nullable=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("approved_by", sa.String(length=200), nullable=True),
        sa.Column("approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("activated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        indexes=[
            ("ix_dynamic_rules_case_id", ["case_id"]),
            ("ix_dynamic_rules_sha256", ["sha256"]),
            ("ix_dynamic_rules_status", ["status"]),
        ],
    )
    _table(
        "dynamic_rule_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("rule_id", sa.String(length=80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("from_status", sa.String(length=16), nullable=True),
        sa.Column("to_status", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["rule_id"],
            ["dynamic_rules.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        indexes=[("ix_dynamic_rule_events_rule_id", ["rule_id"])],
    )


def downgrade() -> None:
    for table in [
        "api_rule_owners",
        "api_key_scopes",
        "api_documents",
        "dynamic_rule_events",
        "api_keys",
        "api_cases",
        "kg_semantic_relation",
        "kg_raw_assertion",
        "kg_promotion_log",
        "kg_canonical_relation",
        "kg_abstention",
        "dynamic_rules",
        "case_states",
        "case_runs",
        "case_run_leases",
        "case_documents",
        "batches",
        "batch_items",
        "api_tenants",
        "api_rule_principals",
    ]:
        op.drop_table(table)
