"""Filling a pack's sentences: ``{name}`` → a value of the case, or a parameter in force.

Templates are pack data (``pack.yaml`` outcomes ``yes``/``no``, the remedy's ``sentence``); the engine and
the renderers only call ``RulePack.outcome_sentence`` / ``remedy_sentence``, which use this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from lexlogic.logic.parameters import Parameter

_SLOT = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def money(x: float) -> str:
    """1234.5 → '1 235 €' (French grouping, no decimals)."""
    return f"{x:,.0f} €".replace(",", "\u202f")


def show(value: Any) -> str:
    """A case value as prose: dates dd/mm/yyyy, whole floats without decimals, booleans oui/non."""
    value = getattr(value, "value", value)  # a ValueInfo
    if isinstance(value, bool):
        return "oui" if value else "non"
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return f"{value[8:10]}/{value[5:7]}/{value[:4]}"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").replace(".", ",")
    return str(value)


def slots(template: str) -> list[str]:
    return _SLOT.findall(template or "")


def fill(
    template: str,
    values: dict[str, Any],
    parameters: dict[str, Parameter],
    day: date | None = None,
    render: Callable[[Any], str] | None = None,
) -> str:
    """Replace each ``{name}``: a value of `values` first (written by ``render``, plain ``show`` by default),
    then a parameter (value in force at `day`); an unknown slot is left as is (``lexlogic check`` reports it)."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        p = parameters.get(name)
        v = values.get(name)
        if v is not None and getattr(v, "known", True) is False:
            return m.group(0)  # unknown in this case: the caller falls back to the label
        if p is not None:  # a parameter: its value in force, with its unit
            if v is not None:
                raw = getattr(v, "value", v)
                return p.show(date.fromisoformat(raw) if isinstance(raw, str) and _ISO.fullmatch(raw) else raw)
            period = p.period_at(day) if day is not None else None
            return p.show((period or p.current()).value)
        if v is not None:
            return (render or show)(getattr(v, "value", v))
        return m.group(0)

    return _SLOT.sub(sub, template)


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")


def filled(text: str) -> bool:
    """No slot left: every ``{name}`` was replaced."""
    return not _SLOT.search(text)
