"""JSON-Logic evaluated on a batch of worlds at once (numpy), for the values that depend on sampled roots.

Why: a derived value is a deterministic function of the roots, evaluated per world; calling the scalar
evaluator 10^4 times per verdict costs seconds. Here a variable is a scalar (the same in every world) or
a numpy array (one entry per world, NaN where unknown). A sub-rule whose variables are all scalars is
handed to the scalar policy evaluator (``logic.jsonlogic_policy``: dates, averages by year…), so only
arithmetic, comparisons, ``if``/``and``/``or``/``!``, ``min``/``max``, ``round_to``/``clamp`` need a
vectorised meaning — the operators the pack uses on uncertain numbers. Unknown (None) propagates as
NaN; an ``if`` whose condition is unknown in a world is unknown there. ``ln`` (natural logarithm) is
available to laws in ``weights.yaml`` only (the policy's allow-list does not have it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.errors import LexlogicError

Value = Any  # scalar | None | np.ndarray


class Unvectorisable(LexlogicError, ValueError):
    """An operator without a vectorised meaning met a per-world value."""


def _is_arr(x: Any) -> bool:
    return isinstance(x, np.ndarray)


def _f(x: Any, n: int) -> np.ndarray:
    if _is_arr(x):
        if x.dtype == object:
            raise Unvectorisable("a per-world value that is not a number (a date, a text)")
        return x.astype(np.float64)
    if x is None:
        return np.full(n, np.nan)
    if isinstance(x, bool):
        return np.full(n, 1.0 if x else 0.0)
    if not isinstance(x, (int, float)):
        raise Unvectorisable(f"{type(x).__name__} value {x!r} where a number is expected per world")
    return np.full(n, float(x))


def _truth(x: Any, n: int) -> np.ndarray:
    """JSON-Logic truthiness per world (NaN = unknown)."""
    if x is None:  # a missing value is falsy in JSON-Logic (as in the scalar evaluator)
        return np.zeros(n)
    if _is_arr(x) or isinstance(x, (int, float)):
        return _f(x, n)
    return np.full(n, 1.0 if x else 0.0)


def _scalar_only(logic: Any, data: dict[str, Any]) -> bool:
    return not any(_is_arr(data.get(v)) for v in jsonlogic_policy.variables_used(logic))


def evaluate(logic: Any, data: dict[str, Any], n: int) -> Value:
    """``logic`` on ``n`` worlds; ``data`` values are scalars or arrays of length ``n``."""
    if not isinstance(logic, (dict, list)):
        return logic
    if isinstance(logic, list):
        return [evaluate(x, data, n) for x in logic]
    if _scalar_only(logic, data) and "ln" not in jsonlogic_policy.operators_used(logic):
        scalar = {k: v for k, v in data.items() if not _is_arr(v) and v is not None}
        try:
            return jsonlogic_policy.evaluate_validated(logic, scalar)
        except TypeError:
            return None
    by_rows = _by_distinct_rows(logic, data, n)
    if by_rows is not None:
        return by_rows
    ((op, args),) = logic.items()
    if op == "var":
        name = args[0] if isinstance(args, list) else args
        default = args[1] if isinstance(args, list) and len(args) > 1 else None
        v = data.get(name)
        if v is None:
            return default
        if _is_arr(v) and default is not None:
            if v.dtype == object:
                filled = np.empty(n, dtype=object)
                filled[:] = [default if x is None else x for x in v]
                return filled
            return np.where(np.isnan(v), float(default), v)
        return v
    if not isinstance(args, list):
        args = [args]
    if op == "if":
        return _if(
            [evaluate(a, data, n) if i % 2 == 0 or i == len(args) - 1 else a for i, a in enumerate(args)], data, n
        )
    vals = [evaluate(a, data, n) for a in args]
    logical = op in ("and", "or", "!", "!!")
    arr = [_truth(v, n) if logical else _f(v, n) for v in vals]
    with np.errstate(invalid="ignore", divide="ignore"):
        if op == "+":
            return np.sum(arr, axis=0)
        if op == "*":
            return np.prod(arr, axis=0)
        if op == "-":
            return -arr[0] if len(arr) == 1 else arr[0] - arr[1]
        if op == "/":
            return arr[0] / arr[1]
        if op in ("min", "max"):
            stack = np.stack(arr)
            out = np.min(stack, axis=0) if op == "min" else np.max(stack, axis=0)
            return np.where(np.isnan(stack).any(axis=0), np.nan, out)
        if op in ("<", "<=", ">", ">=", "==", "!=", "===", "!=="):
            a, b = arr[0], arr[1]
            r = {
                "<": a < b,
                "<=": a <= b,
                ">": a > b,
                ">=": a >= b,
                "==": a == b,
                "===": a == b,
                "!=": a != b,
                "!==": a != b,
            }[op]
            return np.where(np.isnan(a) | np.isnan(b), np.nan, r.astype(np.float64))
        if op == "!":
            return np.where(np.isnan(arr[0]), np.nan, (arr[0] == 0).astype(np.float64))
        if op == "!!":
            return np.where(np.isnan(arr[0]), np.nan, (arr[0] != 0).astype(np.float64))
        if op == "and":
            out = np.ones(n)
            for a in arr:
                out = np.where(np.isnan(a) | np.isnan(out), np.nan, out * (a != 0))
            return out
        if op == "or":
            out = np.zeros(n)
            for a in arr:
                out = np.where(np.isnan(a) | np.isnan(out), np.nan, np.maximum(out, (a != 0).astype(np.float64)))
            return out
        if op == "round_to":
            return np.round(np.round(arr[0] / arr[1]) * arr[1], 4)
        if op == "clamp":
            return np.clip(arr[0], arr[1], arr[2])
        if op == "ln":
            return np.log(arr[0])
    raise Unvectorisable(f"operator {op!r} on per-world values")


MAX_DISTINCT = 256


def _by_distinct_rows(logic: Any, data: dict[str, Any], n: int) -> np.ndarray | None:
    """When the per-world variables take few distinct joint values (yes/no roots, a date chosen by a
    root), evaluate the scalar rule once per distinct row: the scalar semantics exactly (nulls,
    coercions, dates), at the cost of a few calls. Continuous draws (many distinct values) go through the
    vectorised operators instead. A result that is not a number per world comes back as an object array."""
    names = [v for v in sorted(jsonlogic_policy.variables_used(logic)) if _is_arr(data.get(v))]
    if not names or "ln" in jsonlogic_policy.operators_used(logic):
        return None
    cols = [data[v] for v in names]
    if all(c.dtype != object for c in cols):
        joint = _joint_codes(cols)
        if joint is None:
            return None
        first, inverse = joint
        stacked = np.stack(cols, axis=1)
        rows = [tuple(r) for r in stacked[first]]
    else:
        index: dict[tuple[Any, ...], int] = {}
        inv = np.empty(n, dtype=np.int64)
        for j, row in enumerate(zip(*cols)):
            key = tuple(None if (isinstance(x, float) and np.isnan(x)) else x for x in row)
            inv[j] = index.setdefault(key, len(index))
            if len(index) > MAX_DISTINCT:
                return None
        rows = list(index)
        inverse = inv
    scalar = {k: v for k, v in data.items() if not _is_arr(v) and v is not None}
    results: list[Any] = []
    for row in rows:
        d = dict(scalar)
        for v, x in zip(names, row):
            if x is None or (isinstance(x, float) and np.isnan(x)):
                continue
            d[v] = bool(x) if data.get(f"__bool__{v}") else (float(x) if isinstance(x, (int, float, np.number)) else x)
        try:
            results.append(jsonlogic_policy.evaluate_validated(logic, d))
        except (TypeError, ValueError):
            results.append(None)
    if all(r is None or isinstance(r, (bool, int, float)) for r in results):
        out = np.array([np.nan if r is None else float(r) for r in results])
    else:
        out = np.empty(len(results), dtype=object)
        out[:] = results
    return out[inverse]


def _joint_codes(cols: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """(index of one world per distinct joint row, each world's row number), or None past MAX_DISTINCT.

    Column by column (a 1-d sort each, and a column with too many values stops at once), not
    ``np.unique(axis=0)``, whose row sort costs ~10× more on 2^14 continuous draws. The bound counts
    rows as ``np.unique(axis=0)`` did (every row holding a NaN apart: NaN ≠ NaN), so the same rules take
    the per-row path as before; below it, NaN rows are grouped (a NaN cell is read as missing anyway)."""
    n = cols[0].shape[0]
    code = np.zeros(n, dtype=np.int64)
    bound = 1  # codes are < bound: compressed only when the next column could overflow int64
    nan_rows = np.zeros(n, dtype=bool)
    for c in cols:
        if c.dtype.kind == "f":
            nan_rows |= np.isnan(c)
        values, inv = np.unique(c, return_inverse=True)
        if len(values) > MAX_DISTINCT:
            return None
        if bound * len(values) >= 1 << 62:
            uniq, code = np.unique(code, return_inverse=True)
            code, bound = code.reshape(-1), len(uniq)
        code = code * len(values) + inv.reshape(-1)
        bound *= len(values)
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    n_nan = int(nan_rows.sum())
    if n_nan and len(np.unique(code[~nan_rows])) + n_nan > MAX_DISTINCT:
        return None
    if len(first) > MAX_DISTINCT:
        return None
    return first, inverse.reshape(-1)


def _if(args: list[Any], data: dict[str, Any], n: int) -> Value:
    """``if`` chains [c1, v1, c2, v2, …, else]: values are evaluated only as arrays where needed."""
    if len(args) == 1:
        return args[0]
    if len(args) == 0:
        return None
    cond = _truth(args[0], n)
    then = _f(evaluate(args[1], data, n), n)
    rest = _f(_if(args[2:], data, n) if len(args) > 2 else None, n)
    return np.where(np.isnan(cond), np.nan, np.where(cond != 0, then, rest))


def computation(logic: Any, kind: str, data: dict[str, Any], n: int) -> Value:
    """A pack computation on ``n`` worlds, coerced as the scalar path does (``engine.values._compute``):
    yes/no values to 0/1, months, amounts and percents rounded to 4 decimals."""
    out = evaluate(logic, data, n)
    if out is None:
        return None
    if _is_arr(out) and out.dtype == object:
        return out
    if not _is_arr(out):
        if kind == "bool":
            return bool(out)
        if kind in ("months", "amount", "percent") and isinstance(out, (int, float)):
            return round(float(out), 4)
        return out
    if kind == "bool":
        return np.where(np.isnan(out), np.nan, (out != 0).astype(np.float64))
    if kind in ("months", "amount", "percent"):
        return np.round(out, 4)
    return out
