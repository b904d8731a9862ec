"""`lexlogic serve` (the HTTP API with uvicorn) and `lexlogic keys create|revoke|list` (tenant API keys)."""

from __future__ import annotations

import typer

from lexlogic.api.cli_common import fail

keys_app = typer.Typer(help="API keys (hashed at rest) mapped to tenants.", no_args_is_help=True)
DB_HELP = "database URL (default: LEXLOGIC_DATABASE_URL, else ./.lexlogic/lexlogic.db)"


def _store(db: str | None):  # type: ignore[no-untyped-def]
    from lexlogic.engine.store.tenants import TenantStore

    try:
        return TenantStore(db)
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
) -> None:
    """Serve the HTTP API (/v1, OpenAPI at /docs) and the glass-box page at /."""
    import os

    import uvicorn

    if db:
        os.environ["LEXLOGIC_DATABASE_URL"] = db
    if workers > 1:
        uvicorn.run(
            "lexlogic.api.app:create_app", factory=True, host=host, port=port, workers=workers, log_level=log_level
        )
    else:
        from lexlogic.api.app import create_app

        try:
            app = create_app()
        except Exception as exc:
            fail(f"cannot start: {exc}")
        uvicorn.run(app, host=host, port=port, log_level=log_level)


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""
    app.add_typer(keys_app, name="keys")
    app.command("serve")(serve)
