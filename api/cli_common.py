"""What every CLI module shares: the output format option and the one way to fail.

One failure path for every command: ``fail()`` prints ``error: <message>`` on stderr and exits with the
error's ``exit_code`` (2 for bad input, the default of every ``LexlogicError``). Commands may call it with a
message that adds context; a ``LexlogicError`` they let escape reaches the same ``fail()`` through
``FailingGroup``, the command group of the ``lexlogic`` app, so no lexlogic error ends in a traceback.
"""

from __future__ import annotations

import gc
from enum import Enum
from typing import Any, NoReturn

import typer
from typer._click.core import Context  # typer vendors click: the Context its groups receive
from typer.core import TyperGroup

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import read_answer


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def fail(problem: str | LexlogicError, *, exit_code: int | None = None) -> NoReturn:
    """Say what went wrong (and where) on stderr as ``error: <message>``, then exit; nothing else is written.

    The exit code is ``exit_code`` if given, else the error's own (``LexlogicError.exit_code``: 2).
    """
    code = exit_code if exit_code is not None else getattr(problem, "exit_code", LexlogicError.exit_code)
    typer.echo(f"error: {problem}", err=True)
    raise typer.Exit(code=code)


class FailingGroup(TyperGroup):
    """The app's command group: any ``LexlogicError`` a command lets escape goes through ``fail()``."""

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except LexlogicError as exc:
            fail(exc)
        except Exception as exc:  # a full disk is the machine's state, not a bug: one line, exit 1
            from lexlogic.engine.store.db import disk_full, is_disk_full

            if is_disk_full(exc):
                fail(disk_full(exc))
            raise


class LazyConsole:
    """A rich ``Console`` made on its first use. Why: importing `rich` costs ~30–50 ms of every cold command
    (issue 33); a module-level console made at import made every command pay it, even one that prints
    nothing through rich (`analyze FACTS.json` prints its result with ``print``)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:  # only for what the instance lacks: the console's own attributes
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)


def parse_assignments(items: list[str], option: str) -> dict[str, Any]:
    """Repeated `NAME=VALUE` options; VALUE read as a person writes it (oui/non, JSON, text)."""
    result: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            fail(f"{option} {item!r}: expected NAME=VALUE")
        name, raw = item.split("=", 1)
        result[name.strip()] = read_answer(raw)
    return result


def imports_done() -> None:
    """After a command's imports: the objects made so far (modules, classes, pydantic schemas — alive until
    the process ends) leave the collector's generations, and collection resumes. A collection then no longer
    walks them (~8 % of a cold `analyze FACTS.json`'s CPU, issue 33). `api/cli.py` disables collection
    while it imports; a command that imports much more calls this again after its own imports."""
    gc.freeze()
    gc.enable()
