"""Issue 34, point 8: the schema comes from one migration history, on an empty database and on one the
previous release made (tables created at start, no migration record), with the data kept.

The oracle for "the migrations make the schema the code expects" is Alembic's own comparison of a migrated
database with the models' metadata (no code shared with the hand-kept migration file)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from lexlogic.engine.extensions import dynamic_rules  # noqa: F401 - registers its tables
from lexlogic.engine.jobs import batch_store  # noqa: F401
from lexlogic.engine.kg import store as kg_store  # noqa: F401
from lexlogic.engine.store import api_cases, schema, tenants  # noqa: F401
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.store.db import Base, make_engine
from tests.conftest import PG_UP, PG_URL

ROOT = Path(__file__).resolve().parents[2]
LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, EMPTY database: an SQLite file, or a database of its own on the shared PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    if not PG_UP:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {PG_URL} (CI requires it)")
        pytest.skip("PostgreSQL not reachable")
    import psycopg

    name = f"lexlogic_mig_{uuid.uuid4().hex[:10]}"
    admin = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield PG_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _drift(engine: Engine) -> list[object]:
    """What differs between the database and the models (tables, columns, types, indexes)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    return [
        d for d in diffs if not (isinstance(d, tuple) and d[0] == "remove_table" and d[1].name == "alembic_version")
    ]


def test_upgrade_of_an_empty_database_gives_the_models_schema(fresh_db: str) -> None:
    engine = make_engine(fresh_db)
    try:
        assert schema.current(engine) is None and inspect(engine).get_table_names() == []
        assert schema.upgrade(engine) == schema.head()
        assert set(inspect(engine).get_table_names()) == set(Base.metadata.tables) | {"alembic_version"}
        assert _drift(engine) == []
        assert schema.upgrade(engine) == schema.head()  # a second upgrade changes nothing
    finally:
        engine.dispose()


def test_database_of_the_previous_release_is_upgraded_with_its_data(fresh_db: str) -> None:
    old = create_engine(fresh_db)
    Base.metadata.create_all(old)  # what the previous release did at start: tables, no migration record
    with old.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO case_runs (case_id, source, head_seq, phase, status, created_at, updated_at) "
                "VALUES ('kept', 'x', 0, 'INIT', 'running', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
    old.dispose()
    res = subprocess.run([LEXLOGIC, "db", "upgrade", "--db", fresh_db], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"schema: none → {schema.head()}"
    engine = make_engine(fresh_db)
    try:
        assert schema.current(engine) == schema.head()
        with engine.connect() as conn:
            assert conn.execute(text("SELECT case_id FROM case_runs")).scalars().all() == ["kept"]
        assert _drift(engine) == []
    finally:
        engine.dispose()


def test_a_store_opening_a_new_database_migrates_it(fresh_db: str) -> None:
    """Stores no longer create tables themselves: opening one upgrades through the history (recorded)."""
    store = CaseStore(fresh_db)
    try:
        assert schema.current(store.engine) == schema.head()
        store.save("c", {"a": 1}, phase="INIT", status="running", state_hash="h")
        assert store.latest("c") == (1, {"a": 1})
    finally:
        store.close()


def test_plain_alembic_command_runs_the_same_history(tmp_path: Path) -> None:
    db = tmp_path / "alembic.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXLOGIC_")}
    env["LEXLOGIC_DATABASE_URL"] = f"sqlite:///{db}"
    alembic = str(Path(sys.executable).parent / "alembic")
    res = subprocess.run([alembic, "upgrade", "head"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    engine = make_engine(f"sqlite:///{db}")
    try:
        assert schema.current(engine) == schema.head() and _drift(engine) == []
    finally:
        engine.dispose()


def test_cli_says_what_failed_in_one_line(tmp_path: Path) -> None:
    res = subprocess.run(
        [LEXLOGIC, "db", "upgrade", "--db", "postgresql+psycopg://postgres@127.0.0.1:1/none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith("error: database postgresql+psycopg://postgres@127.0.0.1:1/none: OperationalError")
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
