"""Values kept by the identity of the objects they were computed from, a bounded number of them.

Why: a what-if that moves only priors reuses the case, its analysis, its model and its proof trees as the very
same objects; what is derived from them (the epistemic table, a tree's fact lines, the case's content hash, the
numbers' per-world outputs) need not be derived again. Keyed by ``id()`` — the objects are held while their entry
is kept, so no id is reused under it — and checked with ``is`` on a hit. Assumes those objects are not changed in
place once used (typed cases, analyses and models are not: new ones are made).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """At most ``size`` values, each under the identities of its objects and a hashable rest of its key."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, objects: tuple[Any, ...], rest: Hashable, compute: Callable[[], V]) -> V:
        """The value kept for these objects and ``rest``, else ``compute()`` kept (computed outside the lock)."""
        key = (tuple(map(id, objects)), rest)
        with self._lock:
            hit = self._data.get(key)
            if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
                self._data.move_to_end(key)
                return hit[1]
        value = compute()
        with self._lock:
            self._data[key] = (objects, value)  # held: their ids are not reused while kept
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
