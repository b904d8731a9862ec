"""Finding and caching rule packs (load + compile once per process, re-read when files change)."""

from __future__ import annotations

import os
from pathlib import Path

from lexlogic.bridges.clingo_bridge import CompiledProgram, compile_pack
from lexlogic.logic.pack import PackError, RulePack, find_packs, load_pack

_cache: dict[Path, tuple[float, RulePack, CompiledProgram]] = {}


def rules_dir() -> Path:
    env = os.environ.get("LEXLOGIC_RULES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "rules"


def _stamp(root: Path) -> float:
    return max(
        (p.stat().st_mtime for p in root.rglob("*") if p.is_file() and p.suffix in {".lp", ".yaml", ".json"}),
        default=0.0,
    )


def get_pack(root: Path | str) -> tuple[RulePack, CompiledProgram]:
    root = Path(root).resolve()
    stamp = _stamp(root)
    hit = _cache.get(root)
    if hit and hit[0] == stamp:
        return hit[1], hit[2]
    pack = load_pack(root)
    program = compile_pack(pack)
    _cache[root] = (stamp, pack, program)
    return pack, program


def pack_by_name(name: str) -> tuple[RulePack, CompiledProgram]:
    for root in find_packs(rules_dir()):
        if root.name == name:
            return get_pack(root)
    raise PackError(rules_dir() / name, None, f"no rule pack named '{name}' under {rules_dir()}")
