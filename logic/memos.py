"""The memoised results one owner keeps — a run, a verdict service, a batch chunk — handed down as a parameter.

Why: a cache at module level is shared by every run, service and test of the process, keyed by object ids that
outlive their meaning; a result of one pack library could be served to another. Here each owner holds one
``Memos`` (``RunMemo.memos``; the API's verdict service holds one per pack version through its memos) and passes
it to the functions that memoise (``memos=``). A function given none makes its own for the call: the same
results, nothing kept past it. The tables are created on first use, by name and bound, so each room declares its
own where it memoises (same keys, same bounds as the module-level tables they replace).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

from lexlogic.logic.identity_memo import IdentityMemo

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` values, the least recently used dropped first; guarded (request threads share it)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.RLock()

    def get(self, key: K) -> V | None:
        with self.lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
            return hit

    def put(self, key: K, value: V) -> None:
        with self.lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


class Memos:
    """Named tables of one owner: ``lru`` (bounded, LRU), ``identity`` (``IdentityMemo``), ``table`` (a dict the
    caller bounds itself). A name always gives the same table of this owner; another owner's are its own."""

    def __init__(self) -> None:
        self._tables: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _table(self, name: str, make: Any) -> Any:
        table = self._tables.get(name)
        if table is None:
            with self._lock:
                table = self._tables.get(name)
                if table is None:
                    table = self._tables[name] = make()
        return table

    def lru(self, name: str, size: int) -> Lru[Any, Any]:
        table: Lru[Any, Any] = self._table(name, lambda: Lru(size))
        return table

    def identity(self, name: str, size: int) -> IdentityMemo[Any]:
        table: IdentityMemo[Any] = self._table(name, lambda: IdentityMemo(size))
        return table

    def table(self, name: str) -> dict[Any, Any]:
        table: dict[Any, Any] = self._table(name, dict)
        return table

    def names(self) -> list[str]:
        """The tables made so far (tests: which rooms memoised through this owner)."""
        return sorted(self._tables)

    def size(self, name: str) -> int:
        """How many entries a table holds (0 if never made)."""
        table = self._tables.get(name)
        return 0 if table is None else len(table._data if isinstance(table, IdentityMemo) else table)

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()


def own(memos: Memos | None) -> Memos:
    """The caller's memos, or a fresh one for this call alone (nothing kept past it)."""
    return memos if memos is not None else Memos()
