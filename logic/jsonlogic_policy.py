"""JSON-Logic hard rules under an explicit policy.

json-logic-qubit is the evaluator, but two of its features are unsafe for rules written by others:
its `method` operator calls any method of the data (it can empty the caller's lists), and dotted
operator names walk attributes of registered operations (`op.__globals__...`). So a rule is first
*validated* against an allow-list (core operators + the named legal operators below) and `method` is
replaced by a blocker; only validated rules are evaluated, on a deep copy of the data.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import date
from typing import Any

import json_logic

from lexlogic.logic import calendar
from lexlogic.logic.errors import LexlogicError

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


def last_years_mean(by_year: Any, n: Any = 3) -> float | None:
    """Mean of the last `n` yearly values of a {year: amount} object (None when empty)."""
    if not isinstance(by_year, dict) or not by_year:
        return None
    years = sorted(by_year, key=lambda y: int(y))[-int(n) :]
    values = [float(by_year[y]) for y in years]
    return sum(values) / len(values)


def round_to(value: Any, step: Any) -> float:
    """Round to the nearest multiple of `step` (e.g. half months)."""
    s = float(step)
    return round(round(float(value) / s) * s, 4)


def clamp(value: Any, low: Any, high: Any) -> float:
    return max(float(low), min(float(high), float(value)))


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
    "round_to": round_to,
    "clamp": clamp,
}

for _name, _fn in LEGAL_OPERATORS.items():
    json_logic.add_operation(_name, _fn)
json_logic.add_operation("method", _blocked)

ALLOWED_OPERATORS = CORE_OPERATORS | frozenset(LEGAL_OPERATORS)


def validate(logic: Any, path: str = "$") -> None:
    """Reject any operator outside the allow-list (walks the whole rule)."""
    if isinstance(logic, list):
        for i, item in enumerate(logic):
            validate(item, f"{path}[{i}]")
        return
    if isinstance(logic, dict):
        if len(logic) != 1:
            raise JsonLogicPolicyError(f"a rule object must have exactly one operator, got {sorted(logic)}", path)
        ((op, args),) = logic.items()
        if op not in ALLOWED_OPERATORS:
            hint = " (blocked: it calls methods of the data)" if op == "method" else ""
            raise JsonLogicPolicyError(f"unknown or forbidden JSON-Logic operator '{op}'{hint}", path)
        validate(args, f"{path}.{op}")


def evaluate(logic: Any, data: dict[str, Any]) -> Any:
    """Validate then evaluate `logic` on a deep copy of `data` (the caller's data is never touched)."""
    validate(logic)
    return json_logic.jsonLogic(logic, copy.deepcopy(data))


def evaluate_validated(logic: Any, data: dict[str, Any]) -> Any:
    """Evaluate a rule that `validate` already accepted (hot path: computations of a loaded pack)."""
    return json_logic.jsonLogic(logic, copy.deepcopy(data))


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
