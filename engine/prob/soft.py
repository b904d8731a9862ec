"""Alexy soft rules → factors on worlds.

Mapping (why): the weight formula's score s = (I1·W1·R1)/(I2·W2·R2) is read as a LIKELIHOOD RATIO
for the rule's condition atom c: a world where c holds gets factor q = E[s/(1+s)], a world where it does
not gets 1 − q = E[1/(1+s)]. Hence

* s = 1 (Alexy's stalemate) is neutral (q = ½ on both sides, the factor cancels in the ratio);
* for a fixed score, the posterior odds of c are the prior odds times s — the balancing moves the
  odds by exactly the score, and never makes a world impossible (only the hard rules do that);
* when I, W, R are distributions, s is a latent variable and marginalising it gives E[s/(1+s)]
  (equivalently: a latent "claimant prevails" coin with that probability, observed to agree with c);
* s/(1+s) is increasing in s, so raising the claimant's I, W or R (or lowering the defence's) raises
  q and can never lower P(c) — the monotonicity the tests check.

Magnitudes: fixed and discrete scales are enumerated exactly; a Beta is discretised by 32-point
Gauss–Legendre quadrature on its density (exact to ~1e-9 for a, b ≥ 1; coarser when a or b < 1).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from lexlogic.logic.weights import Beta, Fixed, Principle, Scale, SoftRule

_GL_NODES = 32


@lru_cache(maxsize=256)
def _beta_points(a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(_GL_NODES)
    x = (x + 1.0) / 2.0
    logpdf = (a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x)
    p = w * np.exp(logpdf - logpdf.max())
    return x, p / p.sum()


def points(m: Fixed | Beta | Scale) -> tuple[np.ndarray, np.ndarray]:
    """A magnitude as (values, probabilities)."""
    if isinstance(m, Fixed):
        return np.array([m.value]), np.array([1.0])
    if isinstance(m, Scale):
        return np.asarray(m.values, float), np.asarray(m.probs, float)
    return _beta_points(m.a, m.b)


def _product(p: Principle) -> tuple[np.ndarray, np.ndarray]:
    vals, probs = np.array([1.0]), np.array([1.0])
    for m in (p.intensity, p.weight, p.reliability):
        v, q = points(m)
        vals = np.multiply.outer(vals, v).ravel()
        probs = np.multiply.outer(probs, q).ravel()
    return vals, probs


def factor(rule: SoftRule) -> float:
    """q = E[s/(1+s)]: the factor of worlds where the condition holds (1 − q where it does not)."""
    nv, np_ = _product(rule.principle_claimant)
    dv, dp = _product(rule.principle_defence)
    if nv.size * dv.size > 4_000_000:  # pragma: no cover - only with many Beta magnitudes
        rng = np.random.default_rng(0)
        n = rng.choice(nv, size=1 << 20, p=np_)
        d = rng.choice(dv, size=1 << 20, p=dp)
        return float(np.mean(n / (n + d)))
    q = np.outer(np_, dp) * (nv[:, None] / (nv[:, None] + dv[None, :]))
    out = float(q.sum())
    return min(max(out, 0.0), 1.0) if math.isfinite(out) else 0.5
