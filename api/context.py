"""The explicit context of one CLI call, API process or worker: the settings and the rule packs.

Built once at the edge and passed down (the engine never reads the environment for it or looks a pack up
by a global name). The CLI keeps it on Typer's own context object (``ctx.obj``) for the duration of a
command; ``--rules DIR`` builds it with another rules folder — the environment is never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from typer._click.globals import get_current_context  # typer vendors click: its current-context stack

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import Settings


class SettingsError(LexlogicError):
    """A LEXLOGIC_* variable holds a value its setting refuses."""


@dataclass(frozen=True)
class AppContext:
    settings: Settings
    packs: PackLibrary

    @classmethod
    def build(cls, settings: Settings | None = None, *, rules: Path | None = None, watch: bool = False) -> AppContext:
        if settings is None:
            try:
                settings = Settings()
            except ValidationError as exc:
                err = exc.errors()[0]
                name = "LEXLOGIC_" + str(err["loc"][0]).upper() if err.get("loc") else "LEXLOGIC_*"
                raise SettingsError(f"{name}: {err['msg']}") from exc
        if rules is not None:
            settings = settings.model_copy(update={"rules_dir": rules.resolve()})
        packs = PackLibrary(settings.rules_dir, settings.default_pack, watch=watch, cache=settings.packs_cache)
        return cls(settings, packs)


def current() -> AppContext:
    """The context of the running CLI command (built from the environment when a command set none)."""
    ctx = get_current_context(silent=True)
    if ctx is not None:
        found = ctx.find_object(AppContext)
        if found is not None:
            return found
        root = ctx.find_root()
        root.obj = AppContext.build()
        return root.obj  # type: ignore[no-any-return]
    return AppContext.build()
