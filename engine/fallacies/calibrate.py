"""Fit the offline navigator's thresholds on the CALIBRATION set and write data/thresholds.json.

Method (recorded in the file):
1. For each calibration text, margin m = (best family's subtree similarity) − (best sound-anchor similarity)
   and the family that best branch belongs to.
2. τ is chosen among midpoints between sorted margins to maximise (clean rate + strict family rate) / 2,
   where clean rate = share of sound texts with m < τ (→ "no fallacy") and strict family rate = share of
   fallacious texts with m ≥ τ AND the right family; only τ with a clean rate ≥ 0.90 are eligible; ties
   are broken by the median of the optimal candidates (away from both edges).
3. The cue weight β (bonus on a fallacy whose cue pattern fires, data/cues.yaml) is chosen on the grid
   0, 0.005, …, 0.10: for each β, τ is fitted as in 2; the β with the best objective wins, ties broken
   by the median of the optimal β (as for τ). β = 0 is on the grid, so cues are used only if they help.
4. confidence = σ(a·m + b), a 1-D logistic regression of "fallacious" on m (Newton's method, small L2).
The evaluation sets (tests/fallacies/data/eval_fr.yaml, holdout2_fr.yaml) are never read here.

Run: .venv/bin/python -m engine.fallacies.calibrate [--dry-run]
"""

from __future__ import annotations

import sys

import numpy as np

from lexlogic.bridges.embeddings import embed_query
from lexlogic.engine.fallacies.labelled import CALIBRATION_SET, NONE, file_sha256, load_labelled
from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator
from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy
from lexlogic.engine.fallacies.thresholds import THRESHOLDS_FILE, NavigatorThresholds

MIN_CLEAN_RATE = 0.90


def _logistic(m: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> tuple[float, float]:
    X = np.stack([m, np.ones_like(m)], axis=1)
    w = np.zeros(2)
    for _ in range(50):
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (p - y) + l2 * w
        H = X.T @ (X * (p * (1 - p))[:, None]) + l2 * np.eye(2)
        w -= np.linalg.solve(H, grad)
    return float(w[0]), float(w[1])


BETA_GRID = [round(0.005 * k, 3) for k in range(21)]


def _fit_tau(m: np.ndarray, right_a: np.ndarray, fal: np.ndarray) -> tuple[float, float, float, float]:
    """(objective, τ, clean rate, strict family rate) for the best τ (median of the optimal midpoints)."""
    s = np.sort(m)
    candidates = np.concatenate([[s[0] - 1e-3], (s[:-1] + s[1:]) / 2, [s[-1] + 1e-3]])
    scored = []
    for tau in candidates:
        clean = float(np.mean(m[~fal] < tau))
        strict = float(np.mean((m[fal] >= tau) & right_a[fal]))
        if clean >= MIN_CLEAN_RATE:
            scored.append(((clean + strict) / 2, float(tau), clean, strict))
    best = max(x[0] for x in scored)
    optima = sorted(x for x in scored if x[0] == best)
    return optima[len(optima) // 2]


def _margins(beta: float, items, vectors: dict) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    taxonomy = builtin_taxonomy()
    nav = OfflineNavigator(thresholds=NavigatorThresholds(margin_conclude=0.0, cue_weight=beta), query_vectors=vectors)
    margins, right = [], []
    for item in items:
        m, fam = nav.margin(item.text, taxonomy)
        margins.append(m)
        right.append(fam.id == item.label)
    return np.asarray(margins), np.asarray(right)


def fit() -> NavigatorThresholds:
    items = load_labelled(CALIBRATION_SET)
    fal = np.asarray([item.label != NONE for item in items])
    vectors = {item.text: embed_query(item.text) for item in items}  # once, not once per β
    per_beta = []
    for beta in BETA_GRID:
        m, right_a = _margins(beta, items, vectors)
        per_beta.append((_fit_tau(m, right_a, fal), beta, m, right_a))
    best = max(x[0][0] for x in per_beta)
    optima = [x for x in per_beta if x[0][0] == best]
    (_, tau, clean, strict), beta, m, right_a = optima[len(optima) // 2]
    a, b = _logistic(m, fal.astype(float))
    detected = m[fal] >= tau
    no_cue = per_beta[0][0]
    return NavigatorThresholds(
        margin_conclude=round(tau, 5),
        beam_delta=0.01,
        cue_weight=beta,
        logistic_a=round(a, 3),
        logistic_b=round(b, 3),
        method=(
            "τ maximises (clean rate + strict family rate)/2 s.t. clean rate ≥ 0.90 on the calibration "
            "set (median of optimal midpoints); cue weight β chosen with τ on the grid 0..0.10 step "
            "0.005 by the same objective (median of optimal β); confidence = σ(a·margin+b) by "
            "logistic regression; beam_delta fixed by hand (not calibrated)"
        ),
        calibrated_on=CALIBRATION_SET.name,
        calibration_sha256=file_sha256(CALIBRATION_SET),
        figures={
            "n_clean": int((~fal).sum()),
            "n_fallacious": int(fal.sum()),
            "clean_no_fallacy_rate": round(clean, 3),
            "strict_family_rate": round(strict, 3),
            "detection_rate": round(float(detected.mean()), 3),
            "family_rate_at_root_ignoring_tau": round(float(right_a[fal].mean()), 3),
            "without_cues_clean_no_fallacy_rate": round(no_cue[2], 3),
            "without_cues_strict_family_rate": round(no_cue[3], 3),
            "optimal_beta_min": min(x[1] for x in optima),
            "optimal_beta_max": max(x[1] for x in optima),
        },
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    th = fit()
    print(th.model_dump_json(indent=2))
    if "--dry-run" not in argv:
        th.save()
        print(f"written {THRESHOLDS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
