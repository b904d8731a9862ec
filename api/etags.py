"""The verdict routes' cache keys and ETags, the same in every ``serve`` process (issue 33).

Why: an ETag ended with a random token drawn at each process's start, so that a restart with new code or an
edited pack never answered 304 for a stale body; with ``serve --workers 2`` a client revalidating on the other
process got the whole body again (200). Now a key names what a body depends on — the case's run and head (its
case file and saved answers), the request's inputs, the proofs form and the pack's content — and the ETag adds
the serving code's version and the deployment's inference limits: equal in every process and across a restart
with the same code, packs and settings; different when any of them changes.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.store.api_cases import ApiCase
from lexlogic.engine.verdict.build import load_pack
from lexlogic.logic.canonical import canonical_hash

#: the installed layers whose files shape a verdict's bytes (their code and data: wording, tables)
LAYERS = ("lexlogic.api", "lexlogic.engine", "lexlogic.logic", "lexlogic.bridges", "lexlogic.sandbox")
#: the distributions whose versions shape a verdict's numbers or words (absent ones are skipped)
DISTRIBUTIONS = ("numpy", "scipy", "clingo", "pydantic", "babel", "opt_einsum", "json-logic-qubit", "torch", "pyro-ppl")
#: the kinds of file read (code and data: not a cache or an editor's file a process could leave there)
SUFFIXES = frozenset({".py", ".json", ".yaml", ".yml", ".txt", ".csv", ".lp"})


def verdict_key(packs: PackLibrary, case: ApiCase, seq: int, **inputs: Any) -> dict[str, Any]:
    """A verdict body's identity here: the run and head (they fix the case file and the saved answers), the
    request's ``inputs`` and the content of the case's pack (an edited pack is a new key, in the cache too)."""
    loaded = load_pack(packs, case.pack)
    return {"run": case.run_id, "seq": seq, **inputs, "pack": [loaded.digest, str(loaded.pack.root)]}


def etag(key: dict[str, Any], version: str) -> str:
    """``key`` (a cache key, its proofs form included) under the serving code's ``version`` (``code_version``)."""
    digest = hashlib.sha256(f"{canonical_hash(key)}\0{version}".encode()).hexdigest()
    return f'W/"{digest[:32]}"'


def code_version(settings: Any) -> str:
    """sha256 of what shapes a body besides its key: the interpreter, lexlogic's version, the files of its
    layers (code and data, in a stable order), the versions of the numeric and logic libraries, and the
    deployment's ``settings`` that reach a verdict (the inference limits; ``None``: the defaults). Read once
    per process (``Services.body_version``): ~300 files, ~10–30 ms."""
    import lexlogic

    h = hashlib.sha256(f"{sys.version}\0{lexlogic.__version__}\0{settings!r}\0".encode())
    for name in DISTRIBUTIONS:
        try:
            h.update(f"{name}={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=-\0".encode())
    for layer in LAYERS:
        spec = find_spec(layer)
        folders = (spec.submodule_search_locations or []) if spec is not None else []
        for root in map(Path, folders):
            files = sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts)
            for path in files:
                h.update(f"{layer}/{path.relative_to(root)}\0".encode() + path.read_bytes())
    return h.hexdigest()
