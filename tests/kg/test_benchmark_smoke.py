"""The benchmark script stays runnable (tiny size; the real figures are in notes/issue-9.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_runs_small():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kg.py"), "-n", "2000", "--runs", "1", "--no-sql"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "raw assertions: 2,000" in proc.stdout and "traversal depth 3" in proc.stdout
