"""The database schema comes from ONE migration history (Alembic, ``engine/store/migrations``), never from
``create_all``: a deployment upgrades in place, keeping its data (issue 34, point 8).

Who upgrades: ``lexlogic db upgrade`` (a deployment step), and every store when it opens a database in a
process (the API, a worker, the CLI) — once per database and process, so a fresh SQLite file or an empty
PostgreSQL database works with no set-up step. Concurrent upgraders (two workers starting together) are
serialised on PostgreSQL by an advisory lock held for the upgrade's transaction; the loser finds the head
recorded and does nothing.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, inspect, text

MIGRATIONS = Path(__file__).with_name("migrations")
_LOCK_KEY = 0x1E71_0C34  # pg_advisory_xact_lock key of lexlogic's schema upgrades
_done: set[str] = set()
_guard = threading.Lock()


def _config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision of the history."""
    from alembic.script import ScriptDirectory

    return str(ScriptDirectory.from_config(_config()).get_current_head())


def current(engine: Engine) -> str | None:
    """The revision the database is at (None: never migrated — empty, or made by the previous release)."""
    from alembic.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Bring the database to ``revision`` (default: the head); returns the revision it is at afterwards."""
    from alembic import command

    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
        command.upgrade(_config(conn), revision)
    return current(engine)


def ensure(engine: Engine) -> None:
    """Upgrade to the head once per database and process (what every store does when it opens one)."""
    key = engine.url.render_as_string(hide_password=False)
    if engine.url.get_backend_name() == "sqlite" and engine.url.database in (None, "", ":memory:"):
        key += f"#{id(engine)}"  # an in-memory database is its engine's own: never skip it for another
    if key in _done:
        return
    with _guard:
        if key in _done:
            return
        quick = head_of_files()
        if quick is None or recorded(engine) != quick:  # else at the head: Alembic not even imported
            if current(engine) != head():
                upgrade(engine)
        _done.add(key)


_ASSIGNED = re.compile(r"""^(revision|down_revision)\s*(?::[^=]*)?=\s*(?:"([\w.-]+)"|'([\w.-]+)'|(None))\s*$""", re.M)


def head_of_files() -> str | None:
    """The history's one head read from its files' ``revision`` / ``down_revision`` lines, without importing
    Alembic (~0.5 s of a cold command, issue 33); None when a file says anything else (a merge, a tuple, a
    computed value) or there is not exactly one head: Alembic then decides."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted((MIGRATIONS / "versions").glob("[!_]*.py")):  # not __init__.py
        found = {m.group(1): m.group(2) or m.group(3) for m in _ASSIGNED.finditer(path.read_text(encoding="utf-8"))}
        if "revision" not in found or "down_revision" not in found or found["revision"] is None:
            return None
        revisions.add(found["revision"])
        if found["down_revision"] is not None:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents <= revisions else None


def recorded(engine: Engine) -> str | None:
    """The one revision in ``alembic_version`` (one SELECT, no Alembic); None when the table is missing, empty
    or holds several."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return str(rows[0]) if len(rows) == 1 else None
