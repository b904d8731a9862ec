"""Shared fixtures: the database URLs the suite runs against (SQLite always, PostgreSQL when up), and the real
app on such a database (``api``, ``sqlite_api``: tests/support/api_app.py)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.support.api_app import Api

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


@pytest.fixture
def api(db_url: str, tmp_path: Path) -> Iterator[Api]:
    """The app with two tenants, parametrised over SQLite and PostgreSQL (the ``db_url`` fixture)."""
    from tests.support.api_app import make_api

    yield from make_api(db_url, tmp_path)


@pytest.fixture
def sqlite_api(tmp_path: Path) -> Iterator[Api]:
    """The app with two tenants on an SQLite file (tests that need no PostgreSQL run)."""
    from tests.support.api_app import make_api

    yield from make_api(f"sqlite:///{tmp_path / 'api.db'}", tmp_path)
