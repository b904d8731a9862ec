"""The sampled worlds of many cases of one structure, drawn on a CASE AXIS (issue 33, build item 3).

Why: a verdict's numbers draw 2^14 worlds of the case model's roots from its priors (``infer.sample_digits``,
seeded) and evaluate the ground circuit on each (``sampled_worlds``). The cases of one portfolio group share the
structure (one compiled circuit) and the seed, so every case's generator yields the SAME raw bits and uniforms;
only the thresholds (each case's priors) differ. Here they are drawn once, each case's thresholds compared on a
(case, variable, draw) axis, the categorical roots placed by ``searchsorted`` per case on the shared uniforms,
and the circuit evaluated ONCE over every case's worlds (it is evaluated world by world, so concatenating the
cases' worlds changes no world's result). Each case then gets its own ``SampledWorlds``: the same digits, mask,
observed atoms and generator state as ``sampled_worlds.sampled`` gives it alone (``infer.bernoulli_bits``'s
arithmetic, repeated here on the extra axis; tests/prob/test_case_axis.py holds them equal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lexlogic.engine.prob import infer
from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.sampled_worlds import SampledWorlds

_ONE = 4294967295  # the threshold of p = 1 exactly (``infer.bernoulli_bits``)


def _thresholds(priors: Sequence[list[np.ndarray]], bools: list[int]) -> np.ndarray:
    """(case, variable) ⌊P(true)·2^32⌋ as ``infer.bernoulli_bits`` rounds it (P read as ``infer._sampler`` does)."""
    p = np.array([[pr[k][1] / pr[k].sum() for k in bools] for pr in priors], dtype=np.float64).reshape(
        len(priors), len(bools)
    )
    return np.minimum(np.round(np.clip(p, 0.0, 1.0) * 4294967296.0), 4294967295.0).astype(np.uint32)


def _digits(
    prog: ProbProgram, priors: Sequence[list[np.ndarray]], n: int, seed: int
) -> tuple[np.ndarray, Mapping[str, Any]]:
    """(variable, case, draw) int16 digits of every case, and the generator's state after the draws (one state:
    every case draws as many bits and uniforms from the same seed)."""
    bools = [k for k, v in enumerate(prog.variables) if isinstance(v, BoolVar)]
    cats = [k for k, v in enumerate(prog.variables) if not isinstance(v, BoolVar)]
    rng = np.random.default_rng(seed)
    digits = np.empty((len(prog.variables), len(priors), n), dtype=np.int16)
    if bools:
        m = len(bools)
        bits = rng.bit_generator.random_raw((m * n + 1) // 2).view(np.uint32)[: m * n].reshape(m, n)
        thr = _thresholds(priors, bools)  # (case, variable)
        for i, k in enumerate(bools):  # each case's compare written straight into its digits (no bool copy)
            np.less(bits[i], thr[:, i, None], out=digits[k], casting="unsafe")
            digits[k, thr[:, i] == _ONE] = 1  # p = 1 exactly
    for k in cats:
        u = rng.random(n)
        # searchsorted(cum, u, side="right") is the count of cum's entries ≤ u: one compare per entry
        cum = np.array([np.cumsum(pr[k] / pr[k].sum())[:-1] for pr in priors])  # (case, options − 1)
        digits[k] = 0
        for e in range(cum.shape[1]):
            digits[k] += cum[:, e, None] <= u
    return digits, rng.bit_generator.state


def sampled_on_axis(
    prog: ProbProgram, c: infer.Compiled, priors: Sequence[list[np.ndarray]], n: int, seed: int
) -> list[SampledWorlds]:
    """The worlds of every case of ``prog``'s structure (compiled ``c``), one per prior list of ``priors``,
    ``n`` each with ``seed``: what ``sampled_worlds.sampled(prog_j, c, priors[j], n, seed)`` draws for each."""
    digits, state = _digits(prog, priors, n, seed)
    flat = digits.reshape(len(prog.variables), len(priors) * n)
    mask, obs = c.evaluate(flat)
    out = []
    for j in range(len(priors)):
        s = slice(j * n, (j + 1) * n)
        # own contiguous copies: a case's worlds do not keep the whole group's arrays alive
        own = (np.ascontiguousarray(digits[:, j]), mask[s].copy(), np.ascontiguousarray(obs[:, s]))
        out.append(SampledWorlds(*own, state=dict(state)))
    return out
