"""The fitting of the reader's calibration (scripts/calibrate_reader.py, issue 29) on small synthetic readings:
the map is monotone, a frozen set is refused, and the rule that decides whether another set joins the fit
keeps out a set whose readings are right more often than the fitting set's (a set the reader was tuned on)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import calibrate_reader as cr


def rows(n_texts: int, p_right: dict[float, float], seed: int, tag: str) -> list[dict[str, Any]]:
    """Readings of a reader whose raw score ``s`` is right with probability ``p_right[s]``."""
    rnd = random.Random(seed)
    out = []
    for t in range(n_texts):
        for raw, p in p_right.items():
            for fact, vtype in (("a_date", "date"), ("a_flag", "bool")):
                out.append(
                    {
                        "text": f"{tag}/{t}",
                        "fact": fact,
                        "type": vtype,
                        "raw": raw,
                        "alleged": False,
                        "right": rnd.random() < p,
                    }
                )
    return out


BLIND = {0.7: 0.65, 0.8: 0.75, 0.9: 0.85}
TUNED = {0.7: 0.98, 0.8: 0.99, 0.9: 1.0}  # the reader was tuned on these texts: right almost always


def test_the_fitted_map_is_monotone_and_near_the_frequencies() -> None:
    params = cr.fit(rows(60, BLIND, 1, "calib"), 40.0)
    values = [
        cr.predict(params, {"fact": "a_date", "type": "date", "raw": r, "alleged": False}) for r in (0.7, 0.8, 0.9)
    ]
    assert values == sorted(values)
    assert all(abs(v - BLIND[r]) < 0.08 for v, r in zip(values, (0.7, 0.8, 0.9)))


def test_a_set_the_reader_was_tuned_on_does_not_join_the_fit() -> None:
    verdict = cr.extra_helps(rows(40, BLIND, 2, "calib"), rows(40, TUNED, 3, "dev"), 40.0)
    assert verdict["log_loss_with_extra"] > verdict["log_loss_alone"]
    assert verdict["ece_with_extra"] > verdict["ece_alone"]


def test_a_frozen_set_is_refused(tmp_path: Path) -> None:
    frozen = tmp_path / "some_set"
    frozen.mkdir()
    (frozen / "FROZEN").write_text("Frozen: 2026-11-28\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="frozen"):
        cr.set_dir(str(frozen))
    for name in ("heldout", "transfer"):
        with pytest.raises(SystemExit, match="frozen"):
            cr.set_dir(name)
