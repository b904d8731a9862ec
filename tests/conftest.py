"""Shared fixtures: the database URLs the suite runs against (SQLite always, PostgreSQL when up)."""

from __future__ import annotations

import os
import uuid

import pytest

PG_URL = os.environ.get("LEXLOGIC_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_URL.replace("postgresql+psycopg", "postgresql"), connect_timeout=2):
            return True
    except Exception:
        return False


PG_UP = _pg_available()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:  # type: ignore[no-untyped-def]
    """A fresh, empty database: an SQLite file, or a fresh schema on the local PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'test.db'}"
    if not PG_UP:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {PG_URL} (CI requires it)")
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}")
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    raw = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    request.addfinalizer(lambda: _drop_schema(raw, schema))
    return f"{PG_URL}?options=-csearch_path%3D{schema}"


def _drop_schema(raw: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
