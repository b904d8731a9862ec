"""Compiled regular expressions kept on disk between processes (issue 33: cold start).

Python compiles a pattern to SRE code in every new process. spaCy's French tokenizer builds one pattern of
1.45 MB (``TOKEN_MATCH``: hyphen and elision exceptions over Unicode letter classes, case-insensitive) and
compiling it is most of importing ``spacy.lang.fr``: 1.5–4 s of CPU on this machine. The SRE code is a pure
function of the pattern, its flags and the interpreter's regex engine, so it is kept (a list of integers)
and the ``Pattern`` rebuilt from it with ``_sre.compile`` — the call ``re`` itself ends with, which
validates the code — then put in ``re``'s own cache under the key ``re.compile`` looks up first: the
library's unchanged ``re.compile(pattern)`` returns an object EQUAL to a fresh compile (``Pattern``
equality compares flags, pattern text and code) without compiling.

How entries are made: `capture` wraps ``re._compiler.compile`` for one thread while a library loads (the
spaCy pipeline) and keeps the parts of every pattern that took long to compile, computed the way
``re._compiler.compile`` computes them (`compile_parts`: its parse, its code) — so building the cache costs
no second compile. `works` checks once per process, on a probe pattern, that this reconstruction equals
``re.compile``'s on this interpreter; if not, nothing is captured or seeded and every pattern is compiled
as usual.

Never stale: an entry is used only when its environment (Python build, SRE magic and code size, Unicode
database version), its full pattern text and flags and the digest of its code all match what its file name
and contents claim; anything else is ignored and rebuilt. A seeded pattern can only be returned for its own
pattern text (that is ``re``'s cache key), so a group made for an older library version is at worst unused.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the regex engine: no stubs
import array
import contextlib
import hashlib
import json
import os
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]
from typing import Any

FORMAT = 1
SLOW_SECONDS = 0.002  # a pattern is kept when compiling it took at least this (the 1.45 MB one: seconds)
_PROBE = r"(?P<word>[\w\-']+)\s*(?:l[’']|d[eu])?(?(word)x|y)[^\W\d_]{2,}$"


def environment() -> str:
    """What the SRE code depends on besides the pattern and flags: a change here rebuilds every entry."""
    return "|".join(
        (
            f"format {FORMAT}",
            sys.version,
            f"magic {_sre.MAGIC}",
            f"codesize {_sre.CODESIZE}",
            f"maxunicode {sys.maxunicode}",
            f"unicode {unicodedata.unidata_version}",
        )
    )


def entry_name(pattern: str, flags: int) -> str:
    """The file name of a pattern's entry: a digest of the environment, the flags and the pattern."""
    key = f"{environment()}|{flags}|{pattern}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:40]


def compile_parts(pattern: str, flags: int) -> dict[str, Any]:
    """What ``re._compiler.compile`` passes to ``_sre.compile``, computed the same way (its parse, its code)."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return {
        "flags": flags | parsed.state.flags,
        "code": list(code),
        "groups": parsed.state.groups - 1,
        "groupindex": groupindex,
        "indexgroup": indexgroup,
    }


def build(pattern: str, parts: dict[str, Any]) -> re.Pattern[str]:
    """The ``Pattern`` made of ``parts`` (``_sre`` validates the code and raises RuntimeError if invalid)."""
    built: re.Pattern[str] = _sre.compile(
        pattern, parts["flags"], parts["code"], parts["groups"], parts["groupindex"], tuple(parts["indexgroup"])
    )
    return built


@cache
def works() -> bool:
    """Does this interpreter's ``re`` compile as `compile_parts` + `build` do, and look its cache up first?"""
    try:
        for flags in (0, re.IGNORECASE | re.UNICODE):
            if build(_PROBE, compile_parts(_PROBE, flags)) != _compiler.compile(_PROBE, flags):
                return False
        return isinstance(getattr(re, "_cache", None), dict)
    except Exception:  # any surprise from private modules means: do not use them
        return False


# --- capture while a library loads ----------------------------------------------------------------------


@contextlib.contextmanager
def capture() -> Iterator[list[tuple[str, int, dict[str, Any]]]]:
    """Within the block, patterns compiled BY THIS THREAD that take ≥ SLOW_SECONDS are compiled by
    `compile_parts` + `build` (the same result) and their parts appended to the list yielded. Other threads'
    compiles go to the original function, untouched."""
    captured: list[tuple[str, int, dict[str, Any]]] = []
    if not works():
        yield captured
        return
    original = _compiler.compile
    me = threading.get_ident()

    def compiling(p: Any, flags: int = 0) -> Any:
        if threading.get_ident() != me or not isinstance(p, str) or flags & re.DEBUG:
            return original(p, flags)
        start = time.perf_counter()
        parts = compile_parts(p, flags)
        pattern = build(p, parts)
        if time.perf_counter() - start >= SLOW_SECONDS:
            captured.append((p, flags, parts))
        return pattern

    _compiler.compile = compiling
    try:
        yield captured
    finally:
        _compiler.compile = original


# --- a group of entries on disk -------------------------------------------------------------------------


def _code_type() -> str:
    return "I" if _sre.CODESIZE == 4 else "H"


def save(folder: Path, group: str, captured: list[tuple[str, int, dict[str, Any]]], kept: list[str]) -> None:
    """Keep ``captured`` patterns in ``folder`` and list them under ``group`` with the entries ``kept``
    (those `seed_group` found valid), so a partly valid group is completed, not replaced (atomic renames)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = list(kept)
    for pattern, flags, parts in captured:
        name = entry_name(pattern, flags)
        code = array.array(_code_type(), parts["code"]).tobytes()
        meta = {k: v for k, v in parts.items() if k != "code"}
        meta |= {"pattern": pattern, "asked_flags": flags, "code_sha256": hashlib.sha256(code).hexdigest()}
        _write(folder / f"{name}.code", code)
        _write(folder / f"{name}.json", json.dumps(meta).encode())
        names.append(name)
    manifest = {"environment": environment(), "group": group, "entries": names}
    _write(folder / f"{_group_file(group)}.group.json", json.dumps(manifest).encode())


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    tmp.write_bytes(data)
    tmp.replace(path)


def _group_file(group: str) -> str:
    return hashlib.sha256(f"{environment()}|{group}".encode()).hexdigest()[:40]


def load(folder: Path, name: str) -> tuple[re.Pattern[str], int] | None:
    """The ``Pattern`` of entry ``name`` and the flags it was asked with, or None (absent, stale, corrupt)."""
    try:
        meta = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        code = (folder / f"{name}.code").read_bytes()
        pattern, flags = meta["pattern"], meta["asked_flags"]
        if (
            not isinstance(pattern, str)
            or not isinstance(flags, int)
            or entry_name(pattern, flags) != name
            or meta["code_sha256"] != hashlib.sha256(code).hexdigest()
        ):
            return None
        parts = {**meta, "code": array.array(_code_type(), code).tolist()}
        parts["groupindex"] = {str(k): int(v) for k, v in meta["groupindex"].items()}
        return build(pattern, parts), flags
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RuntimeError, OverflowError):
        return None  # _sre refuses code it cannot validate (RuntimeError): compiled as usual instead


def seed_group(folder: Path, group: str, *, whole: bool = False) -> tuple[bool, list[str]]:
    """Seed ``re``'s cache with the entries of ``group``: (True when every one was found, valid and is
    returned by ``re.compile`` — nothing to build —, the names of those seeded). ``whole``: seed nothing
    unless every entry is valid (a folder this process will not complete: the installation's, read-only)."""
    found = _entries(folder, group)
    if not found or (whole and any(entry is None for _, entry in found)):
        return False, []
    seeded = [name for name, entry in found if entry is not None and _seed(*entry)]
    return len(seeded) == len(found), seeded


def valid_group(folder: Path, group: str) -> bool:
    """Is ``group`` in ``folder`` whole and valid on this interpreter (nothing seeded: a check)?"""
    found = _entries(folder, group)
    return bool(found) and all(entry is not None for _, entry in found)


def _entries(folder: Path, group: str) -> list[tuple[str, tuple[re.Pattern[str], int] | None]]:
    """The entries listed for ``group`` (each loaded, or None when absent, stale or corrupt); [] when the group
    is not there for this environment, or ``re`` cannot be seeded here."""
    if not works():
        return []
    try:
        manifest = json.loads((folder / f"{_group_file(group)}.group.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(manifest, dict) or manifest.get("environment") != environment() or not manifest.get("entries"):
        return []
    return [(str(name), load(folder, str(name))) for name in manifest["entries"]]


def _seed(pattern: re.Pattern[str], flags: int) -> bool:
    re._cache[type(pattern.pattern), pattern.pattern, flags] = pattern  # type: ignore[attr-defined]
    return re.compile(pattern.pattern, flags) is pattern
