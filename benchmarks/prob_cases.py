"""Benchmark: exact inference on REAL cases derived from the shipped example, ours vs ProbLog (issue 33).

Run: .venv/bin/python benchmarks/prob_cases.py [--sizes 20,30,40,60] [--orderings 3] [--timeout 60] [--old DIR]

``--old DIR``: also measure another checkout of the code (e.g. ``git archive main`` extracted in DIR, with
symlinks ``DIR/lexlogic/{api,bridges,engine,logic,sandbox}`` → ``DIR/<layer>``, so that ``PYTHONPATH=DIR``
imports it instead of this tree): "before" and "after" in the same run, on the same cases.

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
# appended, not first: with ``--old DIR`` a child runs with PYTHONPATH=DIR and must import DIR's lexlogic;
# without it ``lexlogic`` resolves to this tree either way (the editable install maps it here)
sys.path.append(str(ROOT))

from tests.prob.real_cases import EXAMPLE, make_case


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_ours(case_path: str, prog_path: str) -> dict[str, Any]:
    from lexlogic.engine.prob import analyse
    from lexlogic.engine.prob.case_model import build_case_model
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name("rupture_brutale")
    case = parse_case(json.loads(Path(case_path).read_text()), pack)
    analyse(build_case_model(pack, parse_case(json.loads(EXAMPLE.read_text()), pack)).program)  # imports, pack
    # no ``memos`` passed below: nothing of this case's structure is remembered from the warm-up (owned memos)
    base = _rss_mb()
    t0 = time.perf_counter()
    model = build_case_model(pack, case)
    t1 = time.perf_counter()
    Path(prog_path).write_text(model.program.model_dump_json())
    t2 = time.perf_counter()
    v = analyse(model.program, method="exact")
    t3 = time.perf_counter()
    largest, nodes = _structure(model.program)
    return {
        "p": v.p_target,
        "build": t1 - t0,
        "infer": t3 - t2,
        "total": (t1 - t0) + (t3 - t2),
        "vars": len(model.program.variables),
        "method": f"{v.method}/{v.evaluator}",
        "rss": _rss_mb(),
        "base": base,
        "largest": largest,
        "nodes": nodes,
    }


def _structure(prog: Any) -> tuple[float, int]:
    """(largest intermediate of the contraction's plan, nodes of its factor graph): the width the elimination
    order reached (its plan is cached by now: nothing recomputed). The same calls exist in the old code."""
    from lexlogic.engine.prob import contract, infer

    _, pl = infer._plan(infer.compiled(prog), infer.prior_vectors(prog.variables))
    observed = prog.observed_atoms()
    cost = contract.estimate(pl, [observed.index(r.condition_atom) for r in prog.soft_rules])
    return cost.largest, len(pl.fg.dims)


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


def measure(engine: str, case: dict[str, Any], tmp: Path, timeout: float, code: str | None = None) -> dict[str, Any]:
    """One engine on one case in a fresh process; ``code``: the checkout to import (PYTHONPATH), else this one."""
    case_path = tmp / f"{case['case_id']}.json"
    prog_path = tmp / f"{case['case_id']}{'.old' if code else ''}.prog.json"
    case_path.write_text(json.dumps(case))
    cmd = [sys.executable, __file__, "--one", engine, str(case_path), str(prog_path)]
    env = {**os.environ, "PYTHONPATH": code} if code else None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout:.0f}s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_s(r: dict[str, Any], key: str = "total") -> str:
    return f"{r[key]:.3f}s" if key in r else r.get("error", "?")[:14]


def _row(n: int, seed: int, tmp: Path, args: argparse.Namespace, stats: dict[str, Any]) -> str:
    """One case: ours (and the old checkout's) and ProbLog, each in its own process; the table's line."""
    case = make_case(n, seed)
    ours = measure("ours", copy.deepcopy(case), tmp, args.timeout)
    old = measure("ours", copy.deepcopy(case), tmp, args.timeout, args.old) if args.old else {}
    pl = measure("problog", case, tmp, args.timeout)
    delta = abs(ours["p"] - pl["p"]) if "p" in ours and "p" in pl else float("nan")
    if delta == delta:
        stats["worst"] = max(stats["worst"], delta)
    ratio = pl["total"] / ours["total"] if "total" in ours and "total" in pl else float("nan")
    if ratio == ratio:
        stats["ratios"].setdefault(n, []).append(ratio)
    stats["rss"] = max(stats["rss"], ours.get("rss", 0.0))
    stats["failed"] += sum("error" in r for r in (ours, pl, old) if r)
    line = (
        f"{n:>3} {seed:>3} {ours.get('vars', pl.get('vars', '?'))!s:>4} {ours.get('largest', float('nan')):>8.3g} "
        f"{ours.get('nodes', '?')!s:>5} {fmt_s(ours):>9} {fmt_s(ours, 'build'):>8} {fmt_s(ours, 'infer'):>8} "
        f"{ours.get('rss', 0):>5.0f}"
    )
    if args.old:
        speed = old["total"] / ours["total"] if "total" in old and "total" in ours else float("nan")
        same = abs(old["p"] - ours["p"]) if "p" in old and "p" in ours else float("nan")
        if speed == speed:
            stats["old"].setdefault(n, []).append(speed)
        if same == same:
            stats["old_delta"] = max(stats["old_delta"], same)
        line += (
            f" | {old.get('vars', '?')!s:>4} {old.get('largest', float('nan')):>8.3g} {old.get('nodes', '?')!s:>5} "
            f"{fmt_s(old):>9} {old.get('rss', 0):>5.0f} {speed:>6.1f}x {same:>7.1e}"
        )
    return line + f" | {fmt_s(pl):>9} {pl.get('rss', 0):>5.0f} {ratio:>6.1f}x {delta:>8.1e}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="20,30,40,60")
    ap.add_argument("--orderings", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--old", default=None, help="another checkout of the code to measure beside this one")
    ap.add_argument("--one", nargs=3, metavar=("ENGINE", "CASE", "PROG"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        engine, case_path, prog_path = args.one
        res = run_ours(case_path, prog_path) if engine == "ours" else run_problog(case_path, prog_path)
        print(json.dumps(res))
        return
    print(f"load average at start: {Path('/proc/loadavg').read_text().split()[:3]} on {os.cpu_count()} cores")
    head = (
        f"{'N':>3} {'ord':>3} {'vars':>4} {'largest':>8} {'nodes':>5} {'ours':>9} {'(build':>8} {'infer)':>8} {'MB':>5}"
    )
    if args.old:
        head += f" | {'vars':>4} {'largest':>8} {'nodes':>5} {'old':>9} {'MB':>5} {'old/ours':>7} {'|Δp|':>7}"
    print(head + f" | {'ProbLog':>9} {'MB':>5} {'PL/ours':>7} {'|Δp|':>8}")
    stats: dict[str, Any] = {"worst": 0.0, "ratios": {}, "old": {}, "old_delta": 0.0, "rss": 0.0, "failed": 0}
    with tempfile.TemporaryDirectory() as d:
        for n in [int(x) for x in args.sizes.split(",")]:
            for seed in range(args.orderings):
                print(_row(n, seed, Path(d), args, stats), flush=True)
    for n, rs in stats["ratios"].items():
        line = f"N={n}: median ProbLog/ours {statistics.median(rs):.1f}x (min {min(rs):.1f}x) over {len(rs)} orderings"
        if n in stats["old"]:
            line += f"; median old/ours {statistics.median(stats['old'][n]):.1f}x"
        print(line)
    print(f"largest |Δp| vs ProbLog: {stats['worst']:.1e} (must be ≤ 1e-9)")
    if args.old:
        print(f"largest |p old − p ours|: {stats['old_delta']:.1e}")
    print(f"peak RSS of ours (imports included): {stats['rss']:.0f} MB (target ≤ 500 MB)")
    print(f"load average at end: {Path('/proc/loadavg').read_text().split()[:3]}")
    if stats["failed"]:  # a figure over the rows that ran says nothing of those that did not: refuse it
        sys.exit(f"{stats['failed']} measurement(s) failed (see the table): the figures above are incomplete")


if __name__ == "__main__":
    main()
