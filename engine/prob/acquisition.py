"""Acquisition: entropy of the verdict and expected information gain of every uncertain variable.

EIG(X) = H(T) − Σ_x P(X=x | ev) · H(T | X=x, ev), in bits, with T the target atom, and the
probabilities taken under the SAME posterior as the verdict (priors × masks × soft factors × answers).
Exact when the worlds are enumerated (from the per-variable marginals, all variables in O(N)); a
plug-in Monte Carlo estimate from the same weighted samples otherwise.
"""

from __future__ import annotations

import math

import numpy as np


def entropy(p: float) -> float:
    """Binary Shannon entropy in bits (0 at p ∈ {0, 1})."""
    p = float(p)
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1.0 - p) * math.log2(1.0 - p))


def eig(per_var: np.ndarray, p_target: float) -> float:
    """per_var (2, d): [P(X=x|ev), P(X=x, T|ev)] → EIG of observing X, bits (≥ 0)."""
    cond = 0.0
    for px, pxt in zip(per_var[0].tolist(), per_var[1].tolist()):
        if px > 0.0:
            cond += px * entropy(pxt / px)
    return max(0.0, entropy(p_target) - cond)
