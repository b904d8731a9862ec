"""Finding and caching rule packs (load + compile once per process, re-read when files change)."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from lexlogic.bridges.clingo_bridge import CompiledProgram, compile_pack
from lexlogic.logic.pack import PackError, RulePack, find_packs, load_pack
from lexlogic.logic.parameters import render

_cache: dict[Path, tuple[float, RulePack, CompiledProgram]] = {}


def rules_dir() -> Path:
    """Where packs are looked up by name: ``LEXLOGIC_RULES_DIR`` (``--rules DIR`` sets it), else ``rules/``."""
    env = os.environ.get("LEXLOGIC_RULES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "rules"


def compile_loaded(pack: RulePack) -> CompiledProgram:
    """Compile a loaded pack and write the parameters' current values into its rules' labels."""
    program = compile_pack(pack)
    if pack.parameters:
        for rule in program.rules:
            if rule.meta is not None and "{" in rule.meta.label:
                rule.meta.label = render(rule.meta.label, pack.parameters)
    return program


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
    program = compile_loaded(pack)
    _cache[root] = (stamp, pack, program)
    return pack, program


def pack_root(name: str) -> Path:
    """The folder of the pack called `name` under ``rules_dir()`` (PackError naming the known ones)."""
    roots = find_packs(rules_dir())
    for root in roots:
        if root.name == name:
            return root
    from difflib import get_close_matches

    names = [r.name for r in roots]
    near = get_close_matches(name, names, n=1)
    hint = f" (did you mean '{near[0]}'?)" if near else f" (packs: {', '.join(names) or 'none'})"
    raise PackError(rules_dir() / name, None, f"no rule pack named '{name}' under {rules_dir()}{hint}")


def pack_names() -> list[str]:
    return [r.name for r in find_packs(rules_dir())]


def default_pack() -> str:
    """The pack used when a case names none: ``LEXLOGIC_DEFAULT_PACK``, else the rules folder's
    ``packs.yaml`` ``default:``, else its only pack (else the first by name)."""
    env = os.environ.get("LEXLOGIC_DEFAULT_PACK")
    if env:
        return env
    settings = rules_dir() / "packs.yaml"
    if settings.exists():
        data = yaml.safe_load(settings.read_text(encoding="utf-8")) or {}
        if isinstance(data, dict) and data.get("default"):
            return str(data["default"])
    names = pack_names()
    if not names:
        raise PackError(rules_dir(), None, "no rule pack found")
    return names[0]


def dossier_pack(directory: Path | str) -> str:
    """The pack a dossier folder is analysed with: its ``dossier.yaml`` ``pack:``, else ``default_pack()``."""
    path = Path(directory) / "dossier.yaml"
    if path.exists():
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if isinstance(data, dict) and data.get("pack"):
            name = str(data["pack"])
            pack_root(name)  # PackError (with a "did you mean") when it does not exist
            return name
    return default_pack()


def pack_by_name(name: str) -> tuple[RulePack, CompiledProgram]:
    return get_pack(pack_root(name))
