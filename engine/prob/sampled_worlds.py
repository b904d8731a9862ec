"""The sampled worlds of a verdict's numbers, drawn once per world class and kept.

Why (issue 33): a verdict's numbers draw 2^14 worlds of the case model's roots from their priors (seeded), and
evaluate the ground program on each (mask, observed atoms). Those draws depend only on the model's structure,
its priors, the sample size and the seed — not on the case's amounts or dates — so every verdict of the same
class of worlds (a batch group, a what-if on the numbers, a case decided again) would draw and evaluate them
again, and factorise the same root columns. Here they are drawn once and kept (read-only), with the
generator's state after the draws (what follows — the laws' draws — continues from it, so every number is the
one an uncached verdict prints) and each root's column with its codes (``jl_vec.Codes``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from lexlogic.engine.prob import infer, jl_vec
from lexlogic.engine.prob.model import ProbProgram
from lexlogic.logic.memos import Memos, own

_SIZE = 16  # world classes kept (a few MB each at 2^14 draws)


class SampledWorlds:
    """One class of worlds: the draws, their evaluation, the generator's state after them, the roots' columns."""

    def __init__(self, digits: np.ndarray, mask: np.ndarray, obs: np.ndarray, state: Mapping[str, Any]) -> None:
        for a in (digits, mask, obs):
            a.flags.writeable = False
        self.digits, self.mask, self.obs, self.state = digits, mask, obs, state
        self._columns: dict[tuple[int, tuple[float, ...] | None], np.ndarray] = {}
        self._codes = jl_vec.Codes()
        self._lock = threading.Lock()

    def column(self, k: int, values: tuple[float, ...] | None = None) -> np.ndarray:
        """Root ``k``'s value per world (read-only): 0/1 for a yes/no root, ``values[digit]`` for a number."""
        key = (k, values)
        with self._lock:
            col = self._columns.get(key)
            if col is None:
                d = self.digits[k]
                col = d.astype(np.float64) if values is None else np.array(values)[d]
                col.flags.writeable = False
                if values is None or len(set(values)) == len(values):  # one value per digit: the digits are codes
                    self._codes.adopt(col, d, 2 if values is None else len(values))
                self._columns[key] = col
            return col

    def codes(self) -> jl_vec.Codes:
        """The roots' columns' codes, for one verdict to extend."""
        with self._lock:
            return self._codes.copy()


def sampled(
    prog: ProbProgram, c: infer.Compiled, priors: list[np.ndarray], n: int, seed: int, memos: Memos | None = None
) -> SampledWorlds:
    """The worlds of ``prog`` (compiled ``c``) drawn from ``priors``: ``n`` of them with ``seed``, kept by the
    owner of ``memos`` (the run, the verdict service; none: drawn for this call)."""
    cache = own(memos).lru("prob.sampled_worlds", _SIZE)
    # the compiled circuit stands for the structure (one per structure key, ``infer.compiled``): its identity,
    # held with the entry so it is not reused, spares hashing the program again (~0.15 ms)
    key = (id(c), tuple(p.tobytes() for p in priors), n, seed)
    hit = cache.get(key)
    if hit is not None and hit[0] is c:
        return cast(SampledWorlds, hit[1])
    rng = np.random.default_rng(seed)
    digits = infer.drawn_digits(prog, priors, n, rng)
    mask, obs = c.evaluate(digits)
    worlds = SampledWorlds(digits, mask, obs, rng.bit_generator.state)
    cache.put(key, (c, worlds))
    return worlds
