"""Values as a French lawyer reads them: numbers, money, dates, months, percentages (babel, locale fr_FR).

Why here: the CLI, the report and the page show the same sentences (built by ``engine.wording``), so the
formatting is done once, next to the wording, from the fact's declared type.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.numbers import format_decimal, format_percent, get_currency_symbol, parse_pattern

from lexlogic.logic.pack import FactSpec, FactType

LOCALE = Locale.parse("fr_FR")  # parsed once: babel parses a locale given by name on every call (~0.1 ms)


# Beyond 15 digits babel's Decimal context (28 digits of precision) and round() of an infinite float fail:
# such a figure is shown in scientific notation instead of ending the run in a traceback (issue 34).
HUGE = 1e15


def _outsized(x: float) -> str | None:
    """A number too large (or not finite) for the grouped pattern, written so it cannot crash."""
    v = float(x)
    if not math.isfinite(v):
        return "∞" if v > 0 else ("-∞" if v < 0 else "NaN")
    if abs(v) >= HUGE:
        return f"{v:.3e}".replace(".", ",")
    return None


def number(x: float, digits: int = 1) -> str:
    """``132,4`` (no trailing ``,0`` for whole numbers)."""
    big = _outsized(x)
    if big is not None:
        return big
    pattern = _WHOLE if float(x).is_integer() else _DIGITS.get(digits) or "#,##0." + "#" * digits
    return format_decimal(x, format=pattern, locale=LOCALE)


# babel's format_currency("#,##0.00 ¤") is the decimal pattern then " €", but it looks up the currency's plural
# name on every call (~0.25 ms) whether the pattern asks for it or not: the same strings, checked on 80,000 values
# (tests/text/test_money_format.py)
_EURO = " " + get_currency_symbol("EUR", LOCALE)
# the number patterns parsed once (babel's format_decimal parses a pattern given as text on every call: ~4 % of a
# new what-if's words); immutable, the same strings
_WHOLE = parse_pattern("#,##0")
_CENTS = parse_pattern("#,##0.00")
_DIGITS = {d: parse_pattern("#,##0." + "#" * d) for d in range(1, 4)}
_PERCENT_1, _PERCENT_2 = parse_pattern("#,##0.# %"), parse_pattern("#,##0.## %")


def money(x: float) -> str:
    """``1 011,12 €``: an amount to the cent when it has cents (a sum the rules computed), ``197 206 €``
    otherwise."""
    big = _outsized(x)
    if big is not None:
        return f"{big} €"
    x = round(float(x), 2)
    if x == round(x):
        return money_estimate(x)
    return format_decimal(x, format=_CENTS, locale=LOCALE) + _EURO


def money_estimate(x: float) -> str:
    """``197 206 €``: an estimate (a quantile of a distribution) rounded to the euro — not precise to the cent."""
    big = _outsized(x)
    if big is not None:
        return f"{big} €"
    return format_decimal(round(float(x)), format=_WHOLE, locale=LOCALE) + _EURO


def money_range(low: float, high: float) -> str:
    same = math.isfinite(float(low)) and math.isfinite(float(high)) and round(low, 2) == round(high, 2)
    return money(low) if same else f"{money(low)} à {money(high)}"


@functools.lru_cache(maxsize=4096)
def _day(value: dt.date) -> str:
    """One day in words, formatted once (babel: ~0.2 ms a call; a verdict words the same dates ~90 times)."""
    return format_date(value, format="d MMMM y", locale=LOCALE)


def date(value: Any) -> str:
    """``4 mars 2013``; a month-only or year-only value stays as precise as it was given."""
    if isinstance(value, dt.date):
        return _day(value)
    text = str(value)
    try:
        return _day(dt.date.fromisoformat(text[:10]))
    except ValueError:
        pass
    try:
        year, month = text.split("-")[:2]
        return format_date(dt.date(int(year), int(month), 1), format="MMMM y", locale=LOCALE)
    except ValueError:
        return text


def months(x: float) -> str:
    return f"{number(x)} mois"


def percent(x: float) -> str:
    """A percentage given as 0–100 (the packs' ``percent`` type)."""
    return format_percent(float(x) / 100.0, format=_PERCENT_2, locale=LOCALE)  # 14,25 %, not 14,2 %


def probability(p: float) -> str:
    """``90,5 %``: a probability as a lawyer reads it."""
    return format_percent(p, format=_PERCENT_1, locale=LOCALE)


def yes_no(v: bool) -> str:
    return "oui" if v else "non"


def value(spec: FactSpec | None, v: Any, unit: str | None = None) -> str:
    """A fact's value from its declared type (a computed value: from its unit when known)."""
    if v is None:
        return "inconnu"
    kind = spec.type if spec is not None else None
    if isinstance(v, bool):
        return yes_no(v)
    if isinstance(v, dict):  # a value per year: « 2023 : 1 000,50 € ; … »
        money_like = kind is FactType.AMOUNTS_BY_YEAR or unit == "EUR"
        return " ; ".join(f"{k} : {money(x) if money_like else value(None, x, unit)}" for k, x in v.items())
    if kind is FactType.ENUM and spec is not None:
        return (spec.value_labels or {}).get(str(v), str(v).replace("_", " "))
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
        if unit == "EUR" or kind is FactType.AMOUNT:
            return money_range(v[0], v[1])
        return f"{number(v[0])} à {number(v[1])}" + (f" {unit}" if unit else "")
    if kind is FactType.DATE or (isinstance(v, str) and len(v) >= 7 and v[4:5] == "-" and v[:4].isdigit()):
        return date(v)
    if isinstance(v, (int, float)):
        if kind is FactType.AMOUNT or unit == "EUR":
            return money(v)
        if kind is FactType.PERCENT or unit == "%":
            return percent(v)
        if kind is FactType.MONTHS or unit == "mois":
            return months(v)
        return number(v)
    return str(v)


def prose(v: Any) -> str:
    """A value inside a sentence of the pack's templates, written like the rest of the verdict; a decimal
    number keeps two decimals (a rate of 14,25 %, not 14,2 %)."""
    if isinstance(v, float) and not v.is_integer():
        return number(v, digits=2)
    return value(None, v)
