"""Benchmark: symbolic analysis per case (ground + solve + proof), warm, on generated cases.

Prints the median and p90 over N generated rupture-brutale cases for: the whole `analyse` (values,
JSON-Logic computations, clingo solve — reference model + brave + cautious — and proof/why-not trees),
then the JSON-Logic computations alone, then clingo alone. Target (issue 2): median < 20 ms per case.

    .venv/bin/python benchmarks/analyse.py [--cases 100] [--seed 7]

Peer (issue 2 names xclingo): when `xclingo` is importable (`pip install xclingo==2.0b24`, not a project
dependency: it pins clingo==5.8), the same cases are explained by xclingo — the pack's annotations turned
into `%!trace_rule` labels, unknown facts as choices, ground + first model + explanation of `liable`.
xclingo does less (one model, one conclusion, no why-not, no three-valued outcomes); the ratio is reported
as measured, in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.support: run as .venv/bin/python benchmarks/analyse.py

from lexlogic.engine.symbolic.analysis import analyse, input_assignment
from lexlogic.engine.symbolic.values import gather_values
from lexlogic.logic.facts import date_order_violations, parse_case
from lexlogic.logic.pack import FactType, RulePack
from tests.support.packs import pack_by_name


def random_facts(pack: RulePack, rng: random.Random, known: float = 0.8) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for name, spec in pack.facts.items():
        if rng.random() > known:
            continue
        t = spec.type
        if t is FactType.BOOL:
            # defences and exclusions (facts with a burden-of-proof default) are rarer in real files
            facts[name] = rng.random() < (0.1 if spec.default is not None else 0.6)
        elif t is FactType.ENUM:
            values = spec.values or []
            facts[name] = values[0] if rng.random() < 0.6 else rng.choice(values)
        elif t is FactType.DATE:
            facts[name] = (date(2000, 1, 1) + timedelta(days=rng.randrange(0, 9500))).isoformat()
        elif t is FactType.INT:
            facts[name] = rng.randrange(0, 600)
        elif t is FactType.MONTHS:
            facts[name] = rng.randrange(0, 60) / 2
        elif t is FactType.PERCENT:
            facts[name] = float(rng.randrange(0, 100))
        elif t is FactType.AMOUNTS_BY_YEAR:
            facts[name] = {str(2020 + i): float(rng.randrange(0, 10**6)) for i in range(rng.randrange(1, 4))}
    return _in_date_order(facts, pack)


def _in_date_order(facts: dict[str, Any], pack: RulePack) -> dict[str, Any]:
    """A date drawn before one the pack says it cannot precede (``not_before``) is mirrored after it: the case
    parses (a case file out of order is refused), and the generator's draws, hence every other fact, stay the same."""
    for _ in range(len(facts)):
        late = next(date_order_violations(facts, pack), None)
        if late is None:
            return facts
        name, earlier = late
        before, after = date.fromisoformat(facts[name]), date.fromisoformat(facts[earlier])
        facts[name] = (after + (after - before)).isoformat()
    return facts


def xclingo_program(pack: RulePack) -> str:
    """The pack's ASP with our `%@` annotations rewritten as xclingo trace labels."""
    import re

    out: list[str] = []
    for text in pack.asp_sources.values():
        for line in text.splitlines():
            m = re.match(r'^\s*%@\s*\{id: (\w+), label: "([^"]*)"', line)
            label = m.group(2).replace('"', "'").replace("%", " pct") if m else ""
            out.append('%!trace_rule {"' + label + '"}.' if m else line)
    return "\n".join(out) + f"\n%!show_trace {{{pack.manifest.target}}}.\n"


def xclingo_explain(program: str, facts: str) -> int:
    from xclingo import XclingoControl

    ctl = XclingoControl(["1", "--warn=none"], n_explanations="1")
    ctl.add("base", [], program + facts)
    ctl.ground([("base", [])])
    graphs = 0
    for model in ctl.solve():
        graphs += sum(1 for _ in model.explain_model())
        break
    return graphs


def case_facts_asp(pack: RulePack, case: Any) -> str:
    lines = []
    for atom, value in input_assignment(pack, gather_values(pack, case)).items():
        if value is None:
            lines.append(f"{{ {atom} }}.")
        elif value:
            lines.append(f"{atom}.")
    return "\n".join(lines)


def timeit(fn: Any, items: list[Any]) -> list[float]:
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def report(label: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"{label:<48} median {statistics.median(ms):7.2f} ms   p90 {p90:7.2f} ms   n={len(ms)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    pack, program = pack_by_name("rupture_brutale")
    rng = random.Random(args.seed)
    cases = [parse_case({"pack": pack.name, "facts": random_facts(pack, rng)}, pack) for _ in range(args.cases)]
    for case in cases[:5]:  # warm: grounding once, caches
        analyse(pack, program, case)
    g = program.grounding()
    whole = timeit(lambda c: analyse(pack, program, c), cases)
    values = timeit(lambda c: gather_values(pack, c), cases)
    assignments = [input_assignment(pack, gather_values(pack, c)) for c in cases]
    solve = timeit(g.solve, assignments)
    verdicts: dict[str, int] = {}
    for c in cases:
        v = analyse(pack, program, c).verdict
        verdicts[v] = verdicts.get(v, 0) + 1
    print(f"rupture_brutale: {args.cases} generated cases (seed {args.seed}), verdicts {verdicts}")
    report("analyse (values + clingo + proofs), warm", whole)
    report("JSON-Logic computations (facts → values)", values)
    report("clingo solve (reference + brave + cautious)", solve)
    print(f"target: median analyse < 20 ms → {'MET' if statistics.median(whole) < 20 else 'NOT MET'}")
    try:
        import xclingo  # noqa: F401
    except ImportError:
        print("peer xclingo: not installed (pip install xclingo==2.0b24) — skipped")
        return
    program_x = xclingo_program(pack)
    facts_x = [case_facts_asp(pack, c) for c in cases]
    xclingo_explain(program_x, facts_x[0])  # warm
    peer = timeit(lambda f: xclingo_explain(program_x, f), facts_x)
    report("peer xclingo (ground + 1 model + explain target)", peer)
    print(f"ratio xclingo / lexlogic analyse (medians): {statistics.median(peer) / statistics.median(whole):.1f}x")


if __name__ == "__main__":
    main()
