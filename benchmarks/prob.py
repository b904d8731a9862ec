"""Benchmark: engine.prob vs ProbLog on the same programs (5, 10, 15, 20, 30 uncertain facts).

Run: .venv/bin/python benchmarks/prob.py [--quick]
For each size: time to all marginals and to the full EIG ranking, ours (cold = ground + world table,
warm = table cached, as after an answer or a what-if) vs ProbLog (compile = ground + knowledge
compilation, then evaluation; EIG with ProbLog = one compilation + 2 evaluations per fact with the
fact's weight forced to 1 / 0, the fastest fair way to condition in ProbLog). Accuracy = max |ours −
ProbLog| over all marginals. Beyond the exact range (30 facts) ours samples 1e6 worlds.
Medians over repeats; the machine is shared, so figures are noisy.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexlogic.engine.prob import (
    analyse,
    clear_cache,
    infer,
)
from tests.prob.gen import Spec


def make_spec(n: int, seed: int = 0) -> Spec:
    """A pack-like random stratified program: n facts, n//2 derived atoms on 3 levels, 1 constraint."""
    rnd = random.Random(seed * 1000 + n)
    probs = [round(rnd.uniform(0.1, 0.9), 4) for _ in range(n)]
    m = max(3, n // 2)
    levels = sorted(rnd.randint(0, 2) for _ in range(m))
    levels[0] = 2  # the target sits on top
    levels.sort(reverse=True)
    facts = [f"f{i}" for i in range(n)]
    rules = []
    for h in range(m):
        lower = [f"d{j}" for j in range(m) if levels[j] < levels[h]]
        for _ in range(2):
            pool = facts + lower
            pos = rnd.sample(pool, 2)
            neg = [a for a in rnd.sample(pool, 1) if a not in pos] if rnd.random() < 0.5 else []
            rules.append((h, pos, neg))
    used = {a for _, p, ng in rules for a in (*p, *ng)}
    for f in facts:  # every fact matters: attach unused ones to the target
        if f not in used:
            rules.append((0, [f, rnd.choice(facts)], []))
    cons = [f"d{m - 1}"] if m > 2 else []
    return Spec(probs, [], levels, rules, cons, target="d0")


def problog_times(spec: Spec, eig: bool, max_evals: int | None = None) -> tuple[float, dict[str, float], bool]:
    """(seconds, marginals, extrapolated). With ``max_evals``, only that many conditioned evaluations
    run and the EIG time is extrapolated linearly to the 2·n needed (flagged)."""
    from problog import get_evaluatable
    from problog.program import PrologString

    t0 = time.perf_counter()
    f = get_evaluatable().create_from(PrologString(spec.problog()))
    res = f.evaluate()
    t_marg = time.perf_counter() - t0
    extrapolated = False
    if eig:
        base = dict(f.get_weights())
        nodes = {str(name): node for name, node, _ in f.labeled()}
        todo = [(i, val) for i in range(len(spec.probs)) for val in (1.0, 0.0)]
        if max_evals is not None and max_evals < len(todo):
            todo, extrapolated = todo[:max_evals], True
        t1 = time.perf_counter()
        for i, val in todo:
            w = dict(base)
            w[nodes[f"f{i}"]] = val
            f.evaluate(weights=w)
        per = (time.perf_counter() - t1) / len(todo)
        return t_marg + per * 2 * len(spec.probs), {str(k): float(v) for k, v in res.items()}, extrapolated
    return t_marg, {str(k): float(v) for k, v in res.items()}, False


def ours(spec: Spec, **kw: object) -> tuple[float, dict[str, float], object]:
    """All marginals: derived atoms as query atoms, facts from the posterior of the variables."""
    prog = spec.asp()
    prog.queries = [a for a in spec.derived if a != spec.target]
    t0, c0 = time.perf_counter(), time.process_time()
    v = analyse(prog, **kw)
    dt = time.perf_counter() - t0
    CPU.append(time.process_time() - c0)
    facts = {name: p["oui"] for name, p in v.p_variables.items()}
    return dt, {spec.target: v.p_target, **v.p_queries, **facts}, v


CPU: list[float] = []  # process CPU time of the last ours() calls (less sensitive to a loaded machine)


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats, skip ProbLog at 30 facts")
    args = ap.parse_args()
    reps_warm = 5 if args.quick else 15
    reps_pl = 1 if args.quick else 3
    print(
        f"{'facts':>5} {'worlds':>10} {'method':>12} {'ours cold':>10} {'ours warm':>10} "
        f"{'PL marg':>9} {'PL marg+EIG':>12} {'speedup warm':>12} {'speedup cold':>12} {'max|Δ|':>9} {'se':>8} {'warm CPU':>10}"
    )
    for n in (5, 10, 15, 20, 30):
        spec = make_spec(n)
        clear_cache()
        exact = 2**n <= (1 << 21)
        kw: dict[str, object] = {"samples": 1_000_000} if not exact else {}
        cold, got, v = ours(spec, **kw)
        CPU.clear()
        warm = med([ours(spec, **kw)[0] for _ in range(reps_warm)])
        warm_cpu = med(CPU)
        if n == 30 and args.quick:
            pl_m = pl_e = float("nan")
            ref: dict[str, float] = {}
            est = False
        else:
            reps = reps_pl if n <= 15 else 1
            cap = 4 if (n >= 20 and (args.quick or n >= 30)) else None
            pl_m = med([problog_times(spec, eig=False)[0] for _ in range(reps)])
            pl_e_runs = [problog_times(spec, eig=True, max_evals=cap) for _ in range(reps)]
            pl_e = med([t for t, _, _ in pl_e_runs])
            ref = pl_e_runs[0][1]
            est = pl_e_runs[0][2]
        delta = max((abs(got[a] - p) for a, p in ref.items() if a in got), default=float("nan"))
        print(
            f"{n:>5} {2**n:>10} {v.method:>12} {cold * 1e3:>8.1f}ms {warm * 1e3:>8.1f}ms "
            f"{pl_m * 1e3:>7.0f}ms {pl_e * 1e3:>9.0f}ms{'*' if est else ' '} {pl_e / warm:>11.1f}x {pl_e / cold:>11.1f}x "
            f"{delta:>9.1e} {v.error:>8.1e} {warm_cpu * 1e3:>8.1f}ms"
        )
    print("* ProbLog EIG time extrapolated from 4 conditioned evaluations (compile measured).")
    # sampling throughput beyond the exact range
    spec = make_spec(30)
    prog = spec.asp()
    c = infer.compiled(prog)
    priors = infer.prior_vectors(prog.variables)
    runs, cpu = [], []
    infer.sampled(c, prog, priors, [], {}, 100_000, seed=99)  # warm-up
    for _ in range(3 if args.quick else 5):
        t0, c0 = time.perf_counter(), time.process_time()
        infer.sampled(c, prog, priors, [], {}, 1_000_000, seed=len(runs))
        runs.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(
        f"sampling, 30 facts: {1e6 / med(runs):,.0f} worlds/s wall, {1e6 / med(cpu):,.0f} worlds/s per CPU "
        f"second (median of {len(runs)} runs of 1e6 worlds: sample + evaluate + all marginals + EIG sums)"
    )
    print(f"load average during the run: {Path('/proc/loadavg').read_text().split()[:3]} on 2 cores")


if __name__ == "__main__":
    main()
