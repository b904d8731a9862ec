"""The array normal cdf / inverse cdf (engine.prob.normal) equal the standard library's, point by point."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from lexlogic.engine.prob import normal


def test_inverse_cdf_equals_normaldist() -> None:
    p = np.concatenate([np.random.default_rng(0).random(2000), [1e-300, 1e-12, 0.075, 0.5, 0.925, 1 - 1e-12]])
    ref = np.array([NormalDist().inv_cdf(float(x)) for x in p])
    assert np.max(np.abs(normal.inv_cdf(p) - ref)) <= 1e-12


def test_cdf_equals_normaldist() -> None:
    x = np.linspace(-9.0, 9.0, 2001)
    ref = np.array([NormalDist().cdf(float(v)) for v in x])
    assert np.max(np.abs(normal.cdf(x) - ref)) <= 1e-15
