"""What a CASE AXIS can save in the portfolio's chunks (issue 33, build item 3), measured on the chunks' own work.

Why: build item 3 asks for a group's cases evaluated together — one grounding, many assignments, the same
computation on different numbers done once with a leading case axis. Sessions 4–5 shared everything per
structure (grounding, circuits, clingo solutions, plans); what is left runs once per case. A case axis removes a
call's FIXED cost (the Python around the arrays: one call for N cases instead of N calls); it cannot remove the
per-element work (every case keeps its own 2^14 draws, its own numbers) nor the JSON-Logic evaluated once per
distinct row of a case's own inputs. This measures both, so the ceiling is a figure, not a guess:

1. The chunks' CPU a case by part (process time, wrapped timers): the symbolic analysis, the case model, the
   inference, the numbers (``finish_verdict``, the settled cases only).
2. The numbers' fixed cost a call: ``finish_verdict`` replayed on the captured settled cases at 2^10 and 2^14
   draws (caches emptied before each pass, alternated): t(n) = fixed + slope·n, so fixed = t(2^10) − slope·2^10.
   The JSON-Logic evaluations per distinct row (``jl_vec._row_results``: per case, its own scalars) are timed
   apart: they stay per case whatever the axis.
3. A case axis BUILT for the part of the numbers that is pure array work on a shared structure — the sampled
   worlds of every settled case of one structure: one draw of the raw random bits (every case's generator starts
   from the same seed, so the bits are the same), each case's thresholds compared on a (case, variable, draw)
   axis, ONE evaluation of the ground circuit over all their worlds. Checked bit for bit (digits, mask,
   observed atoms, the generator's state after the draws) against the per-case path, then timed alternated
   (per case / batched / batched / per case, twice). Since session 7 the batched leg is the engine's
   ``prob.case_axis``.
0. (Session 7, first) the chunks themselves, old vs new: ``run_group`` with each case alone and with the group's
   worlds on the engine's case axis (``jobs.portfolio_axis``), alternated, result lines compared.

Usage: ``.venv/bin/python benchmarks/case_axis.py [N=400] [CASES_DIR=/tmp/case_axis_cases]``.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # appended: an exported tree on PYTHONPATH wins
sys.path.append(str(ROOT / "benchmarks"))

from portfolio_inprocess import chunks_of

from lexlogic.engine.jobs import portfolio_groups as groups
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import case_axis, infer, jl_vec, numbers
from lexlogic.engine.prob.model import ProbProgram
from lexlogic.engine.symbolic import memo as run_memo
from lexlogic.engine.symbolic import values as values_mod
from lexlogic.engine.verdict import decide as decide_mod
from lexlogic.settings import SHIPPED_RULES
from tests.distributed.make_cases import write_cases

Spent = collections.Counter[str]
CHUNK_OF: dict[int, int] = {}  # settled case (its index in the captured calls) → its chunk


def timed(owner: Any, name: str, label: str, spent: Spent, calls: list[Any] | None = None) -> Callable[..., Any]:
    """Replace ``owner.name`` by a wrapper adding its process time to ``spent[label]`` (its calls kept in
    ``calls``); returns the original."""
    f = getattr(owner, name)

    def wrapper(*a: Any, **k: Any) -> Any:
        if calls is not None:
            calls.append((a, k))
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            spent[label] += time.process_time() - t

    setattr(owner, name, wrapper)
    return f


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def empty_caches() -> None:
    """The numbers' caches emptied: a replay draws and evaluates as the first verdict of a class did."""
    # the numbers' caches are the run's (logic/memos.py): a call without one keeps nothing


# --- 0. the chunks with and without the engine's case axis ----------------------------------------------------
def chunks_old_new(n: int, cases: Path) -> None:
    """``run_group`` per chunk, as the pool runs them: old (``case_axis=False``, each case alone) and new (the
    group's worlds on a case axis), alternated old/new/new/old twice; CPU a case; result lines compared."""
    if len(list(cases.glob("*.json"))) != n:
        write_cases(cases, n)
    chunks = list(chunks_of(cases, PackLibrary(SHIPPED_RULES)))
    for chunk in chunks[:2]:  # warm: packs, circuits
        groups.run_group(str(SHIPPED_RULES), chunk, False)
    ms: dict[bool, list[float]] = {False: [], True: []}
    lines: dict[bool, list[Any]] = {}
    loads = [load()]
    for axis in (False, True, True, False) * 2:
        empty_caches()
        t = time.process_time()
        lines[axis] = [groups.run_group(str(SHIPPED_RULES), c, False, case_axis=axis) for c in chunks]
        ms[axis].append(round((time.process_time() - t) * 1000 / n, 2))
        loads.append(load())
    same = lines[False] == lines[True]
    print(
        f"0. {n} cases in {len(chunks)} chunks, CPU ms a case, old (each case alone) {ms[False]} / new (case axis)"
        f" {ms[True]}: medians {np.median(ms[False]):.2f} -> {np.median(ms[True]):.2f}"
        f" ({100 * (np.median(ms[True]) / np.median(ms[False]) - 1):+.1f} %); lines identical: {same}; "
        f"{', '.join(loads)}"
    )
    if not same:
        raise SystemExit("0. the case axis changed a result line")


# --- 1. the chunks, by part --------------------------------------------------------------------------------
def run_chunks(n: int, cases: Path) -> tuple[list[Any], Any]:
    if len(list(cases.glob("*.json"))) != n:
        write_cases(cases, n)
    packs = PackLibrary(SHIPPED_RULES)
    spent: Spent = collections.Counter()
    fv_calls: list[Any] = []
    pa_calls: list[Any] = []
    fv = timed(decide_mod, "finish_verdict", "numbers (finish_verdict, settled cases)", spent, fv_calls)
    timed(decide_mod, "prob_analyse", "inference (prob analyse)", spent, pa_calls)
    timed(decide_mod, "case_model", "case model", spent)
    timed(run_memo.RunMemo, "analyse", "symbolic analysis (incl. values)", spent)
    timed(infer, "contracted", "  of the inference: the contraction", spent)
    timed(values_mod, "_evaluate", "  JSON-Logic on new inputs (values, classes)", spent)
    c0 = time.process_time()
    for i, chunk in enumerate(chunks_of(cases, packs)):
        start = len(fv_calls)
        groups.run_group(str(SHIPPED_RULES), chunk, False, case_axis=False)  # parts timed case by case
        CHUNK_OF.update(dict.fromkeys(range(start, len(fv_calls)), i))
    total = time.process_time() - c0
    print(f"1. {n} cases in chunks ({load()}): CPU {total * 1000 / n:.2f} ms a case")
    for label, s in spent.most_common():
        print(f"   {label:45s} {s * 1000 / n:6.2f} ms a case ({100 * s / total:4.1f} %)")
    print(f"   settled cases (numbers computed): {len(fv_calls)} of {n}; inferences: {len(pa_calls)}")
    return fv_calls, fv


# --- 2. the numbers' fixed cost a call ------------------------------------------------------------------------
def numbers_fixed(fv_calls: list[Any], fv: Callable[..., Any]) -> None:
    rows: Spent = collections.Counter()
    timed(jl_vec, "_row_results", "rows", rows)
    per: dict[int, list[float]] = {1 << 10: [], 1 << 14: []}
    row_ms: dict[int, list[float]] = {1 << 10: [], 1 << 14: []}
    for n in (1 << 14, 1 << 10, 1 << 10, 1 << 14):
        empty_caches()
        rows.clear()
        t = time.process_time()
        for a, k in fv_calls:
            fv(*a, **{**k, "samples": n, "memos": None})  # the run's memos dropped: nothing kept
        per[n].append((time.process_time() - t) * 1000 / len(fv_calls))
        row_ms[n].append(rows["rows"] * 1000 / len(fv_calls))
    lo, hi = (float(np.median(per[1 << 10])), float(np.median(per[1 << 14])))
    slope = (hi - lo) / ((1 << 14) - (1 << 10))
    fixed = lo - slope * (1 << 10)
    rows_fixed = float(np.median(row_ms[1 << 14]))
    print(
        f"2. numbers, ms a settled case ({load()}): 2^10 draws {per[1 << 10]}, 2^14 draws {per[1 << 14]}\n"
        f"   fixed a call {fixed:.2f} ms (of which JSON-Logic per distinct row {rows_fixed:.2f} ms, per case "
        f"whatever the axis), per-draw work {slope * (1 << 14):.2f} ms at 2^14\n"
        f"   => a case axis removes at most {max(fixed - rows_fixed, 0.0):.2f} ms of {hi:.2f} ms a settled case"
    )


# --- 3. the sampled worlds with a case axis ------------------------------------------------------------------
def worlds_per_case(progs: list[ProbProgram], n: int, seed: int) -> list[tuple[Any, ...]]:
    """As ``sampled_worlds.sampled`` draws and evaluates them (uncached): one case at a time."""
    out = []
    for p in progs:
        rng = np.random.default_rng(seed)
        digits, _, _ = infer.sample_digits(p, infer.prior_vectors(p.variables), n, rng)
        mask, obs = infer.compiled(p).evaluate(digits)
        out.append((digits, mask, obs, rng.bit_generator.state))
    return out


def worlds_batched(progs: list[ProbProgram], n: int, seed: int) -> list[tuple[Any, ...]]:
    """The same worlds with the engine's case axis (``prob.case_axis``): per chunk and structure (what one
    process holds together) one draw of the bits, every case's thresholds, one evaluation of the circuit."""
    by: dict[tuple[int, str], list[int]] = collections.defaultdict(list)
    for i, p in enumerate(progs):
        by[(CHUNK_OF.get(i, 0), p.structure_key())].append(i)
    out: list[tuple[Any, ...]] = [()] * len(progs)
    for idx in by.values():
        first = progs[idx[0]]
        priors = [infer.prior_vectors(progs[i].variables) for i in idx]
        drawn = case_axis.sampled_on_axis(first, infer.compiled(first), priors, n, seed)
        for i, w in zip(idx, drawn, strict=True):
            out[i] = (w.digits, w.mask, w.obs, w.state)
    return out


def worlds(fv_calls: list[Any]) -> None:
    progs = [a[1].program for a, _ in fv_calls]
    n, seed = numbers.N_SAMPLES, 0
    one, many = worlds_per_case(progs, n, seed), worlds_batched(progs, n, seed)
    same = all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2]) and a[3] == b[3]
        for a, b in zip(one, many, strict=True)
    )
    if not same:
        raise SystemExit("3. the batched worlds differ from the per-case worlds: not a case axis of the same draws")
    ms: dict[str, list[float]] = {"per case": [], "case axis": []}
    order = [("per case", worlds_per_case), ("case axis", worlds_batched)]
    for label, f in (order + order[::-1]) * 2:  # alternated: old/new/new/old, twice
        t = time.process_time()
        f(progs, n, seed)
        ms[label].append(round((time.process_time() - t) * 1000 / len(progs), 2))
    batches = len({(CHUNK_OF.get(i, 0), p.structure_key()) for i, p in enumerate(progs)})
    print(
        f"3. sampled worlds, {len(progs)} settled cases in {batches} batches (chunk × structure), 2^14 draws "
        f"({load()}): "
        f"bit for bit equal; ms a settled case: per case {ms['per case']}, case axis {ms['case axis']} "
        f"(medians {np.median(ms['per case']):.2f} / {np.median(ms['case axis']):.2f})"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    cases = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/case_axis_cases")
    chunks_old_new(n, cases)
    fv_calls, fv = run_chunks(n, cases)
    numbers_fixed(fv_calls, fv)
    worlds(fv_calls)


if __name__ == "__main__":
    main()
