"""A what-if that only moves priors is served from the case model already built (issue 33): the served model
equals the one built with the what-if, and no model is rebuilt for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.prob import model_cache
from lexlogic.engine.prob.case_model import build_case_model
from lexlogic.logic.facts import parse_case
from lexlogic.logic.memos import Memos
from lexlogic.logic.pack import FactType
from tests.support.packs import pack_by_name

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"


def _case() -> Any:
    pack, _ = pack_by_name("rupture_brutale")
    return pack, parse_case(json.loads(EXAMPLE.read_text()), pack)


def _same(a: Any, b: Any) -> None:
    assert a.program.model_dump() == b.program.model_dump()
    assert (a.asks, a.consumed, a.fixed, a.folded, a.roots) == (b.asks, b.consumed, b.fixed, b.folded, b.roots)


@pytest.mark.parametrize("p", [0.3, 0.85])
def test_a_prior_what_if_served_from_the_built_model_equals_the_model_built_with_it(p: float) -> None:
    pack, case = _case()
    facts = [n for n, s in pack.facts.items() if s.type is FactType.BOOL]
    base = build_case_model(pack, case)
    whatifs: list[dict[str, Any]] = [{n: p} for n in facts]
    whatifs += [{v.name: p} for v in base.program.variables if v.name not in pack.facts]  # the model's own coins
    whatifs.append({facts[0]: p, "confiance_vs_liberte.I1": "s"})  # a soft-rule magnitude beside it
    for w in whatifs:
        _same(model_cache.case_model(pack, case, {}, None, w, memos=Memos()), build_case_model(pack, case, {}, None, w))


def test_prior_what_ifs_build_no_new_model(monkeypatch: pytest.MonkeyPatch) -> None:
    pack, case = _case()
    memos = Memos()  # one owner (a run, the verdict service) asking again
    built: list[dict[str, Any]] = []
    real = model_cache.build_case_model

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(dict(args[4] or {}))
        return real(*args, **kwargs)

    monkeypatch.setattr(model_cache, "build_case_model", counting)
    model_cache.case_model(pack, case, {}, None, {}, memos=memos)
    model = model_cache.case_model(pack, case, memos=memos)
    coin = next(v.name for v in model.program.variables if v.name not in pack.facts)
    for x in (0.2, 0.4, 0.6):
        model_cache.case_model(pack, case, {}, None, {coin: x}, memos=memos)  # a model variable: the inference's
    assert len(built) == 1
    fact = next(n for n, s in pack.facts.items() if s.type is FactType.BOOL and n not in case.facts)
    for x in (0.2, 0.4, 0.6):
        model_cache.case_model(pack, case, {}, None, {fact: x}, memos=memos)
    assert len(built) <= 2  # one model at the placeholder prior serves every value
