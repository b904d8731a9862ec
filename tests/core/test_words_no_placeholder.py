"""Issue 29, point 5: words. Every template of every pack rendered with every value type leaves no
placeholder; amounts keep their cents; « 1 monde »; the badge is never stronger than the headline."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lexlogic.engine.present.report import _method_text
from lexlogic.engine.text import formatting
from lexlogic.logic.pack import FactType
from tests.support.packs import SHIPPED, pack_by_name

LEAK = re.compile(r"\{[^{}]*\}|\bNone\b|\bnan\b|\bN\b")
SAMPLE: dict[FactType, Any] = {
    FactType.BOOL: True,
    FactType.DATE: "2024-03-15",
    FactType.MONTHS: 3.5,
    FactType.AMOUNT: 1011.12,
    FactType.PERCENT: 14.5,
    FactType.INT: 45,
    FactType.STR: "Société X",
    FactType.AMOUNTS_BY_YEAR: {"2023": 1000.5},
}


def sample(kind: FactType, values: list[str] | None) -> Any:
    return (values or ["x"])[0] if kind is FactType.ENUM else SAMPLE.get(kind, 1.0)


@pytest.mark.parametrize("name", SHIPPED.names())
def test_every_template_with_every_value_type(name: str) -> None:
    pack, _ = pack_by_name(name)
    values = {f: sample(s.type, s.values) for f, s in pack.facts.items()}
    values |= {c.output: sample(c.type, None) for c in pack.computations}
    for fact, spec in pack.facts.items():
        for v in [*(spec.values or []), sample(spec.type, spec.values), None]:
            shown = formatting.value(spec, v)
            assert not LEAK.search(shown), (fact, v, shown)
        for text in (spec.label, spec.question or ""):
            assert not LEAK.search(text), (fact, text)
    for outcome in pack.manifest.outcomes:
        for holds in (True, False):
            text = pack.outcome_sentence(outcome, holds, values, render=formatting.prose)
            assert not LEAK.search(text), (outcome, holds, text)
    for low, high, missing in ((1011.12, 1011.12, []), (100.0, 2500.5, []), (None, None, ["Montant TTC"])):
        text = pack.remedy_sentence(low, high, missing, money=formatting.money) or ""
        assert not LEAK.search(text), text
    for check in pack.manifest.checks:
        assert not LEAK.search(check.label), check.label


def test_amounts_keep_their_cents() -> None:
    assert formatting.money(1011.12).replace("\u202f", " ").replace("\xa0", " ") == "1 011,12 €"
    assert formatting.money(1011.0).replace("\u202f", " ").replace("\xa0", " ") == "1 011 €"
    assert formatting.money_estimate(309242.37).replace("\u202f", " ").replace("\xa0", " ") == "309 242 €"


def test_one_world_is_singular() -> None:
    assert _method_text({"method": "exact", "n_worlds": 1}) == "(calcul exact, 1 monde)"
    assert _method_text({"method": "exact", "n_worlds": 128}) == "(calcul exact, 128 mondes)"
