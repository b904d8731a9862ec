"""Dated legal parameters of a pack (`parameters.yaml`), OpenFisca-style: named values, never literals.

A parameter is a number (or a date) the law fixes for a period: the 18-month safe harbour since
26/04/2019, the 5-year prescription, the 40 € recovery indemnity. It has a unit, a legal reference (a
source id of the manifest) and one value per validity period::

    parameters:
      safe_harbour_months:
        label: "Préavis écrit ouvrant la sécurité du texte"
        unit: mois
        reference: L442_1_II
        values:
          - {from: 2019-04-26, value: 18}

Computations read a parameter with ``{param: safe_harbour_months}``; labels, annotations and RULES.md
write ``{safe_harbour_months}`` (replaced by the value and its unit); properties write
``{param: safe_harbour_months}`` where a number is expected. The value used for a case is the one in
force at the case's relevant date (the parameter's ``date_fact``, else the file's, else the manifest's
``versions.date_fact``), and the proof shows it with its period and reference.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from lexlogic.logic.deferred import DeferredModel

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class ParameterPeriod(DeferredModel):
    """One value and the period it is in force (bounds inclusive; open when absent)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")
    valid_from: date | None = Field(default=None, alias="from")
    valid_to: date | None = Field(default=None, alias="to")
    value: float | int | date
    reference: str | None = Field(default=None, description="source id for this period, if not the parameter's")
    line: int = 0

    def covers(self, day: date) -> bool:
        return (self.valid_from is None or day >= self.valid_from) and (self.valid_to is None or day <= self.valid_to)


class Parameter(DeferredModel):
    """A named legal value with its unit, reference and validity periods."""

    model_config = ConfigDict(extra="forbid")
    name: str = ""
    label: str
    unit: str = Field(description="mois | ans | jours | EUR | % | points | date | coefficient …")
    reference: str = Field(description="id of the legal source in pack.yaml `sources`")
    values: list[ParameterPeriod] = Field(min_length=1)
    date_fact: str | None = Field(default=None, description="the date that selects the period (default: the file's)")
    words: dict[str, str] = Field(
        default_factory=dict, description="how a value is written in prose, e.g. {'18': 'dix-huit'}"
    )
    line: int = 0
    file: str = ""

    @model_validator(mode="after")
    def _ordered(self) -> Parameter:
        periods = sorted(self.values, key=lambda p: p.valid_from or date.min)
        for a, b in zip(periods, periods[1:]):
            if a.valid_to is None or (b.valid_from is not None and a.valid_to >= b.valid_from):
                raise ValueError(
                    f"periods overlap: {a.valid_from or '…'}→{a.valid_to or '…'} and {b.valid_from or '…'}→…"
                )
        return self

    @property
    def constant(self) -> bool:
        """One period with no bounds: the date does not matter."""
        return len(self.values) == 1 and self.values[0].valid_from is None and self.values[0].valid_to is None

    def period_at(self, day: date | None) -> ParameterPeriod | None:
        """The period in force at `day` (None: no date → only a constant parameter has a value)."""
        if self.constant:
            return self.values[0]
        if day is None:
            return None
        return next((p for p in self.values if p.covers(day)), None)

    def current(self) -> ParameterPeriod:
        """The latest period (what labels and RULES.md print)."""
        return max(self.values, key=lambda p: p.valid_from or date.min)

    def show(self, value: Any) -> str:
        """A value with its unit, in prose (``18 mois``, ``40 €``, ``26/04/2019``)."""
        if isinstance(value, date):
            return value.strftime("%d/%m/%Y")
        text = _number(value)
        word = self.words.get(text)
        if word:
            text = word
        unit = {"EUR": "€", "pct": "%"}.get(self.unit, self.unit)
        if unit in ("date", "coefficient", ""):
            return text
        return f"{text} {unit}"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace(".", ",")


class ParameterFile(DeferredModel):
    model_config = ConfigDict(extra="forbid")
    date_fact: str | None = None
    parameters: dict[str, Parameter] = Field(default_factory=dict)


def placeholders(text: str) -> list[str]:
    """Parameter names written as ``{name}`` in a label."""
    return PLACEHOLDER.findall(text or "")


def render(text: str, parameters: dict[str, Parameter], day: date | None = None) -> str:
    """Replace ``{name}`` by the parameter's value in force at `day` (the latest one without a date)."""
    if not text or "{" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        p = parameters.get(m.group(1))
        if p is None:
            return m.group(0)
        period = p.period_at(day) if day is not None else p.current()
        period = period or p.current()
        return p.show(period.value)

    return PLACEHOLDER.sub(sub, text)


def params_in_logic(logic: Any) -> set[str]:
    """Names read through ``{param: name}`` in a JSON-Logic rule."""
    if isinstance(logic, list):
        return set().union(*(params_in_logic(x) for x in logic)) if logic else set()
    if isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        if op == "param":
            name = args[0] if isinstance(args, list) and args else args
            return {str(name)} if isinstance(name, str) else set()
        return params_in_logic(args)
    return set()


def params_as_vars(logic: Any, parameters: dict[str, Parameter] | None = None) -> Any:
    """``{param: x}`` → ``{var: x}``: the engine passes the dated value in the data, as any input.
    ``{param: [x, periods]}`` → x's whole table ``[[from, to, value], …]`` as a literal (for
    ``period_sum``: a value that changes during the period a computation covers, e.g. a semester rate)."""
    if isinstance(logic, list):
        return [params_as_vars(x, parameters) for x in logic]
    if isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        if op == "param":
            name = args[0] if isinstance(args, list) and args else args
            if isinstance(args, list) and args[1:] == ["periods"] and parameters and name in parameters:
                return periods_table(parameters[name])
            return {"var": name}
        return {op: params_as_vars(args, parameters)}
    return logic


def periods_table(p: Parameter) -> list[list[Any]]:
    """A parameter's periods as JSON-Logic literals: ``[from | None, to | None, value]`` (ISO dates)."""

    def iso(d: date | None) -> str | None:
        return d.isoformat() if d else None

    return [
        [iso(x.valid_from), iso(x.valid_to), x.value] for x in sorted(p.values, key=lambda x: x.valid_from or date.min)
    ]


def resolve_in(obj: Any, parameters: dict[str, Parameter]) -> Any:
    """``{param: x}`` anywhere in a YAML value (properties' bounds) → the current value of x."""
    if isinstance(obj, dict):
        if set(obj) - {"__line__"} == {"param"}:
            p = parameters.get(str(obj["param"]))
            if p is not None:
                value = p.current().value
                return value.isoformat() if isinstance(value, date) else value
            return obj
        return {k: resolve_in(v, parameters) for k, v in obj.items()}
    if isinstance(obj, list):
        return [resolve_in(v, parameters) for v in obj]
    return obj


def params_in_yaml(obj: Any) -> set[str]:
    """Parameter names referenced as ``{param: x}`` or ``{x}`` in any YAML value."""
    out: set[str] = set()
    if isinstance(obj, dict):
        if set(obj) - {"__line__"} == {"param"}:
            out.add(str(obj["param"]))
        for k, v in obj.items():
            if k != "__line__":
                out |= params_in_yaml(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= params_in_yaml(v)
    elif isinstance(obj, str):
        out |= set(placeholders(obj))
    return out
