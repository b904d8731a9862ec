"""`lexlogic serve` (the HTTP API with uvicorn) and `lexlogic keys create|revoke|list` (tenant API keys)."""

from __future__ import annotations

import typer

from lexlogic.api.cli_common import fail
from lexlogic.settings import SERVER_SETTINGS, Settings

keys_app = typer.Typer(help="API keys (hashed at rest) mapped to tenants.", no_args_is_help=True)
DB_HELP = "database URL (default: LEXLOGIC_DATABASE_URL, else ./.lexlogic/lexlogic.db)"


def _store(db: str | None):  # type: ignore[no-untyped-def]
    from lexlogic.engine.store.tenants import TenantStore

    try:
        from lexlogic.api.context import current

        return TenantStore(db or current().settings.database)
    except Exception as exc:
        fail(f"cannot open database {db or '(default)'}: {exc}")


@keys_app.command("create")
def keys_create(
    tenant: str = typer.Option(..., "--tenant", "-t", help="tenant name (created if new)"),
    label: str = typer.Option("", help="a note kept with the key"),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Create a key; the plaintext is printed once (only its SHA-256 is stored)."""
    if not tenant.strip():
        fail("--tenant: must not be empty")
    store = _store(db)
    key_id, key = store.create_key(tenant.strip(), label)
    store.close()
    typer.echo(key)
    typer.echo(f"key id {key_id} for tenant {tenant!r} (shown once: store it now)", err=True)


@keys_app.command("revoke")
def keys_revoke(
    key_id: str = typer.Argument(..., help="the key id (or the whole key)"),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Revoke a key: requests with it answer 401 from now on."""
    store = _store(db)
    ok = store.revoke(key_id)
    store.close()
    if not ok:
        fail(f"no active key {key_id!r}")
    typer.echo(f"revoked {key_id}")


@keys_app.command("list")
def keys_list(db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Key ids, tenants and revocation dates (never secrets)."""
    store = _store(db)
    for k in store.keys():
        typer.echo(
            f"{k['key_id']}  {k['tenant']}  {'revoked ' + str(k['revoked_at']) if k['revoked_at'] else 'active'}"
            f"  {k['label'] or ''}".rstrip()
        )
    store.close()


def serve(
    host: str = typer.Option("127.0.0.1", help="bind address"),
    port: int = typer.Option(8000, min=0, max=65535),
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    workers: int = typer.Option(1, min=1, help="uvicorn worker processes"),
    log_level: str = typer.Option("info"),
    local: bool | None = typer.Option(
        None,
        "--local/--no-local",
        help="single-user mode: a key made at start and a one-click login URL (default: on for a loopback host)",
    ),
) -> None:
    """Serve the HTTP API (/v1, OpenAPI at /docs) and the glass-box page at /."""
    import uvicorn

    from lexlogic.api.app import create_app
    from lexlogic.api.context import current
    from lexlogic.api.deps import ApiSettings
    from lexlogic.api.local_login import LOOPBACK

    core = current().settings
    if db:
        core = core.model_copy(update={"database_url": db})
    local = (host in LOOPBACK and workers == 1) if local is None else local
    if local and host not in LOOPBACK:
        fail(f"--local: only on a loopback address ({', '.join(LOOPBACK)}), not {host}")
    if local and workers > 1:
        fail("--local: one worker only (the login link lives in the serving process)")
    if workers > 1:  # each worker process builds its app from the environment: --db cannot reach it
        _serve_workers(workers, host, port, db, log_level)
        return
    try:
        app = create_app(ApiSettings(core=core))
    except Exception as exc:
        fail(f"cannot start: {exc}")
    if local:
        _, key = app.state.services.tenants.create_key("local", label="lexlogic serve (local mode)")
        token = app.state.login_tokens.issue(key)
        shown = f"[{host}]" if ":" in host else host
        typer.echo(f"lexlogic : ouvrez http://{shown}:{port}/?login={token}", err=True)
        typer.echo("(lien à usage unique, valable 5 minutes ; la clé reste dans ce navigateur)", err=True)
    from lexlogic.api.slow_clients import TimedH11Protocol

    uvicorn.run(app, host=host, port=port, log_level=log_level, http=TimedH11Protocol)  # read timeouts (issue 34)


def _serve_workers(workers: int, host: str, port: int, db: str | None, log_level: str) -> None:
    """``workers`` processes, each with its own socket on the port (``api.serve_workers``: the kernel balances
    new connections over them; uvicorn's shared socket left one process idle)."""
    from lexlogic.api.serve_workers import Workers, port_free

    if db:
        fail("--db with --workers > 1: set LEXLOGIC_DATABASE_URL instead (each worker reads its environment)")
    if port == 0:
        fail("--port 0 with --workers > 1: give a port (each worker binds the same one)")
    if not port_free(host, port):
        fail(f"--port {port}: {host}:{port} is already in use")
    raise typer.Exit(Workers(workers, host, port, {"log_level": log_level}).run())


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""
    app.add_typer(keys_app, name="keys")
    app.command("serve", epilog="Settings:\n\n" + Settings.describe(SERVER_SETTINGS))(serve)
