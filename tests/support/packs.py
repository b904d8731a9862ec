"""The shipped rule packs for tests: one library over rules/, passed explicitly like the edge does."""

from __future__ import annotations

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.logic.pack import RulePack
from lexlogic.settings import SHIPPED_RULES

SHIPPED = PackLibrary(SHIPPED_RULES)


def pack_by_name(name: str) -> tuple[RulePack, CompiledProgram]:
    """(pack, compiled program) of a shipped pack."""
    loaded = SHIPPED.get(name)
    return loaded.pack, loaded.program
