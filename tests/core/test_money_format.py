"""``formatting.money`` / ``money_estimate`` write euros without babel's ``format_currency`` (which looks up the
currency's plural name on every call, ~0.25 ms: a what-if words ~7 amounts): the strings must be the ones
``format_currency`` gives with the same patterns, to the byte (narrow no-break spaces, rounding, signs)."""

from __future__ import annotations

import random

from babel.numbers import format_currency

from lexlogic.engine.text import formatting


def _values() -> list[float]:
    rnd = random.Random(7)
    edge = [0.0, -0.0, 0.004, 0.005, 0.015, 1.005, 2.675, -1234.565, 999999.995, 123456789.125, 1e12, -1e12]
    return (
        edge + [rnd.uniform(-1e7, 1e7) for _ in range(3000)] + [round(rnd.uniform(-1e6, 1e6), 3) for _ in range(3000)]
    )


def test_money_is_babels_format_currency() -> None:
    for v in _values():
        x = round(float(v), 2)
        if x == round(x):
            want = format_currency(round(x), "EUR", format="#,##0 ¤", locale="fr_FR", currency_digits=False)
        else:
            want = format_currency(x, "EUR", format="#,##0.00 ¤", locale="fr_FR", currency_digits=False)
        assert formatting.money(v) == want, v


def test_money_estimate_is_babels_format_currency() -> None:
    for v in _values():
        want = format_currency(round(v), "EUR", format="#,##0 ¤", locale="fr_FR", currency_digits=False)
        assert formatting.money_estimate(v) == want, v
