"""A JSON-Logic evaluator that owns its operator table (no module-global registry is read or written).

json-logic-qubit keeps its operators in module globals (``add_operation`` mutates them for every caller in
the process) and walks dotted operator names as attribute paths. This evaluator keeps the same semantics
for the core language (json-logic-qubit's own functions compute the common operators) but dispatches only
on the table it was built with: an operator absent from it is an error, a dotted name is just a name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import reduce
from typing import Any

from lexlogic.logic.errors import LexlogicError

Operator = Callable[..., Any]


class UnknownOperator(LexlogicError, ValueError):
    """An operator that the evaluator's table does not hold."""


class JsonLogicEvaluator:
    """Evaluates JSON-Logic with the control, scoped and data operators of the language plus ``operators``
    (simple operators: called with their evaluated arguments)."""

    CONTROL = frozenset({"if", "?:", "and", "or"})
    SCOPED = frozenset({"filter", "map", "reduce", "all", "none", "some"})
    DATA = frozenset({"var", "missing", "missing_some"})

    def __init__(self, operators: Mapping[str, Operator]) -> None:
        clash = (self.CONTROL | self.SCOPED | self.DATA) & set(operators)
        if clash:
            raise ValueError(f"operators {sorted(clash)} are part of the language and cannot be replaced")
        self._operators = dict(operators)

    @property
    def names(self) -> frozenset[str]:
        """Every operator this evaluator runs."""
        return frozenset(self._operators) | self.CONTROL | self.SCOPED | self.DATA

    def __call__(self, logic: Any, data: Any = None) -> Any:
        if isinstance(logic, list):
            return [self(item, data) for item in logic]
        if not (isinstance(logic, dict) and len(logic) == 1):
            return logic
        ((op, values),) = logic.items()
        op = str(op)
        values = values if isinstance(values, list) else [values]
        data = data or {}
        if op in self.CONTROL:
            return self._control(op, data, values)
        if op in self.SCOPED:
            return self._scoped(op, data, *values)
        args = [self(v, data) for v in values]
        if op in self.DATA:
            return _DATA[op](data, *args)
        fn = self._operators.get(op)
        if fn is None:
            raise UnknownOperator(f"Unrecognized operation {op!r}")
        return fn(*args)

    def _control(self, op: str, data: Any, args: list[Any]) -> Any:
        if op == "?:" and len(args) != 3:
            raise TypeError(f"'?:' takes 3 arguments, got {len(args)}")
        if op in ("if", "?:"):
            for i in range(0, len(args) - 1, 2):
                if _is_true(self(args[i], data)):
                    return self(args[i + 1], data)
            return self(args[-1], data) if len(args) % 2 else None
        current: Any = False
        for arg in args:
            current = self(arg, data)
            if _is_true(current) == (op == "or"):
                return current
        return current

    def _scoped(self, op: str, data: Any, items: Any, logic: Any, *initial: Any) -> Any:
        seq = self(items, data)
        if op == "reduce":
            start = initial[0] if initial else None
            if not isinstance(seq, list):
                return start
            return reduce(lambda acc, cur: self(logic, {"accumulator": acc, "current": cur}), seq, start)
        if not isinstance(seq, list):
            return {"filter": [], "map": [], "all": False, "none": True, "some": False}[op]
        if op == "map":
            return [self(logic, item) for item in seq]
        if op == "all":
            return bool(seq) and all(_is_true(self(logic, item)) for item in seq)
        kept = [item for item in seq if _is_true(self(logic, item))]
        return {"filter": kept, "none": not kept, "some": bool(kept)}[op]


def _is_true(value: Any) -> bool:
    """JSON-Logic truthiness (an empty list is false, as in Python)."""
    return bool(value)


def _var(data: Any, name: Any = None, default: Any = None) -> Any:
    if name is None or name == "":
        return data
    try:
        for key in str(name).split("."):
            try:
                data = data[key]
            except TypeError:
                data = data[int(key)]
    except (KeyError, TypeError, ValueError):  # as json-logic-qubit: an index out of range raises
        return default
    return data


def _missing(data: Any, *names: Any) -> list[Any]:
    wanted = names[0] if names and isinstance(names[0], list) else names
    return [n for n in wanted if _var(data, n) in (None, "")]


def _missing_some(data: Any, need: Any, names: Any) -> list[Any]:
    missing = _missing(data, names)
    return [] if len(names) - len(missing) >= need else missing


_DATA: dict[str, Operator] = {"var": _var, "missing": _missing, "missing_some": _missing_some}
