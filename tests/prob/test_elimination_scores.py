"""The min-fill score by set differences equals the count over pairs of neighbours (issue 33: the pairwise
Python loop was most of the planning of a 60-fact real case), so the orderings, hence the plans, are unchanged."""

from __future__ import annotations

import itertools
import math
import random

from lexlogic.engine.prob import elimination


def _pairs_score(adj: dict[str, set[str]], v: str, logd: dict[str, float]) -> tuple[float, float]:
    nb = adj[v]
    size = logd[v] + sum(logd[u] for u in nb)
    return (sum(1 for a, b in itertools.combinations(sorted(nb), 2) if b not in adj[a]), size)


def test_fill_scores_and_orders_equal_the_pairwise_count() -> None:
    rnd = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for _ in range(40):
        nodes = letters[: rnd.randint(3, 30)]
        inputs = ["".join(rnd.sample(nodes, rnd.randint(1, min(4, len(nodes))))) for _ in range(rnd.randint(2, 40))]
        sizes = {a: rnd.choice([2, 2, 3, 9]) for a in nodes}
        adj = elimination._graph(inputs)
        logd = {a: math.log2(sizes[a]) for a in adj}
        for v in adj:
            assert elimination._score(adj, v, True, logd) == _pairs_score(adj, v, logd)
        order = elimination.elimination_order(inputs, sizes, True)
        assert sorted(order) == sorted(adj)
