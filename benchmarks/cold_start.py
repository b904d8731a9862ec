"""Whole-process time of `lexlogic analyze FACTS.json` (a fresh interpreter each run: imports included).

Prints the median of N runs (default 10) and, for reference, the time of a bare `python -c pass` and of
importing the CLI only, so what the command itself costs is visible. Issue 17's target: median < 1.5 s.
Run: .venv/bin/python benchmarks/cold_start.py [N]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"
LEXLOGIC = Path(sys.executable).with_name("lexlogic")


def timed(cmd: list[str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("import the CLI", [sys.executable, "-c", "import lexlogic.api.cli"]),
        ("lexlogic analyze FACTS.json", [str(LEXLOGIC), "analyze", str(FACTS), "--no-input"]),
        (
            "lexlogic analyze FACTS.json --format json",
            [str(LEXLOGIC), "analyze", str(FACTS), "--no-input", "--format", "json"],
        ),
    ]
    print(f"{'command':<45} {'median':>8} {'min':>8} {'max':>8}  (n={n})")
    for name, cmd in rows:
        ts = timed(cmd, n)
        print(f"{name:<45} {statistics.median(ts):8.3f} {min(ts):8.3f} {max(ts):8.3f}")


if __name__ == "__main__":
    main()
