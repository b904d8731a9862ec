"""What every CLI module shares: the output format option and the one way to fail (stderr, exit 2)."""
from __future__ import annotations

from enum import Enum
from typing import NoReturn

import typer


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def fail(message: str, prefix: str = "error: ") -> NoReturn:
    """Bad input: say what and where on stderr, exit with code 2 (nothing is written)."""
    typer.echo(f"{prefix}{message}", err=True)
    raise typer.Exit(code=2)
