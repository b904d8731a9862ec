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

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from lexlogic.engine.prob import infer
from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.sampled_worlds import SampledWorlds

TOGETHER = 1 << 17  # worlds drawn and evaluated at once: 8 cases of 2^14 (the peak memory follows it)
_ONE = 4294967295  # the threshold of p = 1 exactly (``infer.bernoulli_bits``)


def _thresholds(priors: Sequence[list[np.ndarray]], bools: list[int]) -> np.ndarray:
    """(case, variable) ⌊P(true)·2^32⌋ as ``infer.bernoulli_bits`` rounds it (P read as ``infer._sampler`` does)."""
    p = np.array([[pr[k][1] / pr[k].sum() for k in bools] for pr in priors], dtype=np.float64).reshape(
        len(priors), len(bools)
    )
    return np.minimum(np.round(np.clip(p, 0.0, 1.0) * 4294967296.0), 4294967295.0).astype(np.uint32)


class _Shared(NamedTuple):
    """What every case of the structure draws from the seed: the raw bits of its yes/no roots, the uniforms of
    its categorical roots, the generator's state after them (the laws' draws continue from it)."""

    bools: list[int]
    cats: list[int]
    bits: np.ndarray  # (yes/no root, draw) uint32
    uniforms: list[np.ndarray]
    state: Mapping[str, Any]


def _shared(prog: ProbProgram, n: int, seed: int) -> _Shared:
    """The draws of ``infer.sample_digits``, in its order, before any case's priors are read."""
    bools = [k for k, v in enumerate(prog.variables) if isinstance(v, BoolVar)]
    cats = [k for k, v in enumerate(prog.variables) if not isinstance(v, BoolVar)]
    rng = np.random.default_rng(seed)
    m = len(bools)
    bits = rng.bit_generator.random_raw((m * n + 1) // 2).view(np.uint32)[: m * n].reshape(m, n)
    uniforms = [rng.random(n) for _ in cats]
    return _Shared(bools, cats, bits, uniforms, rng.bit_generator.state)


def _digits(shared: _Shared, n_vars: int, priors: Sequence[list[np.ndarray]]) -> np.ndarray:
    """(variable, case, draw) int16 digits of these cases, from the shared draws."""
    n = shared.bits.shape[1] if shared.bools else shared.uniforms[0].size
    digits = np.empty((n_vars, len(priors), n), dtype=np.int16)
    if shared.bools:
        thr = _thresholds(priors, shared.bools)  # (case, variable)
        for i, k in enumerate(shared.bools):  # each case's compare written straight into its digits (no bool copy)
            np.less(shared.bits[i], thr[:, i, None], out=digits[k], casting="unsafe")
            digits[k, thr[:, i] == _ONE] = 1  # p = 1 exactly
    for k, u in zip(shared.cats, shared.uniforms, strict=True):
        # searchsorted(cum, u, side="right") is the count of cum's entries ≤ u: one compare per entry
        cum = np.array([np.cumsum(pr[k] / pr[k].sum())[:-1] for pr in priors])  # (case, options − 1)
        digits[k] = 0
        for e in range(cum.shape[1]):
            digits[k] += cum[:, e, None] <= u
    return digits


def sampled_on_axis(
    prog: ProbProgram, c: infer.Compiled, priors: Sequence[list[np.ndarray]], n: int, seed: int
) -> Iterator[SampledWorlds]:
    """The worlds of every case of ``prog``'s structure (compiled ``c``), one per prior list of ``priors``, in
    order, ``n`` each with ``seed``: what ``sampled_worlds.sampled(prog_j, c, priors[j], n, seed)`` draws for each.
    Drawn ``TOGETHER`` worlds at a time (whole cases) as they are read: the circuit's working table has a row of
    bits per ground atom and every case's worlds are its own copies, so the peak memory follows the block, not
    the group (a caller that uses each case's worlds before reading the next holds one block at a time)."""
    shared = _shared(prog, n, seed)
    n_vars = len(prog.variables)
    step = max(1, TOGETHER // max(n, 1))
    for b in range(0, len(priors), step):
        block = priors[b : b + step]
        digits = _digits(shared, n_vars, block)
        mask, obs = c.evaluate(digits.reshape(n_vars, len(block) * n))
        for j in range(len(block)):
            s = slice(j * n, (j + 1) * n)
            # own contiguous copies: a case's worlds do not keep the block's arrays alive
            own = (np.ascontiguousarray(digits[:, j]), mask[s].copy(), np.ascontiguousarray(obs[:, s]))
            yield SampledWorlds(*own, state=copy.deepcopy(shared.state))
