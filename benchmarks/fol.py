"""FOL entailment time per backend: n facts with a chain of implications (median, warm).

Belief set: sort Item = {i1..in}; predicates P0..P{k}; facts P0(i) for every item; rules
forall X: (Pj(X) => Pj+1(X)). Query: P{k}(i) for a different item each repetition (so Prolog's tables
from the previous query do not answer it). "Warm" = the belief set is already loaded (Prolog module
cached); E prover runs a fresh process per query by design. Reference: Tweety's SimpleFolReasoner
(API notes, not runnable here): 8 ground atoms 36 ms, 12 atoms 0.4 s, 16 atoms 5.8 s (exponential).

    .venv/bin/python benchmarks/fol.py [--quick] [--chain 5] [--repeat 15]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexlogic.bridges import fol_eprover, fol_prolog, fol_tweety
from lexlogic.logic.fol.model import Atom, BeliefSet, Const, Forall, Implies, Signature, Var

TWEETY_SIMPLE_REF = {8: 36.0, 12: 400.0, 16: 5800.0}  # ground atoms -> ms, from shared/tweety/API.md


def belief_set(n: int, chain: int) -> BeliefSet:
    items = [f"i{k}" for k in range(1, n + 1)]
    sig = Signature({"Item": items}, {f"P{j}": ("Item",) for j in range(chain + 1)})
    bs = BeliefSet(signature=sig)
    x = Var("X", "Item")
    for j in range(chain):
        bs.add(Forall(x, Implies(Atom(f"P{j}", (x,)), Atom(f"P{j + 1}", (x,)))))
    for it in items:
        bs.add(Atom("P0", (Const(it),)))
    return bs


def timed(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, last = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        last = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), last


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip E on 10,000 facts, fewer repetitions")
    ap.add_argument("--chain", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    rnd = random.Random(1)
    sizes = [10, 100, 1000, 10000]
    rows = []
    tweety_ok, tweety_why = fol_tweety.available()
    for n in sizes:
        bs = belief_set(n, args.chain)
        goal = lambda: Atom(f"P{args.chain}", (Const(f"i{rnd.randint(1, n)}"),))  # noqa: E731
        t0 = time.perf_counter()
        fol_prolog.entails(bs, goal(), proof=False)  # load (cold)
        cold = (time.perf_counter() - t0) * 1000
        pm, ans = timed(lambda: fol_prolog.entails(bs, goal(), proof=False), args.repeat)
        assert ans.entailed is True  # type: ignore[attr-defined]
        ppm, _ = timed(lambda: fol_prolog.entails(bs, goal(), proof=True), args.repeat)
        em = None
        if fol_eprover.binary() and not (args.quick and n >= 10000):
            reps = 3 if n >= 1000 else (3 if args.quick else 7)
            em, eans = timed(lambda: fol_eprover.entails(bs, goal(), proof=False, timeout=120), reps)
            assert eans.entailed is True  # type: ignore[attr-defined]
        tm = None
        if tweety_ok:
            tm, _ = timed(lambda: fol_tweety.entails(bs, goal()), 3)
        rows.append((n, cold, pm, ppm, em, tm))
    print(f"chain length {args.chain}; ground atoms = facts × {args.chain + 1}; medians in ms (warm)")
    print(
        f"{'facts':>7} {'prolog load':>12} {'prolog':>9} {'prolog+proof':>13} {'eprover':>9} {'tweety':>9} {'E/prolog':>9}"
    )
    for n, cold, pm, ppm, em, tm in rows:
        fmt = lambda v: f"{v:9.2f}" if v is not None else f"{'—':>9}"  # noqa: E731
        ratio = f"{em / pm:9.0f}" if em else f"{'—':>9}"
        print(f"{n:>7} {cold:12.1f} {pm:9.2f} {ppm:13.2f} {fmt(em)} {fmt(tm)} {ratio}")
    big = rows[-1]
    print(
        f"target 10,000-fact Horn query < 50 ms: prolog median {big[2]:.2f} ms -> {'MET' if big[2] < 50 else 'MISSED'}"
    )
    print(
        "Tweety SimpleFolReasoner (API notes, enumerates Herbrand interpretations): "
        + ", ".join(f"{k} atoms {v:.0f} ms" for k, v in TWEETY_SIMPLE_REF.items())
        + f"; our smallest set has {10 * (args.chain + 1)} ground atoms, answered by Prolog in {rows[0][2]:.2f} ms"
    )
    if not tweety_ok:
        print(f"tweety column empty: {tweety_why}")


if __name__ == "__main__":
    main()
