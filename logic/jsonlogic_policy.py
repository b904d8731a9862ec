"""JSON-Logic hard rules under an explicit policy.

json-logic-qubit computes the core operators, but two of its features are unsafe for rules written by
others: its `method` operator calls any method of the data (it can empty the caller's lists), and dotted
operator names walk attributes of registered operations (`op.__globals__...`). And its operator table is a
module global that `add_operation` changes for the whole process. So the policy owns its own table (a
`JsonLogicEvaluator`: the core operators minus `method`, plus the named legal operators below, `method`
mapped to a blocker), importing this module changes nothing global, and a rule is first *validated* against
the allow-list. No operator of the table mutates its arguments, so the data is not copied; a result that is
a list or an object is copied, so the caller never holds a piece of the data it passed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

import json_logic

from lexlogic.logic import calendar, working_days
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.jsonlogic_eval import JsonLogicEvaluator

CORE_OPERATORS = frozenset(
    {
        "var",
        "missing",
        "missing_some",
        "if",
        "?:",
        "and",
        "or",
        "!",
        "!!",
        "==",
        "===",
        "!=",
        "!==",
        "<",
        "<=",
        ">",
        ">=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "min",
        "max",
        "in",
        "cat",
        "substr",
        "merge",
        "map",
        "filter",
        "reduce",
        "all",
        "some",
        "none",
    }
)


class JsonLogicPolicyError(LexlogicError, ValueError):
    """A rule uses an operator outside the allow-list, or is malformed."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


# ------------------------------------------------------------------ named operators for legal rules
# Date arithmetic is lexlogic.logic.calendar's (one convention for every layer); JSON has no date type, so
# the operators that return a date return it as an ISO string.
def _iso(fn: Callable[[object, object], date]) -> Callable[[object, object], str]:
    def operator(day: object, count: object) -> str:
        return fn(day, count).isoformat()

    operator.__name__ = fn.__name__
    operator.__doc__ = fn.__doc__
    return operator


def _end_of_month(day: object) -> str:
    return calendar.end_of_month(day).isoformat()


def date_before(a: Any, b: Any) -> bool:
    return calendar.to_date(a) < calendar.to_date(b)


def date_on_or_after(a: Any, b: Any) -> bool:
    return calendar.to_date(a) >= calendar.to_date(b)


def last_years_mean(by_year: Any, n: Any = 3, before: Any = None) -> float | None:
    """Mean of the last `n` yearly values of a {year: amount} object (None when empty); with `before`
    (a year or a date), only the years strictly before it count: courts average the years preceding the
    rupture, not the last years a party supplied."""
    if not isinstance(by_year, dict) or not by_year:
        return None
    limit = None if before is None else int(str(before)[:4])
    years = sorted((y for y in by_year if limit is None or int(y) < limit), key=lambda y: int(y))[-int(n) :]
    if not years:
        return None
    values = [float(by_year[y]) for y in years]
    return sum(values) / len(values)


def period_sum(table: Any, start: Any, end: Any, floor: Any = None) -> float | None:
    """Sum over the days from `start` to `end` (both included) of the value in force each day, read in a
    dated parameter's periods ``[[from, to, value], …]`` (``{param: [name, periods]}``); each value is
    never below `floor` when given. A rate fixed per semester and a delay across 1 January or 1 July is
    then split per semester. None when a day is covered by no period (no value in force)."""
    first, last = calendar.to_date(start), calendar.to_date(end)
    if last < first:
        return 0.0
    total, covered = 0.0, 0
    for valid_from, valid_to, value in table:
        lo = max(first, calendar.to_date(valid_from)) if valid_from else first
        hi = min(last, calendar.to_date(valid_to)) if valid_to else last
        if hi < lo:
            continue
        days = (hi - lo).days + 1
        rate = float(value) if floor is None else max(float(value), float(floor))
        total += rate * days
        covered += days
    return total if covered == (last - first).days + 1 else None


def round_to(value: Any, step: Any) -> float:
    """Round to the nearest multiple of `step` (e.g. half months)."""
    s = float(step)
    return round(round(float(value) / s) * s, 4)


def power(base: Any, exponent: Any) -> float:
    """``base ** exponent`` for a non-negative base (a law ``scale · years ^ b`` fitted on decisions)."""
    b = float(base)
    if b < 0:
        raise ValueError(f"power: negative base {b}")
    return float(b ** float(exponent))


def clamp(value: Any, low: Any, high: Any) -> float:
    return max(float(low), min(float(high), float(value)))


def _iso_date(fn: Callable[..., date]) -> Callable[..., str]:
    """A working-day operator that returns a date, returning it as an ISO string (optional region last)."""

    def operator(*args: Any) -> str:
        return fn(*args).isoformat()

    operator.__name__ = fn.__name__
    operator.__doc__ = fn.__doc__
    return operator


def _blocked(*_args: Any) -> Any:
    raise JsonLogicPolicyError("operator 'method' is blocked: it can call methods of the case data")


LEGAL_OPERATORS: dict[str, Callable[..., Any]] = {
    "months_between": calendar.months_between,
    "add_months": _iso(calendar.add_months),
    "add_days": _iso(calendar.add_days),
    "end_of_month": _end_of_month,
    "days_end_of_month": _iso(calendar.days_end_of_month),
    "end_of_month_days": _iso(calendar.end_of_month_days),
    "days_between": calendar.days_between,
    "date_before": date_before,
    "date_on_or_after": date_on_or_after,
    "last_years_mean": last_years_mean,
    "period_sum": period_sum,
    "round_to": round_to,
    "clamp": clamp,
    "power": power,
    # working days (issue 30): French public holidays from the pinned `holidays` library
    "weekday": working_days.weekday,
    "is_working_day": working_days.is_working_day,
    "is_public_holiday": working_days.is_public_holiday,
    "next_working_day": _iso_date(working_days.next_working_day),
    "working_day_on_or_after": _iso_date(working_days.working_day_on_or_after),
    "add_working_days": _iso_date(working_days.add_working_days),
}

_SIMPLE_CORE = CORE_OPERATORS - JsonLogicEvaluator.CONTROL - JsonLogicEvaluator.SCOPED - JsonLogicEvaluator.DATA


class JsonLogicPolicy:
    """An allow-list and the evaluator that runs exactly it: ``validate`` refuses any other operator,
    ``evaluate`` dispatches only on the policy's own table."""

    def __init__(self, legal: Mapping[str, Callable[..., Any]]) -> None:
        core = {name: fn for name, fn in json_logic.operations.items() if name in _SIMPLE_CORE}  # read, not changed
        self.allowed = CORE_OPERATORS | frozenset(legal)
        self._evaluator = JsonLogicEvaluator({**core, **legal, "method": _blocked})

    def validate(self, logic: Any, path: str = "$") -> None:
        """Reject any operator outside the allow-list (walks the whole rule)."""
        if isinstance(logic, list):
            for i, item in enumerate(logic):
                self.validate(item, f"{path}[{i}]")
            return
        if isinstance(logic, dict):
            if len(logic) != 1:
                raise JsonLogicPolicyError(f"a rule object must have exactly one operator, got {sorted(logic)}", path)
            ((op, args),) = logic.items()
            if op not in self.allowed:
                hint = " (blocked: it calls methods of the data)" if op == "method" else ""
                raise JsonLogicPolicyError(f"unknown or forbidden JSON-Logic operator '{op}'{hint}", path)
            self.validate(args, f"{path}.{op}")

    def evaluate(self, logic: Any, data: dict[str, Any]) -> Any:
        """Validate then evaluate ``logic`` (the caller's data is never touched nor handed back)."""
        self.validate(logic)
        return self.evaluate_validated(logic, data)

    def evaluate_validated(self, logic: Any, data: dict[str, Any]) -> Any:
        """Evaluate a rule that ``validate`` already accepted (hot path: computations of a loaded pack)."""
        result = self._evaluator(logic, data)
        return copy.deepcopy(result) if isinstance(result, (list, dict)) else result


POLICY = JsonLogicPolicy(LEGAL_OPERATORS)
"""The policy of every rule pack: the core language and the legal operators above."""
ALLOWED_OPERATORS = POLICY.allowed


def validate(logic: Any, path: str = "$") -> None:
    """``POLICY.validate``."""
    POLICY.validate(logic, path)


def evaluate(logic: Any, data: dict[str, Any]) -> Any:
    """``POLICY.evaluate``."""
    return POLICY.evaluate(logic, data)


def evaluate_validated(logic: Any, data: dict[str, Any]) -> Any:
    """``POLICY.evaluate_validated``."""
    return POLICY.evaluate_validated(logic, data)


def operators_used(logic: Any) -> set[str]:
    if isinstance(logic, list):
        return set().union(*(operators_used(x) for x in logic)) if logic else set()
    if isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        return {op} | operators_used(args)
    return set()


def variables_used(logic: Any) -> set[str]:
    """Names read through `var` (first path segment)."""
    if isinstance(logic, list):
        return set().union(*(variables_used(x) for x in logic)) if logic else set()
    if isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        if op == "var":
            name = args[0] if isinstance(args, list) else args
            return {str(name).split(".")[0]} if isinstance(name, str) and name else set()
        return variables_used(args)
    return set()
