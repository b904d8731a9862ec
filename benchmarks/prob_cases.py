"""Benchmark: exact inference on REAL cases derived from the shipped example, ours vs ProbLog (issue 33).

Run: .venv/bin/python benchmarks/prob_cases.py [--sizes 20,30,40,60] [--orderings 3] [--timeout 60]

Why: ``benchmarks/prob.py`` measures synthetic programs; a real case's model has computed values
(notice range, volume drop strata, the judge's call) compiled into the program, and that is where exact
inference collapsed. Each case here is ``examples/rupture_brutale/facts.json`` with N of the pack's
yes/no and enum facts made uncertain, in several orderings (seeds): a contested allegation
(``allegation: alleged``: unknown, weighed by the pack's prior) is one root variable; an ambiguity read
differently by the two narratives (``NARRATIVE_A`` / ``NARRATIVE_B``) is two. N counts those root
variables; the model also has the example's own variables (numbers' strata, open zones, the judge's
call), shown as ``vars``.

Each measurement runs in its own process (peak RSS = that process's ``ru_maxrss``, imports included),
with a timeout, after a warm-up of that engine on another program (imports, the pack read once — what a
running service has already done):
* ours = ``build_case_model`` + ``analyse`` (exact), from the parsed case file, caches emptied;
* ProbLog = ground + compile + evaluate the SAME model program (``tests/prob/case_oracle.to_problog``),
  the model's construction not counted for it.
Probabilities must agree to 1e-9. The machine is shared (2 cores): the load average is printed.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.prob.real_cases import EXAMPLE, make_case


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_ours(case_path: str, prog_path: str) -> dict[str, Any]:
    from lexlogic.engine.prob import analyse, clear_cache
    from lexlogic.engine.prob.case_model import build_case_model
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name("rupture_brutale")
    case = parse_case(json.loads(Path(case_path).read_text()), pack)
    analyse(build_case_model(pack, parse_case(json.loads(EXAMPLE.read_text()), pack)).program)  # imports, pack
    clear_cache()  # the case's structure is new: nothing of it cached
    base = _rss_mb()
    t0 = time.perf_counter()
    model = build_case_model(pack, case)
    t1 = time.perf_counter()
    Path(prog_path).write_text(model.program.model_dump_json())
    t2 = time.perf_counter()
    v = analyse(model.program, method="exact")
    t3 = time.perf_counter()
    return {
        "p": v.p_target,
        "build": t1 - t0,
        "infer": t3 - t2,
        "total": (t1 - t0) + (t3 - t2),
        "vars": len(model.program.variables),
        "method": f"{v.method}/{v.evaluator}",
        "rss": _rss_mb(),
        "base": base,
    }


def run_problog(case_path: str, prog_path: str) -> dict[str, Any]:
    from problog import get_evaluatable
    from problog.program import PrologString

    from lexlogic.engine.prob import ProbProgram
    from tests.prob.case_oracle import to_problog

    if Path(prog_path).exists() and Path(prog_path).stat().st_size:
        prog = ProbProgram.model_validate_json(Path(prog_path).read_text())
    else:  # ours did not get as far as the model: build it here (not timed)
        from lexlogic.engine.prob.case_model import build_case_model
        from lexlogic.logic.facts import parse_case
        from tests.support.packs import pack_by_name

        pack, _ = pack_by_name("rupture_brutale")
        prog = build_case_model(pack, parse_case(json.loads(Path(case_path).read_text()), pack)).program
        Path(prog_path).write_text(prog.model_dump_json())
    text = to_problog(prog)
    get_evaluatable().create_from(PrologString("0.5::a. query(a).")).evaluate()  # its imports and set-up
    base = _rss_mb()
    t0 = time.perf_counter()
    res = get_evaluatable().create_from(PrologString(text)).evaluate()
    dt = time.perf_counter() - t0
    p = float(next(iter(res.values()))) if res else 0.0
    return {"p": p, "total": dt, "vars": len(prog.variables), "rss": _rss_mb(), "base": base}


def measure(engine: str, case: dict[str, Any], tmp: Path, timeout: float) -> dict[str, Any]:
    case_path = tmp / f"{case['case_id']}.json"
    prog_path = tmp / f"{case['case_id']}.prog.json"
    case_path.write_text(json.dumps(case))
    cmd = [sys.executable, __file__, "--one", engine, str(case_path), str(prog_path)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout:.0f}s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_s(r: dict[str, Any], key: str = "total") -> str:
    return f"{r[key]:.3f}s" if key in r else r.get("error", "?")[:14]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="20,30,40,60")
    ap.add_argument("--orderings", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--one", nargs=3, metavar=("ENGINE", "CASE", "PROG"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        engine, case_path, prog_path = args.one
        res = run_ours(case_path, prog_path) if engine == "ours" else run_problog(case_path, prog_path)
        print(json.dumps(res))
        return
    print(f"load average at start: {Path('/proc/loadavg').read_text().split()[:3]} on {os.cpu_count()} cores")
    print(
        f"{'N':>3} {'ord':>3} {'vars':>4} {'ours':>9} {'(build':>8} {'infer)':>8} {'MB':>5} "
        f"{'ProbLog':>9} {'MB':>5} {'PL/ours':>7} {'|Δp|':>8}"
    )
    ratios: dict[int, list[float]] = {}
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for n in [int(x) for x in args.sizes.split(",")]:
            for seed in range(args.orderings):
                case = make_case(n, seed)
                ours = measure("ours", copy.deepcopy(case), tmp, args.timeout)
                pl = measure("problog", case, tmp, args.timeout)
                delta = abs(ours["p"] - pl["p"]) if "p" in ours and "p" in pl else float("nan")
                if delta == delta:
                    worst = max(worst, delta)
                ratio = pl["total"] / ours["total"] if "total" in ours and "total" in pl else float("nan")
                if ratio == ratio:
                    ratios.setdefault(n, []).append(ratio)
                vars_ = ours.get("vars", pl.get("vars", "?"))
                print(
                    f"{n:>3} {seed:>3} {vars_!s:>4} {fmt_s(ours):>9} {fmt_s(ours, 'build'):>8} "
                    f"{fmt_s(ours, 'infer'):>8} {ours.get('rss', 0):>5.0f} {fmt_s(pl):>9} {pl.get('rss', 0):>5.0f} "
                    f"{ratio:>6.1f}x {delta:>8.1e}",
                    flush=True,
                )
    for n, rs in ratios.items():
        print(f"N={n}: median ProbLog/ours {statistics.median(rs):.1f}x over {len(rs)} orderings")
    print(f"largest |Δp| vs ProbLog: {worst:.1e} (must be ≤ 1e-9)")
    print(f"load average at end: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()
