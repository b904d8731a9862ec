"""One base error (issue 14): every lexlogic exception is a LexlogicError, mapped once to the CLI's
`error: <message>` + exit code and to the API's problem+json status."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.logic.errors import LexlogicError

REPO = Path(__file__).resolve().parents[2]
LAYERS = ["api", "engine", "bridges", "sandbox", "logic"]
# The one deliberate exception: raised inside rule code, it must escape a rule's own `except Exception`.
NOT_LEXLOGIC = {"SandboxViolation"}


def _exception_classes() -> dict[str, tuple[str, list[str]]]:
    """Every class of the layers whose bases lead (by name) to a builtin exception: name -> (where, bases)."""
    builtin = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    classes: dict[str, tuple[str, list[str]]] = {}
    for layer in LAYERS:
        for path in sorted((REPO / layer).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    where = f"{path.relative_to(REPO)}:{node.lineno}"
                    classes[f"{where}:{node.name}"] = (node.name, [ast.unparse(b).split(".")[-1] for b in node.bases])
    by_name: dict[str, list[str]] = {}
    for name, bases in classes.values():
        by_name.setdefault(name, []).extend(bases)

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name in seen:
            return False
        if name in builtin:
            return True
        return any(is_exception(b, seen | {name}) for b in by_name.get(name, []))

    def has_base(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name == "LexlogicError":
            return True
        if name in seen:
            return False
        return any(has_base(b, seen | {name}) for b in by_name.get(name, []))

    return {
        key: (name, bases)
        for key, (name, bases) in classes.items()
        if any(is_exception(b) for b in bases) and not has_base(name) and name not in NOT_LEXLOGIC
    }


def test_every_exception_class_derives_from_lexlogic_error() -> None:
    orphans = _exception_classes()
    assert not orphans, f"exception classes without LexlogicError: {sorted(orphans)}"


def test_the_cli_fails_one_way(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = tmp_path / "missing.fologic"
    res = runner.invoke(app, ["fol", "check", str(missing)])
    assert res.exit_code == 2
    assert res.stderr == f"error: {missing}: no such file\n"
    res = runner.invoke(app, ["check", str(tmp_path)])
    assert res.exit_code == 2 and res.stderr.startswith("error: ")


def test_an_escaping_lexlogic_error_becomes_error_and_its_exit_code() -> None:
    import typer

    from lexlogic.api.cli_common import FailingGroup
    from lexlogic.logic.errors import UnavailableError

    probe = typer.Typer(cls=FailingGroup)

    class Busy(UnavailableError):
        exit_code = 3

    @probe.command()
    def bad() -> None:
        raise LexlogicError("bad input at $.facts.x")

    @probe.command()
    def busy() -> None:
        raise Busy("the worker pool is full")

    runner = CliRunner()
    res = runner.invoke(probe, ["bad"])
    assert (res.exit_code, res.stderr) == (2, "error: bad input at $.facts.x\n")
    res = runner.invoke(probe, ["busy"])
    assert (res.exit_code, res.stderr) == (3, "error: the worker pool is full\n")
