"""P(a number of the pack exceeds a value), from its law, without sampling.

Why: an appreciation that a law decides (the judge finds the notice insufficient ⇔ the notice he deems
reasonable exceeds the notice given) must have the probability the same law gives the number, so one event
has one probability in the liability and in the damages. The exact model needs it as a number per world:
the lognormal regression's parameter uncertainty is integrated by a Gauss–Hermite product rule (deterministic,
error far below the figures printed), the other laws in closed form.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from lexlogic.logic.weights import NumberLaw

NODES = 12  # Gauss–Hermite points per dimension of (a, b, ln σ): 1 728 nodes


@lru_cache(maxsize=4)
def _rule(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of E[f(U)], U ~ N(0, I₃)."""
    x, w = np.polynomial.hermite_e.hermegauss(k)
    w = w / math.sqrt(2 * math.pi)
    grid = np.stack(np.meshgrid(x, x, x, indexing="ij"), -1).reshape(-1, 3)
    weights = np.prod(np.stack(np.meshgrid(w, w, w, indexing="ij"), -1).reshape(-1, 3), axis=1)
    return grid, weights


def _phi(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def _number(v: Any) -> float:
    return 1.0 if v is True else 0.0 if v in (False, None) else float(v)


def exceedance(law: NumberLaw, values: dict[str, Any], threshold: float) -> float:
    """P(X > threshold) under ``law``, with its covariate and effects read from ``values`` (yes/no as 1/0)."""
    if law.max is not None and threshold >= law.max:
        return 0.0
    if law.min is not None and threshold < law.min:
        return 1.0
    if law.dist == "normal":
        assert law.mu is not None and law.sigma is not None
        return float(1.0 - _phi(np.array([(threshold - law.mu) / law.sigma]))[0])
    if law.dist == "uniform":
        assert law.low is not None and law.high is not None
        return float(min(1.0, max(0.0, (law.high - threshold) / (law.high - law.low))))
    if law.dist == "discrete":
        return float(sum(p for v, p in zip(law.values, law.probs) if v > threshold))
    if threshold <= 0:
        return 1.0
    shift = sum(e * _number(values.get(f)) for f, e in law.effects.items())
    ln_x = 0.0
    if law.covariate is not None:
        ln_x = math.log(max(_number(values.get(law.covariate)) / law.divide, 1e-9))
    grid, weights = _rule(NODES)
    z = np.asarray(law.mean) + grid @ np.linalg.cholesky(np.asarray(law.cov)).T
    loc = z[:, 0] + z[:, 1] * ln_x + shift
    return float(weights @ _phi((loc - math.log(threshold)) / np.exp(z[:, 2])))
