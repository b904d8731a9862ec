"""A contraction path from an elimination ordering (min-fill / min-degree), as opt_einsum takes it.

Why (issue 33): opt_einsum's greedy planner looks at every pair of operands at every step; on a real
case's circuit (hundreds of small factors) planning took most of the time (88 % at 30 facts) and its
plan could be far wider than the circuit's treewidth ("contraction too wide, 8e59 entries"). Variable
elimination along a min-fill ordering — the classic tree-decomposition heuristic for sparse, almost
tree-shaped graphs — gives intermediates bounded by the ordering's induced width, and costs
O(nodes × degree²) to plan. Both min-fill and min-degree are tried; the cheaper plan (sum of the
intermediates' sizes, then the largest) is kept.

A path is a list of tuples of positions in opt_einsum's operand list: the operands at those positions
are popped, contracted, and the result appended (indices used nowhere else are summed out).
"""

from __future__ import annotations

import heapq
import math

from lexlogic.logic.errors import LexlogicError

Path = list[tuple[int, ...]]


def _graph(inputs: list[str]) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = {}
    for term in inputs:
        for a in term:
            adj.setdefault(a, set()).update(b for b in term if b != a)
    return adj


def _score(
    adj: dict[str, set[str]], v: str, fill: bool, logd: dict[str, float], max_log2: float = math.inf
) -> tuple[float, float]:
    nb = adj[v]
    size = logd[v] + sum(logd[u] for u in nb)
    if size - logd[v] > max_log2:
        return (math.inf, size)  # too wide to eliminate whatever its fill: last, and not counted (O(deg²))
    if not fill:
        return (len(nb), size)
    # pairs of neighbours not yet adjacent, by set differences (in C) instead of a Python loop over the pairs:
    # each missing pair is counted from both ends, and each a counts itself (a ∉ adj[a])
    missing = (sum(len(nb - adj[a]) for a in nb) - len(nb)) // 2
    return (missing, size)


class TooWide(LexlogicError):
    """The ordering reached an intermediate wider than asked: ``log2`` is that intermediate's size (a lower
    bound of the plan's largest), known before the rest of the ordering is searched."""

    def __init__(self, log2: float) -> None:
        super().__init__(f"an intermediate of 2^{log2:.1f} entries")
        self.log2 = log2


def elimination_order(
    inputs: list[str], sizes: dict[str, int], fill: bool = True, max_log2: float | None = None
) -> list[str]:
    """Greedy min-fill (or min-degree) ordering; scores refreshed for the eliminated node's neighbours.
    ``max_log2``: give up (``TooWide``) as soon as eliminating a node leaves a tensor wider than 2^max_log2
    — the plan would be refused anyway, and on a dense graph the rest of the search is what costs."""
    adj = _graph(inputs)
    logd = {a: math.log2(max(sizes[a], 1)) for a in adj}
    limit = math.inf if max_log2 is None else max_log2
    heap = [(*_score(adj, v, fill, logd, limit), v) for v in adj]
    heapq.heapify(heap)
    current = {v: (s0, s1) for s0, s1, v in heap}
    order: list[str] = []
    done: set[str] = set()
    while heap:
        s0, s1, v = heapq.heappop(heap)
        if v in done or current.get(v) != (s0, s1):
            continue
        if max_log2 is not None and s1 - logd[v] > max_log2:
            raise TooWide(s1 - logd[v])
        done.add(v)
        order.append(v)
        nb = adj.pop(v)
        for a in nb:
            adj[a].discard(v)
            adj[a] |= nb - {a}
        for a in nb:
            sc = _score(adj, a, fill, logd, limit)
            if current.get(a) != sc:
                current[a] = sc
                heapq.heappush(heap, (*sc, a))
    return order


def path_from_order(inputs: list[str], order: list[str], sizes: dict[str, int]) -> tuple[Path, float, float]:
    """Bucket elimination as pairwise steps (smallest operands first). Returns (path, total entries
    of the intermediates, largest intermediate)."""
    ops: dict[int, frozenset[str]] = {i: frozenset(t) for i, t in enumerate(inputs)}
    live = list(range(len(inputs)))  # opt_einsum's operand list, by operand id
    where: dict[str, set[int]] = {}
    for i, s in ops.items():
        for a in s:
            where.setdefault(a, set()).add(i)
    path: Path = []
    total = 0.0
    largest = 0.0

    def size(s: frozenset[str]) -> float:
        return float(math.prod(sizes[a] for a in s))

    def contract(ids: list[int]) -> None:
        nonlocal total, largest
        positions = tuple(live.index(i) for i in ids)
        path.append(positions)
        for k in sorted(positions, reverse=True):
            live.pop(k)
        merged = frozenset().union(*(ops.pop(i) for i in ids))
        out = frozenset(a for a in merged if where[a] - set(ids))
        total += size(merged)
        largest = max(largest, size(out))
        new = len(inputs) + len(path)
        for a in merged:
            where[a] -= set(ids)
            if a in out:
                where[a].add(new)
        ops[new] = out
        live.append(new)

    for v in order:
        while len(where.get(v, ())) > 1:
            two = sorted(where[v], key=lambda i: size(ops[i]))[:2]
            contract(two)
        if len(where.get(v, ())) == 1 and len(live) > 1:
            contract(list(where[v]))  # sum v out now: no other operand reads it
    while len(live) > 1:
        contract(live[-2:])
    if not path:
        path.append((0,))
    return path, total, largest


def best_path(eq: str, shapes: list[tuple[int, ...]], max_log2: float | None = None) -> tuple[Path, float]:
    """The cheaper of the min-fill and min-degree plans for ``eq`` (output scalar). Returns (path,
    largest intermediate). With ``max_log2``, an ordering wider than that is dropped as soon as it is;
    ``TooWide`` (the narrower of the two bounds) when both are."""
    inputs = eq.split("->")[0].split(",")
    sizes: dict[str, int] = {}
    for term, shape in zip(inputs, shapes):
        for a, d in zip(term, shape):
            sizes[a] = d
    best: tuple[float, float, Path] | None = None
    wide: list[float] = []
    for fill in (True, False):
        try:
            order = elimination_order(inputs, sizes, fill, max_log2)
        except TooWide as exc:
            wide.append(exc.log2)
            continue
        path, total, largest = path_from_order(inputs, order, sizes)
        if best is None or (total, largest) < best[:2]:
            best = (total, largest, path)
    if best is None:
        raise TooWide(min(wide))
    return best[2], best[1]
