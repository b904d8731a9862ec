"""A verdict's JSON with its proof trees serialised once per tree.

Why: a what-if that moves only priors keeps the case and the answers, so its symbolic analysis comes from the
service's memo and its ``proof`` / ``why_not`` are the very objects of the previous what-if — on the example,
119 KB of the 189 KB a what-if sends, re-encoded on every request. Here each tree's JSON is kept by the tree's
identity (the tree held, so its id is not reused) and spliced between the other fields, dumped as pydantic dumps
them: the bytes are those of ``verdict.model_dump_json()``. Assumes, like the service's other identity caches, that
a proof tree is not changed in place after it is served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from lexlogic.engine.verdict.model import Verdict
from lexlogic.logic.proof import ProofNode

SPLICED = ("proof", "why_not")  # the Verdict's fields holding whole proof trees


class TreeJson:
    """Bounded cache: a proof tree (by identity) → its JSON bytes."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._data: OrderedDict[int, tuple[ProofNode, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, node: ProofNode) -> bytes:
        with self._lock:
            hit = self._data.get(id(node))
            if hit is not None and hit[0] is node:
                self._data.move_to_end(id(node))
                return hit[1]
        body = node.model_dump_json().encode()
        with self._lock:
            self._data[id(node)] = (node, body)  # holding ``node``: its id is not reused while kept
            while len(self._data) > self.size:
                self._data.popitem(last=False)
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


def verdict_json(verdict: Verdict, trees: TreeJson) -> bytes:
    """``verdict.model_dump_json().encode()``, the proof trees' JSON read from ``trees``."""
    parts: list[bytes] = []
    for group in _GROUPS:
        if isinstance(group, set):
            parts.append(verdict.model_dump_json(include=group).encode()[1:-1])
            continue
        node = getattr(verdict, group)
        value = trees.of(node) if isinstance(node, ProofNode) else b"null"
        parts.append(b'"' + group.encode() + b'":' + value)
    return b"{" + b",".join(parts) + b"}"
