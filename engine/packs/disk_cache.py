"""Loaded packs kept on disk between processes, so a cold command reads a pack instead of compiling it.

Why: reading a pack's YAML and compiling its ASP cost ~90 ms of CPU in every cold ``lexlogic analyze
FACTS.json`` (issue 33); reading the entry written by an earlier process costs ~5 ms. An entry holds the
loaded pack (validity gates applied, parameters written into labels) and its compiled program without the
clingo AST (``bridges.clingo_frozen``: the AST is parsed again from the pack's own sources, ~1 ms).

An entry is found by a key over everything its content depends on: the pack's folder (proofs cite its
files), the digest of the pack's files (``library.pack_digest``: an edited rule file is a new key, never
the old entry) — and, inside the entry, the sha256 of each file the load read (``logic.pack.files_read``,
whatever its suffix), checked before the entry is served —, and the code that builds the entry (the source of ``logic/``, the clingo bridge and this
room, the interpreter and the versions of pydantic, clingo and PyYAML). Reading is all-or-nothing: a file
that is not whole (bad magic, checksum, key), was not written by this user, or does not match the pack's
sources gives ``None`` and the caller compiles; entries are written to a temporary file and renamed into
place (a reader sees an old entry or a whole new one); a folder that cannot be written is not an error.
The cache holds one entry per pack folder: writing a pack's entry removes that folder's older ones.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.bridges.clingo_frozen import FrozenProgram, frozen, thawed
from lexlogic.logic.pack import RulePack, files_read

MAGIC = b"lexlogic-pack-1\n"  # the entry format; a new format changes it
#: a writer takes milliseconds: an older temporary file is a killed writer's, never renamed, swept by the next write
ABANDONED_AFTER_S = 600.0
_SUM = hashlib.sha256().digest_size


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of the code an entry's content comes from, and of the versions of what it is pickled with
    (PyYAML's by the source of its ``__init__``, which states it: importing PyYAML costs ~13 ms, issue 33)."""
    from importlib.util import find_spec

    import pydantic

    import lexlogic
    from lexlogic import logic
    from lexlogic.bridges import clingo_bridge, clingo_frozen, clingo_terms
    from lexlogic.engine import packs

    h = hashlib.sha256(MAGIC)
    for part in (sys.version, lexlogic.__version__, pydantic.VERSION, clingo_frozen.ENGINE):
        h.update(part.encode() + b"\0")
    yaml_spec = find_spec("yaml")
    files = [Path(yaml_spec.origin if yaml_spec and yaml_spec.origin else "yaml")]
    files += [Path(m.__file__ or "") for m in (clingo_bridge, clingo_frozen, clingo_terms)]
    for folder in (Path(logic.__file__ or "").parent, Path(packs.__file__ or "").parent):
        files += sorted(folder.rglob("*.py"))
    for path in files:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def entry_key(root: Path, digest: str) -> str:
    return f"{root}\0{digest}\0{code_digest()}"


def entry_path(cache: Path, root: Path, digest: str) -> Path:
    """``<folder's hash>-<key's hash>.pack``: one pack folder's entries share their first part."""
    return cache / f"{_folder_part(root)}-{hashlib.sha256(entry_key(root, digest).encode()).hexdigest()}.pack"


def _folder_part(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()[:16]


def read(cache: Path, root: Path, digest: str) -> tuple[RulePack, CompiledProgram] | None:
    """The entry of this pack content, or None (absent, damaged, foreign, or not matching the sources)."""
    try:
        path = entry_path(cache, root, digest)
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:  # a pickle is code: only our own files
                return None
            data = f.read()
        head, check, body = data[: len(MAGIC)], data[len(MAGIC) : len(MAGIC) + _SUM], data[len(MAGIC) + _SUM :]
        if head != MAGIC or hashlib.sha256(body).digest() != check:
            return None
        key, files, pack, state = pickle.loads(body)
        if key != entry_key(root, digest) or not isinstance(pack, RulePack) or not isinstance(state, FrozenProgram):
            return None
        if files != _file_sums(pack):  # a file the load read has changed since (whatever its suffix)
            return None
        return pack, thawed(state, pack.root, pack.asp_sources)
    except Exception:  # any failure to read an entry means: compile the pack instead
        return None


def write(cache: Path, root: Path, digest: str, pack: RulePack, program: CompiledProgram) -> None:
    """Keep this pack's entry (atomically); a folder that cannot be written leaves the cache as it was."""
    tmp = None
    try:
        entry = (entry_key(root, digest), _file_sums(pack), pack, frozen(program))
        body = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        cache.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + hashlib.sha256(body).digest() + body)
        path = entry_path(cache, root, digest)
        os.replace(tmp, path)
        tmp = None
        for older in cache.glob(f"{_folder_part(root)}-*.pack"):  # one entry per pack folder: the latest
            if older != path:
                older.unlink(missing_ok=True)
        _sweep_abandoned(cache)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass  # read-only or full disk, an unpicklable pack: the next process compiles again
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _sweep_abandoned(cache: Path) -> None:
    """Remove the temporary files of writers killed mid-write: no reader ever sees them (never renamed into
    place), but each one kept a whole entry's bytes (130–230 KB) in the user's cache for good."""
    limit = time.time() - ABANDONED_AFTER_S
    for stale in cache.glob(".*.tmp"):
        try:
            if stale.stat().st_mtime < limit:
                stale.unlink()
        except OSError:  # gone meanwhile, or not ours to remove: nothing to do
            continue


def _file_sums(pack: RulePack) -> dict[str, str | None]:
    """sha256 of each file the pack's load read (None: looked for, absent)."""
    return {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        for path in files_read(pack)
    }
