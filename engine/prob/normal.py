"""The standard normal's cdf and inverse cdf on whole arrays (no per-draw Python call).

Why (issue 33): the notice law conditioned on liability draws through the inverse cdf; with
``np.vectorize(NormalDist().inv_cdf)`` each of the 2^14 draws was a Python call. The cdf is
``erfc`` (the C library's, through a ufunc); the inverse cdf is Wichura's AS241 rational approximation —
the algorithm ``statistics.NormalDist.inv_cdf`` uses, same coefficients — evaluated with numpy.
"""

from __future__ import annotations

import math

import numpy as np

# AS241 (Wichura 1988), the coefficients of statistics._normal_dist_inv_cdf, highest degree first
_A = (2509.0809287301226727, 33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
      13731.693765509461125, 1971.5909503065514427, 133.14166789178437745, 3.387132872796366608)  # fmt: skip
_B = (5226.495278852854561, 28729.085735721942674, 39307.89580009271061, 21213.794301586595867,
      5394.1960214247511077, 687.1870074920579083, 42.313330701600911252, 1.0)  # fmt: skip
_C = (7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177, 1.27045825245236838258,
      3.64784832476320460504, 5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734)  # fmt: skip
_D = (1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966, 0.14810397642748007459,
      0.68976733498510000455, 1.6763848301838038494, 2.05319162663775882187, 1.0)  # fmt: skip
_E = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386, 0.026532189526576123093,
      0.29656057182850489123, 1.7848265399172913358, 5.4637849111641143699, 6.6579046435011037772)  # fmt: skip
_F = (2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5, 7.868691311456132591e-4,
      0.0148753612908506148525, 0.13692988092273580531, 0.59983220655588793769, 1.0)  # fmt: skip


def _poly(coefs: tuple[float, ...], r: np.ndarray) -> np.ndarray:
    out = np.full_like(r, coefs[0])
    for c in coefs[1:]:
        out = out * r + c
    return out


def cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x) = erfc(−x/√2)/2, elementwise (``math.erfc`` mapped over a list: no object array)."""
    x = np.asarray(x, dtype=np.float64)
    z = (-x / math.sqrt(2.0)).ravel().tolist()
    return 0.5 * np.fromiter(map(math.erfc, z), dtype=np.float64, count=len(z)).reshape(x.shape)


def inv_cdf(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹(p) for p in (0, 1), elementwise (AS241); each branch's polynomials on its own entries only."""
    p = np.asarray(p, dtype=np.float64)
    q = p - 0.5
    out = np.empty_like(q)
    central = np.abs(q) <= 0.425
    at = np.flatnonzero(central)
    qc = q[at]
    r = 0.180625 - qc * qc
    out[at] = qc * _poly(_A, r) / _poly(_B, r)
    at = np.flatnonzero(~central)
    qt, pt = q[at], p[at]
    tail = np.sqrt(-np.log(np.where(qt <= 0.0, pt, 1.0 - pt).clip(1e-300, None)))
    x_tail = np.empty_like(tail)
    near = tail <= 5.0
    x_tail[near] = _poly(_C, tail[near] - 1.6) / _poly(_D, tail[near] - 1.6)
    far = ~near
    x_tail[far] = _poly(_E, tail[far] - 5.0) / _poly(_F, tail[far] - 5.0)
    out[at] = np.where(qt < 0.0, -x_tail, x_tail)
    return out
