"""Benchmark: `lexlogic impact` in this process and as one batch on the local pool (issue 30).

The shipped rules against a copy with the safe harbour at 24 months, on N cases of
``tests/distributed/make_cases.py``: wall and CPU seconds of each mode, the machine's load beside them,
and whether both reports are the same (they must be). Celery workers are measured by
``tests/distributed/test_impact_workers.py`` (a test, not a timing).

    .venv/bin/python -m benchmarks.impact [--cases 14] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.support: run as .venv/bin/python benchmarks/impact.py

from lexlogic.engine.jobs.impact_runs import impact
from lexlogic.engine.workbench.impact import Rules
from lexlogic.settings import Settings
from tests.distributed.make_cases import write_cases
from tests.workbench.planted import SAFE_HARBOUR, edited_rules

RULES = Path(__file__).resolve().parents[1] / "rules"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=14)
    ap.add_argument("--concurrency", type=int, default=2)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-impact-"))
    try:
        write_cases(tmp / "pf", args.cases)
        new = Rules(edited_rules(tmp / "r24", "rupture_brutale", "parameters.yaml", SAFE_HARBOUR), "24")
        base = Rules(RULES, "18")
        reports = {}
        for mode in ("here", "batch"):
            (tmp / mode).mkdir()
            load, t0, c0 = os.getloadavg()[0], time.perf_counter(), time.process_time()
            reports[mode] = impact(
                tmp / "pf",
                base,
                new,
                scratch=tmp / mode,
                mode=mode,  # type: ignore[arg-type]
                settings=Settings(),
                distributed=False,
                concurrency=args.concurrency,
            )
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(
                f"{mode:5s}: {args.cases} cases × 2 versions: {wall:6.1f} s wall, {cpu:5.1f} s CPU in this process "
                f"({wall / args.cases / 2:.2f} s per run; load {load:.1f} on {os.cpu_count()} cores)"
            )
        same = reports["here"].model_dump(mode="json") == reports["batch"].model_dump(mode="json")
        print(f"same report: {same}; flipped: {[c.case_id for c in reports['here'].flipped]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
