"""Benchmark: engine.prob vs ProbLog, exact, at 20, 30 and 40 uncertain facts (issue 15).

Run: .venv/bin/python benchmarks/prob.py [--quick]
Two families, the same programs given to both engines:
* pack-like sparse programs: a target that is the conjunction of a few conditions, each the disjunction
  of small conjunctions of facts, a defeater and an exoneration under negation, one constraint — the
  shape of a rule pack;
* the real pack (rules/rupture_brutale): its ASP rules with N of its input atoms uncertain (random
  priors), the others given as in the example case.
Cold = everything from the program text (ours: ground + circuit + contraction plan + inference;
ProbLog: ground + knowledge compilation + evaluation). Warm = the same program with other priors
(ours: cached plan; ProbLog: evaluation of the compiled circuit with new weights). Accuracy = |ours −
ProbLog| on P(target). Then the sampler's throughput (worlds/s) at 40 facts.
The machine is shared (2 cores): medians of a few repeats, figures are noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexlogic.engine.prob import BoolVar, ProbProgram, analyse, infer
from lexlogic.engine.prob.case_model import build_case_model
from lexlogic.logic.facts import parse_case
from lexlogic.logic.memos import Memos
from tests.prob.case_oracle import to_problog
from tests.support.packs import pack_by_name

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rupture_brutale" / "facts.json"


def sparse_program(n: int, seed: int = 0) -> ProbProgram:
    """Pack-like: n facts in groups of 3–4; conditions c_i = OR of 2 small ANDs of their group."""
    rnd = random.Random(seed * 7919 + n)
    facts = [f"f{i}" for i in range(n)]
    groups: list[list[str]] = []
    i = 0
    while i < n:
        k = min(rnd.choice([3, 4]), n - i)
        groups.append(facts[i : i + k])
        i += k
    lines = []
    conds = []
    for g, group in enumerate(groups):
        head = f"c{g}"
        conds.append(head)
        a = rnd.sample(group, min(2, len(group)))
        lines.append(f"{head} :- {', '.join(a)}.")
        rest = [x for x in group if x not in a] or group[:1]
        neg = [x for x in a if x not in rest][:1]
        lines.append(f"{head} :- {', '.join(rest)}{''.join(f', not {x}' for x in neg)}.")
    defeater, exon = conds[0], conds[-1]
    body = ", ".join(c for c in conds[1:-1])
    lines.append(f"target :- not {defeater}, {body}, not {exon}." if body else f"target :- not {defeater}.")
    lines.append(f":- {conds[1]}, {conds[-1]}, {groups[0][0]}." if len(conds) > 2 else "")
    variables = [BoolVar(name=f, atom=f, prior=round(rnd.uniform(0.1, 0.9), 4)) for f in facts]
    return ProbProgram(program="\n".join(x for x in lines if x), variables=variables, target="target")


def pack_program(n: int, seed: int = 0) -> ProbProgram:
    """The real pack's rules with n of its input atoms uncertain: the example's own uncertain facts,
    then input atoms drawn at random (random priors); everything else as in the example."""
    pack, _ = pack_by_name("rupture_brutale")
    raw = json.loads(EXAMPLE.read_text())
    model = build_case_model(pack, parse_case(raw, pack))
    own = list(model.program.variables)
    taken = {v.atom for v in own if isinstance(v, BoolVar)}
    inputs = [f for f, s in pack.facts.items() if s.type.value == "bool"]
    inputs += [c.output for c in pack.computations if c.type.value == "bool"]
    inputs += [f"{f}({v})" for f, s in pack.facts.items() if s.type.value == "enum" for v in s.values or []]
    rnd = random.Random(seed + n)
    rnd.shuffle(inputs)
    chosen = [a for a in inputs if a not in taken][: max(0, n - len(own))]
    if len(own) + len(chosen) < n:
        raise SystemExit(f"the pack has {len(inputs)} input atoms, fewer than {n}")
    lines = [
        line
        for line in model.program.program.splitlines()
        if not (_is_given(line) and line.strip().rstrip(".") in chosen)
    ]
    variables = own + [
        BoolVar(name=f"u{i}", atom=a, prior=round(rnd.uniform(0.1, 0.9), 4)) for i, a in enumerate(chosen)
    ]
    return ProbProgram(program="\n".join(lines), variables=variables, target=pack.manifest.target)


def _is_given(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith("%") and ":-" not in s and s.endswith(".")


def reprioritise(prog: ProbProgram, seed: int) -> ProbProgram:
    rnd = random.Random(seed)
    p = prog.model_copy(deep=True)
    p.variables = [
        v.model_copy(update={"prior": round(rnd.uniform(0.1, 0.9), 4)}) if isinstance(v, BoolVar) else v
        for v in p.variables
    ]
    return p


def ours(prog: ProbProgram, memos: Memos) -> tuple[float, float, object]:
    """One exact verdict; ``memos``: the owner's circuits (a fresh one: cold; the same again: warm)."""
    t0 = time.perf_counter()
    v = analyse(prog, memos=memos)
    return time.perf_counter() - t0, v.p_target, v


def problog_cold_warm(prog: ProbProgram, other: ProbProgram) -> tuple[float, float, float]:
    from problog import get_evaluatable
    from problog.program import PrologString

    t0 = time.perf_counter()
    f = get_evaluatable().create_from(PrologString(to_problog(prog)))
    res = f.evaluate()
    cold = time.perf_counter() - t0
    p = float(next(iter(res.values()))) if res else 0.0
    weights = dict(f.get_weights())
    names = {str(name): node for name, node, _ in f.labeled()} if hasattr(f, "labeled") else {}
    new = {v.atom: v.p for v in other.variables if isinstance(v, BoolVar)}
    w2 = dict(weights)
    for key in list(w2):
        name = str(getattr(f.get_node(abs(key)), "name", "")) if isinstance(key, int) else ""
        if name in new:
            w2[key] = new[name]
    del names
    t1 = time.perf_counter()
    f.evaluate(weights=w2)
    warm = time.perf_counter() - t1
    return cold, warm, p


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def run(family: str, make: object, sizes: tuple[int, ...], reps: int) -> None:
    print(f"\n{family}")
    print(
        f"{'facts':>5} {'method':>7} {'eff. worlds':>14} {'ours cold':>10} {'ours warm':>10} {'PL cold':>9} "
        f"{'PL warm':>9} {'cold ×':>7} {'warm ×':>7} {'|Δ|':>8}"
    )
    for n in sizes:
        colds, warms, pl_c, pl_w, deltas = [], [], [], [], []
        v = None
        for r in range(reps):
            prog = make(n, r)  # type: ignore[operator]
            other = reprioritise(prog, 100 + r)
            memos = Memos()  # nothing of this structure compiled yet: cold, then warm on the same owner
            tc, p, v = ours(prog, memos)
            tw, _, _ = ours(other, memos)
            colds.append(tc)
            warms.append(tw)
            c, w, pref = problog_cold_warm(prog, other)
            pl_c.append(c)
            pl_w.append(w)
            deltas.append(abs(p - pref))
        assert v is not None
        print(
            f"{n:>5} {v.method:>7} {v.effective_worlds:>14,} {med(colds) * 1e3:>8.1f}ms {med(warms) * 1e3:>8.1f}ms "  # type: ignore[attr-defined]
            f"{med(pl_c) * 1e3:>7.0f}ms {med(pl_w) * 1e3:>7.1f}ms {med(pl_c) / med(colds):>6.1f}x "
            f"{med(pl_w) / med(warms):>6.2f}x {max(deltas):>8.1e}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one repeat per size")
    args = ap.parse_args()
    reps = 1 if args.quick else 3
    ours(sparse_program(8), Memos())  # warm-up: imports, first einsum, first clingo grounding (not counted)
    problog_cold_warm(sparse_program(8), sparse_program(8, 1))
    run("pack-like sparse programs (random priors; ProbLog on the same text)", sparse_program, (20, 30, 40), reps)
    run("the real pack (rupture_brutale rules, N input atoms uncertain)", pack_program, (20, 30, 40), reps)
    prog = pack_program(40)
    c = infer.compiled(prog)
    priors = infer.prior_vectors(prog.variables)
    infer.sampled(c, prog, priors, [], {}, 100_000, seed=99)  # warm-up
    runs = []
    for s in range(3 if args.quick else 5):
        t0 = time.perf_counter()
        infer.sampled(c, prog, priors, [], {}, 1_000_000, seed=s)
        runs.append(time.perf_counter() - t0)
    print(
        f"\nsampler, real pack with 40 uncertain facts: {1e6 / med(runs):,.0f} worlds/s (median of {len(runs)} × 1e6)"
    )
    print(f"load average during the run: {Path('/proc/loadavg').read_text().split()[:3]} on 2 cores")


if __name__ == "__main__":
    main()
