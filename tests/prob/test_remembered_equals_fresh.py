"""What a verdict service remembers across cases never changes a verdict: a stream of new cases of seen
structures (the portfolio's variations, then the same cases with other amounts, in a mixed order) and prior-only
what-ifs, served by ONE service, give byte for byte the verdicts a fresh service (a new pack library: nothing
remembered) gives each alone. Why: the warm path reuses per-structure work (circuits, proof walks, case
models, numbers' draws) keyed on what it read; a key that misses something would answer a case with another's
figures — this oracle shares none of that keying, it only compares."""

from __future__ import annotations

import copy
import json
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.verdict.build import Proofs, VerdictService
from lexlogic.settings import SHIPPED_RULES
from tests.distributed.make_cases import variation

Item = tuple[str, dict[str, Any], dict[str, Any], dict[str, float]]


def _stream() -> list[Item]:
    """(case id, case file, answers, priors): 24 variations (every fifth leaves facts out), 12 of them again with
    amounts moved (one to 0, one year left out, large and small), answers to the facts left out on two, shuffled
    with a fixed seed; then prior-only what-ifs on three."""
    rng = random.Random(20261129)
    out: list[Item] = []
    for i in range(24):
        out.append((f"v{i}", variation(i), {}, {}))
    for i in range(12):
        case = copy.deepcopy(variation(i * 2))
        margins = case["facts"]["annual_gross_margin"]
        if i % 4 == 0:
            margins.pop("2022")
        margins["2023"] = [0, 1, 250_000, 9_999_999][i % 4] + i
        out.append((f"m{i}", case, {}, {}))
    out.append(("a2", variation(2), {"notice_written": True, "regular_orders": True}, {}))
    out.append(("a7", variation(7), {"notice_written": False, "fault_tolerated": True, "regular_orders": True}, {}))
    rng.shuffle(out)
    for i in (1, 3, 7):
        out.append((f"w{i}a", variation(i), {}, {"fault_serious": 0.3}))
        out.append((f"w{i}b", variation(i), {}, {"fault_serious": 0.7, "economic_dependence_proven": 0.2}))
    return out


@pytest.mark.parametrize("proofs", ["all", "target"])
def test_a_service_that_remembers_answers_as_a_fresh_one(proofs: Proofs) -> None:
    stream = _stream()
    shared = VerdictService(PackLibrary(SHIPPED_RULES))
    remembered = [shared.verdict_json(cid, case, ans, priors, proofs=proofs)[0] for cid, case, ans, priors in stream]
    for (cid, case, ans, priors), got in zip(stream, remembered, strict=True):
        alone = VerdictService(PackLibrary(SHIPPED_RULES)).verdict_json(cid, case, ans, priors, proofs=proofs)[0]
        assert json.loads(got) == json.loads(alone), cid
        assert got == alone, cid


def test_threads_sharing_one_service_answer_as_a_fresh_one() -> None:
    """The same stream served by four threads at once from one service (a server's request threads share its
    memos): each answer still the fresh service's."""
    stream = _stream()
    alone = {
        cid: VerdictService(PackLibrary(SHIPPED_RULES)).verdict_json(cid, case, ans, priors, proofs="all")[0]
        for cid, case, ans, priors in stream
    }
    shared = VerdictService(PackLibrary(SHIPPED_RULES))

    def serve(item: Item) -> tuple[str, bytes]:
        cid, case, ans, priors = item
        return cid, shared.verdict_json(cid, case, ans, priors, proofs="all")[0]

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = dict(pool.map(serve, stream + [(f"{cid}-again", *rest) for cid, *rest in stream[::3]]))
    for cid, body in got.items():
        first = cid.removesuffix("-again")
        assert body.replace(cid.encode(), first.encode()) == alone[first], cid
