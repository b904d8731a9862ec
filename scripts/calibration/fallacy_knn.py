"""Joint calibration of the memory navigator (τ, β, m, θ) on DEVELOPMENT data only; writes
``engine/fallacies/data/knn_thresholds.json``. Since the second session of issue 19 the development texts
are also memory rows, so the fit is cross-validated: this is ``tests/fallacies/cv.py --write``.

    .venv/bin/python scripts/calibration/fallacy_knn.py [--dry-run]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: the tests' scorers and data

from tests.fallacies import cv


def main() -> None:
    dry = "--dry-run" in sys.argv
    sys.argv = [sys.argv[0]] + ([] if dry else ["--write"])
    cv.main()


if __name__ == "__main__":
    main()
