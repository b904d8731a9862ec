"""Issue 33: what a process keeps between verdicts (the sampled worlds of a class, a law's draws per generator
state, a computation's per-world and scalar results under what they read, a pack's parameters at a date) never
changes a verdict: each case decided after other cases — caches warm with their entries — equals the same case
decided with every cache emptied, to the last bit of every number."""

from __future__ import annotations

import copy
import json

from lexlogic.logic.memos import Memos
from tests.distributed.make_cases import EXAMPLE, variation
from tests.support.deciding import decide_case


def _forget() -> Memos:
    """Every cross-verdict cache of issue 33 emptied: a new owner's memos (a fresh run's: computations,
    parameters, models, circuits, sampled worlds, a law's draws, the vectorised rules)."""
    return Memos()


def _cases() -> dict[str, dict]:
    no_margin = copy.deepcopy(EXAMPLE)
    no_margin["facts"].pop("margin_rate_pct", None)
    no_notice = copy.deepcopy(EXAMPLE)
    no_notice["facts"].pop("notice_written", None)
    out = {"example": EXAMPLE, "no-margin": no_margin, "no-notice": no_notice}
    # other amounts (the same class of worlds: the margins do not move a prior) and other dates
    for k, margin in enumerate((50_000, 240_000)):
        other = copy.deepcopy(EXAMPLE)
        other["facts"]["annual_gross_margin"] = {y: margin + 1_000 * j for j, y in enumerate(("2021", "2022", "2023"))}
        out[f"margins-{k}"] = other
    dated = copy.deepcopy(EXAMPLE)
    dated["facts"].update(notice_given_months=6, relation_start="2016-01-04")
    out["dated"] = dated
    out.update({f"portfolio-{i}": variation(i) for i in (0, 1, 2, 4, 7, 12, 17)})
    return out


def _verdict(raw: dict, seed: int, whatif: dict | None, memos: Memos) -> str:
    return decide_case(raw, None, whatif, seed=seed, memos=memos).model_dump_json()


WHATIFS = [None, {"regular_orders": 0.3}, {"regular_orders": 0.8}]  # one structure, other priors


def test_a_verdict_after_other_verdicts_equals_a_verdict_from_empty_caches() -> None:
    cases = _cases()
    runs = [(name, seed, None) for name in cases for seed in (0, 3)] + [("portfolio-2", 0, k) for k in (1, 2)]
    cold = {}
    for name, seed, k in runs:
        cold[name, seed, k] = _verdict(cases[name], seed, WHATIFS[k or 0], _forget())
    memos = _forget()  # one owner for every verdict below (a run, a batch chunk, the verdict service)
    for _ in range(2):  # the second pass finds every entry the first pass and the other cases left
        for name, seed, k in runs:
            warm = _verdict(cases[name], seed, WHATIFS[k or 0], memos)
            assert warm == cold[name, seed, k], (name, seed, k)
    # the verdicts carry numbers (the caches had something to say)
    assert any(json.loads(v)["probability"]["outputs"] for v in cold.values())
