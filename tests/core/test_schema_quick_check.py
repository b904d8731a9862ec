"""Issue 33: a store opening a database already at the head does not start Alembic (~0.5 s of a cold command).

``schema.ensure`` first compares the revision recorded in ``alembic_version`` (one SELECT) with the head read
from the migration files' ``revision`` / ``down_revision`` lines; only when they differ (or either cannot be
read plainly) does it ask Alembic, which upgrades as before.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sqlalchemy import text

from lexlogic.engine.store import schema
from lexlogic.engine.store.db import make_engine

PROBE = """
import sys
from lexlogic.engine.store import schema
from lexlogic.engine.store.db import make_engine
engine = make_engine(sys.argv[1])
schema.ensure(engine)
print(schema.recorded(engine), "alembic" in sys.modules)
"""


def test_the_head_read_from_the_files_is_alembics() -> None:
    assert schema.head_of_files() == schema.head()


def test_a_database_at_the_head_is_opened_without_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'home.db'}"

    def open_in_a_new_process() -> list[str]:
        done = subprocess.run([sys.executable, "-c", PROBE, url], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split()

    head = schema.head()
    assert open_in_a_new_process() == [head, "True"]  # an empty database: Alembic upgrades it
    assert open_in_a_new_process() == [head, "False"]  # at the head: one SELECT, no Alembic

    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM alembic_version"))  # no record: Alembic is asked again
        assert schema.recorded(engine) is None
    finally:
        engine.dispose()
    assert open_in_a_new_process() == [head, "True"]
