"""A linear "fallacious or sound" head over the memory's e5 vectors (issue 19).

Nearest neighbours answer "which fallacy does this look like"; they answer "is it a fallacy at all" badly
on long texts in a lawyer's register, whose nearest sound row and nearest fallacious row are about as
close. A logistic regression over every memory row (fallacious rows against sound rows, classes
balanced, L2) learns the direction that separates them. It is trained when the memory loads —
deterministic full-batch gradient descent, no shipped weights — so it always matches the shipped rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCALE = 8.0  # e5 vectors are close together: centred and scaled so a small L2 keeps a usable slope


@dataclass(frozen=True)
class LinearHead:
    mean: np.ndarray
    weights: np.ndarray
    bias: float

    def probability(self, q: np.ndarray) -> np.ndarray | float:
        """P(fallacious) for one vector (a float) or a matrix of vectors (an array)."""
        z = ((q - self.mean) * SCALE) @ self.weights + self.bias
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))
        return float(p) if np.ndim(p) == 0 else p


def fit_head(vectors: np.ndarray, fallacious: np.ndarray, lam: float = 1e-3, iters: int = 400) -> LinearHead:
    """Logistic regression, balanced classes, L2 ``lam``; ``fallacious`` is a boolean per row."""
    y = fallacious.astype(np.float64)
    mean = vectors.mean(axis=0)
    x = (vectors - mean).astype(np.float64) * SCALE
    n, d = x.shape
    share = min(max(y.mean(), 1e-6), 1 - 1e-6)
    cw = np.where(y == 1.0, 0.5 / share, 0.5 / (1.0 - share)) / n
    w = np.zeros(d)
    b = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -50.0, 50.0)))
        g = (p - y) * cw
        w -= x.T @ g + lam * w
        b -= float(g.sum())
    return LinearHead(mean=mean.astype(np.float32), weights=w.astype(np.float32), bias=b)
