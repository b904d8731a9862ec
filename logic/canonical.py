"""A stable hash of JSON-like data (sorted keys): cache keys and the loop detector's state identity."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_dump(data: Any) -> str:
    """The text ``canonical_hash`` hashes."""
    return json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)


def canonical_hash(data: Any) -> str:
    return hashlib.sha256(canonical_dump(data).encode()).hexdigest()


_SLOT = "\u0000lexlogic-dumped-%d\u0000"  # a string no case holds: where an already dumped value goes


def canonical_hash_with(data: dict[str, Any], dumped: dict[str, str]) -> str:
    """``canonical_hash({**data, **values})`` where ``dumped`` holds those values already as their
    ``canonical_dump`` (the same digest, without dumping a large value again: a run's case file is hashed at
    every step of the state machine and dumped once)."""
    names = list(dumped)
    text = canonical_dump({**data, **{k: _SLOT % i for i, k in enumerate(names)}})
    for i, k in enumerate(names):
        text = text.replace(json.dumps(_SLOT % i, ensure_ascii=False), dumped[k], 1)
    return hashlib.sha256(text.encode()).hexdigest()


class DumpOnce:
    """The ``canonical_dump`` of one object at a time, kept while the same object is asked again (by identity:
    for values that are replaced, never changed in place — a run's case file)."""

    def __init__(self) -> None:
        self._held: Any = None
        self._text = ""

    def __call__(self, data: Any) -> str:
        if data is not self._held or self._held is None:
            self._text, self._held = canonical_dump(data), data
        return self._text
