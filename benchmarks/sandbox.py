"""Overhead of one sandboxed rule execution through the warm pool vs plain `exec` of the same rule.

    .venv/bin/python benchmarks/sandbox.py [--quick] [--n 2000]

Prints medians (and p95) per execution for:
  plain exec         compile() once; per run: fresh globals, exec the module, call rule(facts)
  restricted, local  the same with the RestrictedPython policy in THIS process (guards + frozen input)
  sandbox, warm      SandboxPool.run: IPC to a warm worker, rlimit re-arm, JSON out, schema validation
and the cold start of a worker (spawn → first result). Target: sandbox warm − plain < 5 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lexlogic.sandbox.policy import RunContext, compile_rule, freeze, make_globals
from lexlogic.sandbox.pool import Limits, SandboxPool

RULE = """
def rule(facts):
    seniority = whole_months_between(facts["relation_start"], facts["notification_date"])
    reasonable = min(18, max(3, seniority // 12))
    given = facts.get("notice_given_months", 0)
    margins = [v for v in facts["annual_gross_margin"].values()]
    average = sum(margins) / len(margins) if margins else 0
    return {"reasonable_notice_months": reasonable, "notice_sufficient": given >= reasonable,
            "missing_months": max(0, reasonable - given),
            "damages_estimate": round(average / 12 * max(0, reasonable - given), 2)}
"""
SCHEMA = {
    "reasonable_notice_months": "int",
    "notice_sufficient": "bool",
    "missing_months": "int",
    "damages_estimate": "number",
}
FACTS = {
    "relation_start": "2012-03-01",
    "notification_date": "2021-06-15",
    "notice_given_months": 3,
    "annual_gross_margin": {"2018": 120000.0, "2019": 131000.0, "2020": 98000.0},
    "claimant_name": "SARL Dupont",
    "exclusivity": True,
}


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def pct(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    n = 200 if args.quick else args.n

    from lexlogic.sandbox.helpers import DATE_HELPERS

    plain_code = compile(RULE, "<rule>", "exec")

    def plain() -> None:
        g = {"__builtins__": __builtins__, **DATE_HELPERS}
        exec(plain_code, g)
        json.dumps(g["rule"](json.loads(json.dumps(FACTS))))

    restricted_code = compile_rule(RULE)

    def restricted() -> None:
        g = make_globals(RunContext())
        exec(restricted_code, g)
        json.dumps(g["rule"](freeze(json.loads(json.dumps(FACTS)))))

    for fn in (plain, restricted):
        timed(fn, 50)
    plain_ms = timed(plain, n)
    restricted_ms = timed(restricted, n)

    with SandboxPool(size=1, limits=Limits()) as pool:
        expected = pool.run(RULE, FACTS, output_schema=SCHEMA).output
        assert expected["reasonable_notice_months"] == 9
        timed(lambda: pool.run(RULE, FACTS, output_schema=SCHEMA), 50)
        inside: list[float] = []
        sandbox_ms = timed(lambda: inside.append(pool.run(RULE, FACTS, output_schema=SCHEMA).worker_ms), n)

    cold = []
    for _ in range(3 if args.quick else 8):
        t = time.perf_counter()
        with SandboxPool(size=1) as p:
            p.run(RULE, FACTS, output_schema=SCHEMA)
        cold.append((time.perf_counter() - t) * 1000)

    rows = [("plain exec", plain_ms), ("restricted, in process", restricted_ms), ("sandbox, warm pool", sandbox_ms)]
    print(f"one execution of the same rule, n={n} (median / p95, ms)")
    for name, xs in rows:
        print(f"  {name:<24} {statistics.median(xs):8.3f}  {pct(xs, 0.95):8.3f}")
    overhead = statistics.median(sandbox_ms) - statistics.median(plain_ms)
    print(
        f"  sandbox overhead vs plain exec: {overhead:.3f} ms (x{statistics.median(sandbox_ms) / statistics.median(plain_ms):.1f});"
        f" target < 5 ms: {'MET' if overhead < 5 else 'MISSED'}"
    )
    print(f"  RestrictedPython policy alone: {statistics.median(restricted_ms) - statistics.median(plain_ms):.3f} ms")
    print(
        f"  of which inside the worker (rlimit re-arm, parse, run, JSON): median {statistics.median(inside):.3f} ms;"
        f" the rest is IPC, scheduling and parent-side validation"
    )
    print(f"cold start (spawn worker + first run + shutdown), median of {len(cold)}: {statistics.median(cold):.1f} ms")


if __name__ == "__main__":
    main()
