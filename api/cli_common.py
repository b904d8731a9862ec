"""What every CLI module shares: the output format option and the one way to fail (stderr, exit 2)."""

from __future__ import annotations

from enum import Enum
from typing import Any, NoReturn

import typer

from lexlogic.logic.facts import read_answer


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def fail(message: str, prefix: str = "error: ") -> NoReturn:
    """Bad input: say what and where on stderr, exit with code 2 (nothing is written)."""
    typer.echo(f"{prefix}{message}", err=True)
    raise typer.Exit(code=2)


def parse_assignments(items: list[str], option: str) -> dict[str, Any]:
    """Repeated `NAME=VALUE` options; VALUE read as a person writes it (oui/non, JSON, text)."""
    result: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            fail(f"{option} {item!r}: expected NAME=VALUE")
        name, raw = item.split("=", 1)
        result[name.strip()] = read_answer(raw)
    return result
