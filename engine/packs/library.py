"""The rule packs of one rules folder, as an object passed down from the edge (OpenFisca's habit).

``PackLibrary(root)`` is built once by the CLI, the API or a worker from ``Settings.rules_dir``; the engine
receives it (or one ``LoadedPack``) and never looks a pack up by a global name. A pack is loaded and compiled
once per content: the process-wide cache is keyed by the folder and the digest of the pack's files, so two
libraries over the same folder share the work and an edited pack is a new entry (its digest is also the pack's version in
a run's key). ``loads`` counts real loads (the one-pass test reads it).
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from lexlogic.bridges.clingo_bridge import CompiledProgram, compile_pack
from lexlogic.engine.packs import disk_cache
from lexlogic.logic import yaml_load
from lexlogic.logic.errors import did_you_mean
from lexlogic.logic.memos import Memos
from lexlogic.logic.pack import PackError, RulePack, find_packs, load_pack
from lexlogic.logic.parameters import render
from lexlogic.logic.validity import gate_pack

PACK_SUFFIXES = {".lp", ".yaml", ".json", ".fol", ".csv"}


@dataclass(frozen=True)
class LoadedPack:
    """A pack and its compiled program; ``digest`` names its content (sha256 of its files)."""

    pack: RulePack
    program: CompiledProgram
    digest: str

    @property
    def name(self) -> str:
        return self.pack.name


def compile_loaded(pack: RulePack) -> CompiledProgram:
    """Compile a loaded pack and write the parameters' current values into its rules' labels."""
    program = compile_pack(pack)
    if pack.parameters:
        for rule in program.rules:
            if rule.meta is not None and "{" in rule.meta.label:
                rule.meta.label = render(rule.meta.label, pack.parameters)
    return program


def gated(pack: RulePack) -> RulePack:
    """Validity periods are law: each dated rule gets its in-force computation (``logic.validity``), whose label
    carries the parameters' current values like every other label."""
    gate_pack(pack)
    if pack.parameters:
        for comp in pack.computations:
            if "{" in comp.label:
                comp.label = render(comp.label, pack.parameters)
    return pack


def pack_digest(root: Path) -> str:
    """sha256 over the pack's files (relative path and bytes), in a stable order."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in PACK_SUFFIXES and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


_by_digest: dict[str, tuple[RulePack, CompiledProgram]] = {}
_lock = threading.Lock()
LOAD_COUNT = [0]  # real loads in this process (tests of the one-pass rule read it)


def load_folder(root: Path | str, cache: Path | None = None) -> LoadedPack:
    """One pack folder, loaded and compiled once per content (PackError at file:line otherwise). ``cache``:
    the folder of the pack cache on disk (``disk_cache``; None: compile in every process)."""
    root = Path(root).resolve()
    digest = pack_digest(root)
    key = f"{root}#{digest}"  # the folder too: proofs cite its files
    with _lock:
        hit = _by_digest.get(key)
    if hit is None:
        hit = disk_cache.read(cache, root, digest) if cache is not None else None
        if hit is None:
            pack = gated(load_pack(root))
            hit = (pack, compile_loaded(pack))
            if cache is not None:
                disk_cache.write(cache, root, digest, *hit)
        with _lock:
            LOAD_COUNT[0] += 1
            _by_digest[key] = hit
    return LoadedPack(hit[0], hit[1], digest)


@dataclass
class PackLibrary:
    """The packs of one rules folder. ``default``: the pack of a case that names none (else ``packs.yaml``'s
    ``default:``, else the only or first pack). ``watch``: re-read a pack whose files changed (servers)."""

    root: Path
    default: str | None = None
    watch: bool = False
    watch_every: float = 1.0  # seconds between two looks at a watched pack's files
    cache: Path | None = None  # the pack cache on disk (``Settings.packs_cache``); None: compile in each process
    # what the runs on these packs memoise (case models, circuits, computations…: ``logic/memos.py``), kept as long
    # as the library (a server's, a worker process's, a batch chunk's): runs that name no owner of their own use it
    memos: Memos = field(default_factory=Memos, repr=False, compare=False)
    _loaded: dict[str, LoadedPack] = field(default_factory=dict, repr=False)
    _stamps: dict[str, float] = field(default_factory=dict, repr=False)
    _looked: dict[str, float] = field(default_factory=dict, repr=False)  # name → monotonic time of the last look

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    def names(self) -> list[str]:
        return [r.name for r in find_packs(self.root)]

    def folder(self, name: str) -> Path:
        """The folder of the pack called ``name`` (PackError naming the known ones)."""
        roots = find_packs(self.root)
        for r in roots:
            if r.name == name:
                return r
        names = [r.name for r in roots]
        hint = did_you_mean(name, names) or f" (packs: {', '.join(names) or 'none'})"
        raise PackError(self.root / name, None, f"no rule pack named '{name}' under {self.root}{hint}")

    def get(self, name: str | None = None) -> LoadedPack:
        """The loaded pack ``name`` (the default pack when None), loaded once for this library."""
        name = name or self.default_name()
        hit = self._loaded.get(name)
        if hit is not None and not (self.watch and self._changed(name, hit.pack.root)):
            return hit
        loaded = load_folder(self.folder(name), self.cache)
        self._loaded[name] = loaded
        if self.watch:
            self._stamps[name] = self._stamp(loaded.pack.root)
            self._looked[name] = time.monotonic()
        return loaded

    def pack(self, name: str | None = None) -> RulePack:
        return self.get(name).pack

    def default_name(self) -> str:
        if self.default:
            return self.default
        settings = self.root / "packs.yaml"
        if settings.exists():
            data = yaml_load.safe_load(settings.read_text(encoding="utf-8")) or {}
            if isinstance(data, dict) and data.get("default"):
                return str(data["default"])
        names = self.names()
        if not names:
            raise PackError(self.root, None, "no rule pack found")
        return names[0]

    def for_dossier(self, directory: Path | str) -> str:
        """The pack a dossier folder names in its ``dossier.yaml`` (``pack:``), else the default pack."""
        path = Path(directory) / "dossier.yaml"
        if path.exists():
            data = yaml_load.safe_load(path.read_text(encoding="utf-8")) or {}
            if isinstance(data, dict) and data.get("pack"):
                name = str(data["pack"])
                self.folder(name)  # PackError (with a "did you mean") when it does not exist
                return name
        return self.default_name()

    def _changed(self, name: str, root: Path) -> bool:
        """Whether a watched pack's files changed, looked at most every ``watch_every`` seconds. Why: the look
        walks the pack's folder (~70 files), ~4 ms, and a verdict asks for its pack ~6 times: a server paid
        it on every what-if; an edited pack is now seen within a second instead of at once."""
        now = time.monotonic()
        if now - self._looked.get(name, -1e9) < self.watch_every:
            return False
        self._looked[name] = now
        return self._stamp(root) != self._stamps.get(name)

    @staticmethod
    def _stamp(root: Path) -> float:
        return max((p.stat().st_mtime for p in root.rglob("*") if p.suffix in PACK_SUFFIXES), default=0.0)
