"""The `lexlogic` script's command group converts only what a call looks up, and answers as Typer's own group.

`api/cli_lazy.py` (issue 33, cold start): the group the script runs is made without its commands; each is
converted by Typer's own functions on first lookup. Tests elsewhere invoke ``app`` through Typer's
``CliRunner``, i.e. Typer's eager group: here both groups get the same arguments and must answer the same.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
import typer.testing
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.api.cli_lazy import LazyCommands, _makers, lazy_group

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rupture_brutale" / "facts.json"

CALLS = [
    [],
    ["--help"],
    ["analyze", "--help"],
    ["case", "--help"],
    ["rules", "dynamic", "--help"],
    ["schema", "facts", "--pack", "rupture_brutale"],
    ["analyz", str(EXAMPLE)],  # a typo: the suggestion reads the names only
    ["nope"],
    ["check", "--rules", str(ROOT / "no-such-folder")],
    ["analyze", str(EXAMPLE), "--no-input"],
    ["analyze", str(EXAMPLE), "--no-input", "--format", "json"],
]


@pytest.mark.parametrize("args", CALLS, ids=lambda a: " ".join(a)[:40] or "(none)")
def test_the_lazy_group_answers_as_typers_group(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    eager = runner.invoke(app, args, prog_name="lexlogic")
    monkeypatch.setattr(typer.testing, "_get_command", lazy_group)  # the runner's way to the app's group
    lazy = runner.invoke(app, args, prog_name="lexlogic")
    assert (lazy.exit_code, lazy.stdout, lazy.stderr) == (eager.exit_code, eager.stdout, eager.stderr)


def test_the_groups_list_the_same_commands_in_the_same_order() -> None:
    eager = typer.main.get_command(app)
    lazy = lazy_group(app)
    assert isinstance(lazy.commands, LazyCommands)
    assert list(lazy.commands) == list(eager.commands)  # type: ignore[attr-defined]
    for name, command in eager.commands.items():  # type: ignore[attr-defined]
        made = lazy.commands[name]
        assert (type(made), made.name, [p.name for p in made.params]) == (
            type(command),
            command.name,
            [p.name for p in command.params],
        )


def test_a_call_converts_only_the_command_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    convert = typer.main.get_command_from_info

    def counting(command_info: Any, **style: Any) -> Any:
        command = convert(command_info, **style)
        made.append(command.name)
        return command

    monkeypatch.setattr(typer.main, "get_command_from_info", counting)
    with pytest.raises(SystemExit) as done:
        app(["analyze", "--help"], prog_name="lexlogic")
    assert done.value.code == 0
    assert made == ["analyze"]


def test_only_an_unknown_name_reads_as_no_such_command() -> None:
    """``TyperGroup.get_command`` is ``commands.get(name)``: a KeyError raised while converting a known command
    must not turn into « No such command »."""

    def broken() -> Any:
        raise KeyError("inside Typer")

    commands = LazyCommands({"broken": broken})
    assert commands.get("nope") is None
    with pytest.raises(RuntimeError, match="'broken'"):
        commands.get("broken")


def test_a_call_imports_only_the_module_of_its_command(tmp_path: Path) -> None:
    """The script's call imports the module registering the command it runs (``REGISTRY``), not the others."""
    probe = (
        "import sys\nfrom lexlogic.api.cli import app\n"
        "try:\n    app(['kg', '--help'], prog_name='lexlogic')\nexcept SystemExit:\n    pass\n"
        "print('CLI', sorted(m.split('.')[-1] for m in sys.modules if m.startswith('lexlogic.api.cli_')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert "CLI ['cli_common', 'cli_kg', 'cli_lazy', 'cli_rules']" in done.stdout, done.stdout[-2000:] + done.stderr


def test_the_registry_names_each_command_s_module() -> None:
    """Each name of ``REGISTRY`` is registered by the module it names, and by no module another name says."""
    from lexlogic.api.cli import MODULES, REGISTRY, register

    assert set(REGISTRY.values()) == set(MODULES)
    for module in MODULES:
        alone = typer.Typer()
        register(alone, [module])
        names = list(_makers(alone))  # Typer's names and order, unconverted
        assert names == [n for n, m in REGISTRY.items() if m == module], module
