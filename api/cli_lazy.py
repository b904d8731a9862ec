"""The `lexlogic` app's command group with each command converted by Typer when it is first looked up.

Why: Typer turns every registered function into a click command (signature, type hints, one click
parameter per option) on every call of the app, before it knows which command runs: ~50 commands and
sub-commands, ~15–30 ms of every cold command (issue 33), for one command used. Here the group is made
without its commands and looks each one up by name on demand, converted by Typer's own functions, so a
command is the same object Typer would have made. Listing them (``--help``) converts them all; a typo's
suggestion reads only the names. Tests that invoke ``app`` through Typer's ``CliRunner`` get Typer's
eager group: both are compared in ``tests/core/test_cli_lazy.py``.

The modules that register the commands are imported on demand too (``LazyTyper(registry=…, modules=…,
register=…)``): importing the eleven ``cli_*`` modules a call does not run, and giving their commands the
``--rules`` option, cost ~15 ms of a cold ``analyze`` (issue 33). A call imports the module of the command it
looks up, registered on an app of its own; whatever reads the app's command lists (Typer's eager group,
``--help`` through it, tests) first registers every module on the app itself, in ``modules``' order — the
order Typer lists them in, which ``registry`` repeats (the test compares the two).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from functools import partial
from typing import Any

import typer
import typer.main as typer_main  # its functions looked up at each call, as Typer's own group builder does
from typer._click.core import Command  # typer vendors click: the command class its groups hold
from typer.core import TyperGroup
from typer.models import CommandInfo, TyperInfo


class LazyCommands(MutableMapping[str, Command]):
    """A group's commands by name, in Typer's order, each converted on its first lookup."""

    def __init__(self, makers: dict[str, Callable[[], Command]]) -> None:
        self._makers = makers
        self._made: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        made = self._made.get(name)
        if made is None:
            make = self._makers[name]  # KeyError: no such command, as a dict says
            try:
                made = self._made[name] = make()
            except KeyError as exc:  # a conversion's own KeyError must not read as « no such command »
                raise RuntimeError(f"Typer could not convert the command {name!r}") from exc
        return made

    def __setitem__(self, name: str, command: Command) -> None:
        self._makers.setdefault(name, partial(_ready, command))
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        del self._makers[name]
        self._made.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


def _style(app: typer.Typer) -> tuple[dict[str, Any], dict[str, Any]]:
    """The keywords Typer converts ``app``'s commands and sub-apps with."""
    style: dict[str, Any] = {"pretty_exceptions_short": app.pretty_exceptions_short}
    style["rich_markup_mode"] = app.rich_markup_mode
    return style, {**style, "suggest_commands": app.suggest_commands}


def _makers(app: typer.Typer, source: typer.Typer | None = None) -> dict[str, Callable[[], Command]]:
    """name → how Typer makes it, in the order and with the names of ``typer.main.get_group_from_info``
    (commands, then sub-apps; a later one of the same name replaces the earlier one in its place).
    ``source``: the app holding the commands, converted in ``app``'s style (default: ``app`` itself)."""
    if isinstance(app, LazyTyper) and source is None and app.registry:
        return {name: partial(_on_demand, app, module, name) for name, module in app.registry.items()}
    style, group_style = _style(app)
    source = source or app
    makers: dict[str, Callable[[], Command]] = {}
    for info in source.registered_commands:
        assert info.callback is not None, "A command must have a callback function"
        name = info.name or typer_main.get_command_name(info.callback.__name__)
        makers[name] = partial(_command, info, style)
    for group in source.registered_groups:
        make = partial(_group, group, group_style)
        name = _group_name(group)
        if name:
            makers[name] = make
        else:  # a sub-app added without a name: Typer lists its commands in the parent (made now, rare)
            makers.update({sub: partial(_ready, cmd) for sub, cmd in make().commands.items()})
    return makers


def _on_demand(app: LazyTyper, module: str, name: str) -> Command:
    """The command ``name`` of ``module``, which is imported and registered (once) on an app of its own."""
    alone = app.alone.get(module)
    if alone is None:
        alone = app.alone[module] = typer.Typer()
        app.register(alone, [module])
    return _makers(app, alone)[name]()


def _command(info: CommandInfo, style: dict[str, Any]) -> Command:
    return typer_main.get_command_from_info(info, **style)


def _group(info: TyperInfo, style: dict[str, Any]) -> TyperGroup:
    return typer_main.get_group_from_info(info, **style)


def _ready(command: Command) -> Command:
    return command


def _group_name(group: TyperInfo) -> str:
    """The name ``get_group_from_info`` gives a sub-app, without converting its commands."""
    return typer_main.solve_typer_info_defaults(group).name or ""


def lazy_group(app: typer.Typer) -> TyperGroup:
    """``typer.main.get_command(app)`` for an app with sub-commands and no completion options, its commands
    converted on demand."""
    shell = copy.copy(app)
    if isinstance(shell, LazyTyper):
        shell.pending = []  # the copy registers nothing: its commands are looked up on ``app``
    shell.registered_commands = []
    shell.registered_groups = []
    group = typer_main.get_group(shell)
    group.commands = LazyCommands(_makers(app))
    return group


def _no_registrar(app: typer.Typer, modules: Sequence[str]) -> None:
    raise RuntimeError(f"no registrar for {list(modules)}")


class LazyTyper(typer.Typer):
    """A Typer app whose call (the ``lexlogic`` script) converts only the commands it looks up.

    ``registry``: each command and sub-app name → the module that registers it, in Typer's listing order;
    ``modules``: those modules in registration order; ``register(app, modules)``: imports them and registers
    their commands on ``app``. Reading ``registered_commands`` / ``registered_groups`` registers them all first."""

    def __init__(
        self,
        *args: Any,
        registry: Mapping[str, str] | None = None,
        modules: Sequence[str] = (),
        register: Callable[[typer.Typer, Sequence[str]], None] = _no_registrar,
        **kwargs: Any,
    ) -> None:
        self.registry = dict(registry or {})
        self.pending = list(modules)
        self.register = register
        self.alone: dict[str, typer.Typer] = {}  # a module → the app its commands were registered on, alone
        super().__init__(*args, **kwargs)

    def _all_registered(self) -> None:
        pending, self.pending = self.pending, []  # emptied first: registering reads the lists again
        if pending:
            self.register(self, pending)

    @property  # type: ignore[override]
    def registered_commands(self) -> list[CommandInfo]:
        self._all_registered()
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list[CommandInfo]) -> None:
        self._commands = value

    @property  # type: ignore[override]
    def registered_groups(self) -> list[TyperInfo]:
        self._all_registered()
        return self._groups

    @registered_groups.setter
    def registered_groups(self, value: list[TyperInfo]) -> None:
        self._groups = value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._add_completion or self.pretty_exceptions_enable:  # what lazy_group does not reproduce
            return super().__call__(*args, **kwargs)
        return lazy_group(self)(*args, **kwargs)
