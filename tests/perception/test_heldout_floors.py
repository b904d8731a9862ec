"""REGRESSION GUARD, not a target: the frozen independent set (tests/perception/heldout, 132 texts written
by people who never read the extractor) scored by benchmarks/perception.py. The FLOORS are the figures
measured at the end of issue 18's second session (see notes/issue-18.md: precision 0.820, recall 0.656,
outcome agreement 0.859, force majeure 3 false positives), rounded down; the issue's targets (recall 0.85,
precision 0.95, outcome agreement 0.90) are NOT met and this test does not pretend they are. Facts added to
the pack after the set was frozen are not scored there (the benchmark reads the pack's vocabulary at the
freeze date from git). Outcome agreement depends on the pack's rules, which other work changes, so its
floor has a margin."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FLOORS = {"precision": 0.82, "recall": 0.65, "outcome_agreement": 0.83}  # measured 0.820 / 0.656 / 0.859


@pytest.mark.slow
def test_frozen_set_does_not_regress():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import perception as bench  # benchmarks/perception.py

    res = bench.run([bench.HELDOUT])
    assert res["texts"] == 132
    for key, floor in FLOORS.items():
        assert res[key] >= floor, (key, res[key])
    # the allegation rule: a defence's force majeure is never read as proven more often than measured (the
    # previous session measured 2; this one 3: a regression reported in the note, not hidden)
    assert res["per_fact"]["force_majeure"]["fp"] <= 3
