"""Alembic's entry point for lexlogic's one migration history (every store's tables).

Run by ``engine.store.schema.upgrade`` (the stores at start, ``lexlogic db upgrade``) with a connection in
``config.attributes["connection"]``; run by the plain ``alembic`` command (``alembic.ini`` at the repository
root), it connects to the configured database (``LEXLOGIC_DATABASE_URL``, else the SQLite file)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

config = context.config


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


given = config.attributes.get("connection")
if given is not None:
    _run(given)
else:
    from lexlogic.engine.store.db import make_engine
    from lexlogic.settings import Settings

    # the plain `alembic` command is an edge of its own: its settings come from its environment
    engine = make_engine(config.get_main_option("sqlalchemy.url") or Settings().database)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()
