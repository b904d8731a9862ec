"""Timing of the whole offline analysis of the example dossier (ingest → perceive → plan → evaluate →
question → report), median of 5, cold and warm, with the share of each stage.

cold: a fresh process, an empty document/OCR cache and a new SQLite database per run (the wall time
      of the subprocess includes Python start-up and imports; "in-run" excludes them).
warm: the same process after one warm-up run (imports done, clingo ready, OCR cache filled), a new
      case id each time (the full FSM runs again; nothing is reused from a previous case state).

    .venv/bin/python benchmarks/pipeline.py [--quick]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"
STAGES = ("ingest", "perceive", "evidence_graph", "plan", "analyse", "evaluate", "execute", "persist", "report")
COLD = (
    "import sys, json; from lexlogic.engine.case.dossier import run_dossier; "
    "from lexlogic.engine.packs.library import PackLibrary; from lexlogic.settings import Settings; "
    "from lexlogic.api.report_html import render_report; "
    "s = Settings(); "
    "r = run_dossier(sys.argv[1], packs=PackLibrary(s.rules_dir), settings=s, db_url=sys.argv[2], "
    "out_dir=sys.argv[3], render_report=render_report); "
    "print(json.dumps({'seconds': r.seconds, 'timings': r.timings, 'status': r.status}))"
)


def shares(timings: list[dict[str, float]]) -> dict[str, float]:
    med = {s: statistics.median(t.get(s, 0.0) for t in timings) for s in STAGES}
    total = sum(med.values()) or 1.0
    return {s: round(100 * v / total, 1) for s, v in med.items()}


def main() -> None:
    n = 2 if "--quick" in sys.argv else 5
    cold_wall, cold_in, cold_t = [], [], []
    for i in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "LEXLOGIC_HOME": tmp}
            env.pop("LEXLOGIC_LLM_BASE_URL", None)
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", COLD, str(DOSSIER), f"sqlite:///{tmp}/b.db", tmp],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            cold_wall.append(time.perf_counter() - t)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            cold_in.append(r["seconds"])
            cold_t.append(r["timings"])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LEXLOGIC_HOME"] = tmp
        os.environ.pop("LEXLOGIC_LLM_BASE_URL", None)
        from lexlogic.api.report_html import render_report
        from lexlogic.engine.case.dossier import run_dossier
        from lexlogic.engine.packs.library import PackLibrary
        from lexlogic.settings import SHIPPED_RULES

        packs = PackLibrary(SHIPPED_RULES)
        db = f"sqlite:///{tmp}/w.db"
        first = run_dossier(DOSSIER, packs=packs, db_url=db, case_id="warmup", out_dir=tmp, render_report=render_report)
        warm, warm_t = [], []
        for i in range(n):
            t = time.perf_counter()
            r = run_dossier(
                DOSSIER, packs=packs, db_url=db, case_id=f"warm-{i}", out_dir=tmp, render_report=render_report
            )
            warm.append(time.perf_counter() - t)
            warm_t.append(r.timings)
    print(
        f"example dossier: {len(list(DOSSIER.iterdir()))} files, ends at {first.status} "
        f"(question: {(first.question or {}).get('fact')}), {first.states} persisted states"
    )
    print(
        f"cold  (fresh process, empty OCR cache): median wall {statistics.median(cold_wall):.3f} s, "
        f"in-run {statistics.median(cold_in):.3f} s   [n={n}]"
    )
    print(f"      share per stage (%): {shares(cold_t)}")
    print(
        f"warm  (same process, cache filled):     median {statistics.median(warm):.3f} s "
        f"(min {min(warm):.3f}, max {max(warm):.3f})  target < 2 s: {'OK' if statistics.median(warm) < 2 else 'MISSED'}"
    )
    print(f"      share per stage (%): {shares(warm_t)}")


if __name__ == "__main__":
    main()
