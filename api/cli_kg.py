"""CLI commands for this capability (registered on the main Typer app)."""
from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""
