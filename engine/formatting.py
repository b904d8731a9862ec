"""Values as a French lawyer reads them: numbers, money, dates, months, percentages (babel, locale fr_FR).

Why here: the CLI, the report and the page show the same sentences (built by ``engine.wording``), so the
formatting is done once, next to the wording, from the fact's declared type.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from babel.dates import format_date
from babel.numbers import format_currency, format_decimal, format_percent

from lexlogic.logic.pack import FactSpec, FactType

LOCALE = "fr_FR"


def number(x: float, digits: int = 1) -> str:
    """``132,4`` (no trailing ``,0`` for whole numbers)."""
    pattern = "#,##0" if float(x).is_integer() else "#,##0." + "#" * digits
    return format_decimal(x, format=pattern, locale=LOCALE)


def money(x: float) -> str:
    """``197 206 €`` (euros rounded to the unit: a range of damages is not precise to the cent)."""
    return format_currency(round(float(x)), "EUR", format="#,##0 ¤", locale=LOCALE, currency_digits=False)


def money_range(low: float, high: float) -> str:
    return f"{money(low)} à {money(high)}" if round(low) != round(high) else money(low)


def date(value: Any) -> str:
    """``4 mars 2013``; a month-only or year-only value stays as precise as it was given."""
    if isinstance(value, dt.date):
        return format_date(value, format="d MMMM y", locale=LOCALE)
    text = str(value)
    try:
        return format_date(dt.date.fromisoformat(text[:10]), format="d MMMM y", locale=LOCALE)
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
    return format_percent(float(x) / 100.0, format="#,##0.# %", locale=LOCALE)


def probability(p: float) -> str:
    """``90,5 %``: a probability as a lawyer reads it."""
    return format_percent(p, format="#,##0.# %", locale=LOCALE)


def yes_no(v: bool) -> str:
    return "oui" if v else "non"


def value(spec: FactSpec | None, v: Any, unit: str | None = None) -> str:
    """A fact's value from its declared type (a computed value: from its unit when known)."""
    if v is None:
        return "inconnu"
    kind = spec.type if spec is not None else None
    if isinstance(v, bool):
        return yes_no(v)
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
    """A value inside a sentence of the pack's templates, written like the rest of the verdict."""
    return value(None, v)
