"""Issue 33 (session 9): a NEW case of a seen structure — what a server or a batch worker meets on every new
dossier — reuses what depends only on what it shares with an earlier case: the proof trees walked before the first
value that differs (``Explainer``'s resume), the judge's notice drawn under the same law, generator state and
inputs (``numbers.draw_law``). A memo that answered a different case's trees or numbers would be a correctness
bug: every verdict here is compared with the one decided without memos."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import numbers
from lexlogic.engine.symbolic.values import ValueInfo, ValueStatus, same_value
from lexlogic.engine.verdict.decide import CaseVerdict, decide
from lexlogic.logic.facts import parse_case
from lexlogic.settings import SHIPPED_RULES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples" / "rupture_brutale" / "facts.json").read_text(encoding="utf-8"))


def _variant(margin: int = 0, **facts: Any) -> dict[str, Any]:
    """The example with its margins moved by ``margin`` and ``facts`` set (None: dropped)."""
    raw = copy.deepcopy(EXAMPLE)
    raw["facts"]["annual_gross_margin"] = {y: v + margin for y, v in raw["facts"]["annual_gross_margin"].items()}
    for name, value in facts.items():
        if value is None:
            raw["facts"].pop(name, None)
        else:
            raw["facts"][name] = value
    return raw


# in this order each case follows one that shares its solution or its notice law's inputs, or not
VARIANTS = [
    _variant(74),
    _variant(111),  # the amounts only: trees and notice draws reused up to the margin's nodes
    _variant(148, notice_given_months=6),  # the floor of the notice law differs: drawn again
    _variant(185, notice_given_months=6),
    _variant(222, notice_given_months=6.0),  # equal to 6 in Python, not in the verdict's JSON
    _variant(259, relation_start="2019-06-01"),  # a date read early in the trees
    _variant(296, notice_written=None),  # an unknown fact: another solution
    _variant(333, notice_written=None),
    _variant(370, economic_dependence_proven=True),
    _variant(407),
    _variant(0, annual_gross_margin={"2021": 0, "2022": 0, "2023": 0}),  # an amount that changes a yes/no value
    _variant(444),
    _variant(0, annual_gross_margin=None),  # the amount unknown
    _variant(481),
]


def _decided(packs: PackLibrary, raw: dict[str, Any], *, memos: bool) -> CaseVerdict:
    loaded = packs.get("rupture_brutale")
    case = parse_case(copy.deepcopy(raw), loaded.pack)
    return decide(loaded.pack, loaded.program, case, memos=packs.memos if memos else None)


def test_new_cases_of_a_seen_structure_decide_as_without_memos() -> None:
    packs = PackLibrary(SHIPPED_RULES)
    for raw in VARIANTS:
        kept = _decided(packs, raw, memos=True).model_dump_json()
        assert kept == _decided(packs, raw, memos=False).model_dump_json(), raw["facts"]


@pytest.fixture
def floors(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often the notice law's floor is drawn (its inverse normal cdf)."""
    done: Counter[str] = Counter()
    icdf = numbers._normal_icdf

    def counting(u: Any) -> Any:
        done["drawn"] += 1
        return icdf(u)

    monkeypatch.setattr(numbers, "_normal_icdf", counting)
    return done


def test_a_new_case_s_amounts_reuse_its_trees_and_its_notice_draws(floors: Counter[str]) -> None:
    packs = PackLibrary(SHIPPED_RULES)
    first = _decided(packs, VARIANTS[0], memos=True)
    drawn = floors["drawn"]
    second = _decided(packs, VARIANTS[1], memos=True)
    target = first.analysis.outcomes["liable"]
    # the target's tree reads no amount: the very same tree, not built again
    assert second.analysis.outcomes["liable"].proof is target.proof
    # the tree that shows the margins is the second case's own
    trees = [v.analysis.outcomes["damages_proof_required"].proof for v in (first, second)]
    assert trees[0] is not None and trees[1] is not None
    assert trees[0].model_dump_json() != trees[1].model_dump_json()
    # the judge's notice reads no amount either: not drawn again ...
    assert floors["drawn"] == drawn
    # ... but drawn again when what it reads (the notice given: its floor) differs
    _decided(packs, VARIANTS[2], memos=True)
    assert floors["drawn"] > drawn


def test_values_equal_in_python_but_not_in_json_are_not_the_same_reading() -> None:
    def info(value: Any) -> ValueInfo:
        return ValueInfo(name="notice_given_months", status=ValueStatus.GIVEN, value=value)

    assert same_value(info(6), info(6))
    assert not same_value(info(6), info(6.0))  # 6 == 6.0, but a tree would print "6.0"
    assert not same_value(info(1), info(True))
    assert not same_value(info(6), None)
