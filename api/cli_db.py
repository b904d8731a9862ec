"""`lexlogic db upgrade | current`: the schema's migration history (engine.store.schema) as a deployment step.

Stores also upgrade a database when they first open it in a process; this command lets a deployment do it
once, before starting API replicas and workers, and shows where a database stands."""

from __future__ import annotations

import typer

from lexlogic.api.cli_common import fail

db_app = typer.Typer(help="The database schema: its migration history (Alembic).", no_args_is_help=True)


def _engine(url: str | None):  # type: ignore[no-untyped-def]
    from lexlogic.engine.store.db import make_engine
    from lexlogic.settings import Settings

    return make_engine(url or Settings().database)


@db_app.command("upgrade")
def upgrade(
    url: str | None = typer.Option(None, "--db", help="database URL (default: LEXLOGIC_DATABASE_URL, else SQLite)"),
    revision: str = typer.Option("head", "--to", help="target revision"),
) -> None:
    """Bring the database to the newest schema (or --to REVISION), keeping its data."""
    from sqlalchemy.exc import SQLAlchemyError

    from lexlogic.engine.store import schema

    engine = _engine(url)
    try:
        before = schema.current(engine)
        after = schema.upgrade(engine, revision)
    except SQLAlchemyError as exc:
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        where = engine.url.render_as_string(hide_password=True)
        fail(f"database {where}: {type(exc).__name__}: {first}"[:400], exit_code=1)
    finally:
        engine.dispose()
    typer.echo(f"schema: {before or 'none'} → {after}" if before != after else f"schema: {after} (already up to date)")


@db_app.command("current")
def current(
    url: str | None = typer.Option(None, "--db", help="database URL (default: LEXLOGIC_DATABASE_URL, else SQLite)"),
) -> None:
    """The database's schema revision and the newest one."""
    from lexlogic.engine.store import schema

    engine = _engine(url)
    try:
        typer.echo(f"database: {schema.current(engine) or 'none'}; newest: {schema.head()}")
    finally:
        engine.dispose()


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
