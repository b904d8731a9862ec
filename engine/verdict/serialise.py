"""A verdict's JSON with the parts a new what-if shares with the previous one serialised once.

Why: a what-if that moves only priors keeps the case and the answers, so its symbolic analysis comes from the
service's memo, and its proof trees, values, facts table, epistemic table, checks (and, with ``proofs=all``, its
outcomes with their trees) are the very objects of the previous what-if (``_tables``, ``fact_knowledge``: shared
rows) — on the example 180 KB of the 189 KB a what-if sends, re-encoded on every request. Here each such field's
JSON is kept by the identity of its content (a tree, or a container's items: held, so no id is reused while kept)
and spliced between the other fields, each dumped by the Verdict's own serializer: the bytes are those of
``verdict.model_dump_json()``. Assumes, like the service's other identity caches, that these objects are not
changed in place once served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from lexlogic.engine.verdict.model import Verdict

SPLICED = ("knowledge", "facts", "outcomes", "checks", "proof", "why_not", "values")  # shared between what-ifs


def _items(value: Any) -> tuple[Any, ...]:
    """What a field's JSON is made of: a container's keys and items, or the object itself."""
    if isinstance(value, dict):
        return (*value.keys(), *value.values())
    if isinstance(value, list):
        return tuple(value)
    return (value,)


class FieldJson:
    """Bounded caches, one per spliced field: the identity of the field's items → the field's JSON member."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._data: dict[str, OrderedDict[tuple[int, ...], tuple[tuple[Any, ...], bytes]]] = {
            name: OrderedDict() for name in SPLICED
        }
        self._lock = threading.Lock()
        self.hits = 0  # fields served from the cache (what a test reads)

    def member(self, verdict: Verdict, name: str) -> bytes:
        """``"name":<json>`` of one field, read from the cache when its items are the ones already dumped."""
        value = getattr(verdict, name)
        if value is None or isinstance(value, (str, int, float, bool)):
            return verdict.model_dump_json(include={name}).encode()[1:-1]
        held = _items(value)
        key = tuple(map(id, held))
        table = self._data[name]
        with self._lock:
            hit = table.get(key)
            if hit is not None and all(a is b for a, b in zip(hit[0], held, strict=True)):
                table.move_to_end(key)
                self.hits += 1
                return hit[1]
        body = verdict.model_dump_json(include={name}).encode()[1:-1]
        with self._lock:
            table[key] = (held, body)  # holding the items: their ids are not reused while kept
            while len(table) > self.size:
                table.popitem(last=False)
        return body


def _groups() -> list[str | set[str]]:
    """The Verdict's fields in their order: runs of ordinary fields (a set each) and the spliced names."""
    out: list[str | set[str]] = []
    for name in Verdict.model_fields:
        if name in SPLICED:
            out.append(name)
        elif out and isinstance(out[-1], set):
            out[-1].add(name)
        else:
            out.append({name})
    return out


_GROUPS = _groups()


def verdict_json(verdict: Verdict, fields: FieldJson) -> bytes:
    """``verdict.model_dump_json().encode()``, the shared fields' JSON read from ``fields``."""
    parts = [
        verdict.model_dump_json(include=g).encode()[1:-1] if isinstance(g, set) else fields.member(verdict, g)
        for g in _GROUPS
    ]
    return b"{" + b",".join(parts) + b"}"
