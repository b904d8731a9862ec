"""A warm verdict of a facts file: CPU time of ``decide`` and ``build_verdict`` on the example, in one process
whose pack is loaded and whose per-structure caches (grounding, circuit, plans) are hot — the cost of each
further case a server or a batch worker decides (issue 33's target: ``decide`` ≤ 20 ms CPU median).

``--fresh`` varies the case's amounts on every call (the gross margins), so nothing keyed on the case itself can
answer: what is measured is a NEW case of an already seen structure; each row gets its own new cases (a phase timed
on cases ``decide`` had just seen would read what ``decide`` remembered of them). Also printed: the phases of ``decide``
(symbolic analysis, case model, inference, numbers). Every call is given the library's ``memos`` (since issue 33's
owned memos, a call given none remembers nothing: it would measure a cold cache each time). Medians and minimums of ``time.process_time`` over N
calls; the load average before and after (the machine is shared: read the phases' ratios).
Run: .venv/bin/python benchmarks/verdict_warm.py [N] [--fresh]
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import analyse as prob_analyse
from lexlogic.engine.prob.case_model import build_case_model
from lexlogic.engine.prob.numbers import finish_verdict
from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.engine.verdict.build import build_verdict
from lexlogic.engine.verdict.decide import decide
from lexlogic.logic.facts import CaseFile, parse_case
from lexlogic.settings import SHIPPED_RULES

FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"


def timed(f: Callable[[int], Any], n: int) -> tuple[float, float]:
    """(median, min) CPU milliseconds of ``f(i)`` over ``n`` calls, after one warm-up call."""
    f(-1)
    xs = []
    for i in range(n):
        c = time.process_time()
        f(i)
        xs.append(time.process_time() - c)
    return statistics.median(xs) * 1000, min(xs) * 1000


def shifted(f: Callable[[int], Any], first: int) -> Callable[[int], Any]:
    """``f`` on calls ``first``, ``first`` + 1, … (the warm-up call, -1, unshifted)."""
    return lambda i: f(i if i < 0 else first + i)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 31
    fresh = "--fresh" in sys.argv
    packs = PackLibrary(SHIPPED_RULES)
    loaded = packs.get("rupture_brutale")
    pack, program = loaded.pack, loaded.program
    memos = packs.memos  # what a server's or a worker's library remembers across its verdicts (logic/memos.py)
    raw = json.loads(FACTS.read_text(encoding="utf-8"))

    def case(i: int) -> CaseFile:
        r = copy.deepcopy(raw)
        if fresh:
            r["facts"]["annual_gross_margin"] = {
                k: v + 37 * (i + 2) for k, v in r["facts"]["annual_gross_margin"].items()
            }
        return parse_case(r, pack)

    # --fresh: each row its own new cases (a row must not read what an earlier row remembered of its cases)
    rows_n = 6
    cases = {i: case(i) for i in range(-1, n * (rows_n if fresh else 1))}
    model = build_case_model(pack, cases[-1], None, None, {})
    verdict = prob_analyse(model.program, whatif={}, entropy_threshold=0.3, method="auto", samples=1 << 18, seed=0)
    models = {i: build_case_model(pack, c, None, None, {}) for i, c in cases.items()}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    print(
        f"{'what (CPU ms, ' + ('a new case each call' if fresh else 'the same case') + ')':44} {'median':>8} {'min':>8}"
    )
    rows: list[tuple[str, Callable[[int], Any]]] = [
        ("decide (the whole verdict's reasoning)", lambda i: decide(pack, program, cases[i], memos=memos)),
        ("  symbolic analysis", lambda i: analyse(pack, program, cases[i], None, None, memos=memos)),
        ("  case model", lambda i: build_case_model(pack, cases[i], None, None, {}, memos=memos)),
        (
            "  inference",
            lambda i: prob_analyse(
                models[i].program, whatif={}, entropy_threshold=0.3, method="auto", seed=0, memos=memos
            ),
        ),
        ("  numbers (finish_verdict)", lambda i: finish_verdict(pack, models[i], verdict, {}, seed=0, memos=memos)),
        ("build_verdict (decide + proof, words, sliders)", lambda i: build_verdict(cases[i], packs=packs)),
    ]
    for row, (label, f) in enumerate(rows):
        first = row * n if fresh else 0
        med, low = timed(shifted(f, first), n)
        print(f"{label:44} {med:8.1f} {low:8.1f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("target: decide ≤ 20 ms CPU median")


if __name__ == "__main__":
    main()
