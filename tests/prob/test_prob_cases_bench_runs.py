"""``benchmarks/prob_cases.py`` — issue 33's real-case table, ours vs ProbLog — really measures: the smallest
size runs to the end with a ratio and an agreement figure. Why: when issue 33's owned memos removed the engine's
``clear_cache``, every « ours » row of this benchmark failed on import and its summary still printed
« largest |Δp| 0.0 »; nothing ran it, so no one saw for two sessions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_real_case_benchmark_measures_both_engines() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "prob_cases.py"), "--sizes", "20", "--orderings", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert re.search(r"^N=20: median ProbLog/ours \d", out.stdout, re.M), out.stdout
    worst = re.search(r"largest \|Δp\| vs ProbLog: (\S+)", out.stdout)
    assert worst and float(worst.group(1)) <= 1e-9, out.stdout


def test_a_failed_measurement_fails_the_run() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "prob_cases.py"), "--sizes", "20", "--orderings", "1"]
        + ["--timeout", "0.01"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert out.returncode != 0
    assert "measurement(s) failed" in out.stderr
