"""How a large JSON field of a snapshot is stored: shared sub-trees once, then deflated.

Why: a verdict's proof trees repeat whole sub-trees (the same premise under every outcome that uses it,
``proof`` and ``why_not`` often equal); zlib alone only sees repeats within its 32 KB window, so the example
dossier's verdict (864 KB of JSON) deflated to 94 KB. Stored as a DAG — every dict or list of at least
``SHARE_FROM`` bytes that occurs more than once is kept once in ``nodes`` and replaced by ``{"__ref__": i}``
— it is 171 KB of JSON and 29 KB deflated. Reading back expands every reference into a fresh copy, so the
value read equals the value written (same keys, same order) and no two places share a mutable object.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections import Counter
from typing import Any

DEFLATED = "__deflated__"  # older rows: base64(zlib(JSON)) of the plain value
DAG = "__dag__"  # base64(zlib(JSON of {"nodes": [...], "root": ...})), references as {"__ref__": i}
REF = "__ref__"
COMPACT_ABOVE = 8192  # bytes of JSON: smaller fields are stored as they are
SHARE_FROM = 64  # bytes of JSON: a smaller repeated sub-tree costs less inline than as a reference


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _children(value: dict[str, Any] | list[Any]) -> Any:
    return value.values() if isinstance(value, dict) else value


def _count(value: Any, counts: Counter[str]) -> bool:
    """Count every dict/list by its exact JSON; False when a dict already looks like a reference."""
    if not isinstance(value, dict | list):
        return True
    if isinstance(value, dict) and REF in value:
        return False
    key = _dumps(value)
    counts[key] += 1
    return counts[key] > 1 or all(_count(child, counts) for child in _children(value))


def to_dag(value: Any) -> dict[str, Any] | None:
    """``{"nodes", "root"}`` with repeated sub-trees once (children before their parents), or None when
    the value holds a dict with the reference key itself (it could not be read back unambiguously)."""
    counts: Counter[str] = Counter()
    if not _count(value, counts):
        return None
    nodes: list[Any] = []
    ids: dict[str, int] = {}

    def encode(x: Any) -> Any:
        if not isinstance(x, dict | list):
            return x
        key = _dumps(x)
        shared = counts[key] > 1 and len(key) >= SHARE_FROM
        if shared and key in ids:
            return {REF: ids[key]}
        out = {k: encode(v) for k, v in x.items()} if isinstance(x, dict) else [encode(v) for v in x]
        if not shared:
            return out
        ids[key] = len(nodes)
        nodes.append(out)
        return {REF: ids[key]}

    root = encode(value)
    return {"nodes": nodes, "root": root}


def from_dag(dag: dict[str, Any]) -> Any:
    """The value ``to_dag`` was given: every reference expanded into its own copy."""
    nodes = dag["nodes"]

    def expand(x: Any) -> Any:
        if isinstance(x, dict):
            if len(x) == 1 and REF in x:
                return expand(nodes[x[REF]])
            return {k: expand(v) for k, v in x.items()}
        if isinstance(x, list):
            return [expand(v) for v in x]
        return x

    return expand(dag["root"])


def _deflate(value: Any) -> str:
    return base64.b64encode(zlib.compress(_dumps(value).encode("utf-8"), 6)).decode("ascii")


def _inflate(text: str) -> Any:
    return json.loads(zlib.decompress(base64.b64decode(text)).decode("utf-8"))


def pack(value: Any) -> Any:
    """What the store writes for one field: the value itself when small, else its deflated DAG."""
    if len(_dumps(value)) <= COMPACT_ABOVE:
        return value
    dag = to_dag(value)
    if dag is None:
        return {DEFLATED: _deflate(value)}
    return {DAG: _deflate(dag)}


def unpack(stored: Any) -> Any:
    """The field as it was given to ``pack`` (also reads the older plain-deflated rows)."""
    if isinstance(stored, dict) and len(stored) == 1:
        if DAG in stored:
            return from_dag(_inflate(stored[DAG]))
        if DEFLATED in stored:
            return _inflate(stored[DEFLATED])
    return stored
