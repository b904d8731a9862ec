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

from collections.abc import Callable
from typing import Any

import numpy as np

from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.memos import Memos, own

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


_USED: dict[int, tuple[Any, frozenset[str], frozenset[str], bool]] = {}


def _used(logic: Any) -> tuple[frozenset[str], frozenset[str]]:
    """(variables, operators) of a rule, walked once per rule object (the pack's rules are evaluated on
    every verdict; walking their trees again each time was ~10 % of the numbers)."""
    hit = _walked(logic)
    return hit[1], hit[2]


def _walked(logic: Any) -> tuple[Any, frozenset[str], frozenset[str], bool]:
    hit = _USED.get(id(logic))
    if hit is None or hit[0] is not logic:
        if len(_USED) > 8192:
            _USED.clear()
        ops = frozenset(jsonlogic_policy.operators_used(logic))
        hit = _USED[id(logic)] = (
            logic,
            frozenset(jsonlogic_policy.variables_used(logic)),
            ops,
            not (ops & {"missing", "missing_some"}) and _literal_vars(logic),
        )
    return hit


def _literal_vars(logic: Any) -> bool:
    """Every ``var`` of the rule names its variable by a non-empty literal (so the rule reads its data only
    through the names ``variables_used`` lists)."""
    if isinstance(logic, list):
        return all(_literal_vars(x) for x in logic)
    if not (isinstance(logic, dict) and len(logic) == 1):
        return True
    ((op, args),) = logic.items()
    if op == "var":
        name = args[0] if isinstance(args, list) and args else args
        rest = args[1:] if isinstance(args, list) else []
        # a default that is itself a rule is not walked by ``variables_used``: read everything then
        return isinstance(name, str) and name != "" and not any(isinstance(r, (dict, list)) for r in rest)
    return _literal_vars(args)


def _scalars(logic: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The data a rule evaluated once (not per world) sees: the known scalars — only those it names, when it
    reads its data by literal names only (copying the ~100 entries of a verdict's data per rule was most of
    a rule's fixed cost)."""
    _, names, _, literal = _walked(logic)
    if literal:
        out = {}
        for k in names:
            v = data.get(k)
            if v is not None and not _is_arr(v):
                out[k] = v
        return out
    return {k: v for k, v in data.items() if not _is_arr(v) and v is not None}


def literal_reads(logic: Any) -> bool:
    """Whether a rule reads its data by literal names only (no ``missing``, no computed ``var``)."""
    return _walked(logic)[3]


def variables(logic: Any) -> frozenset[str]:
    """The names a rule reads through ``var`` (memoised per rule object)."""
    return _used(logic)[0]


def _scalar_only(logic: Any, data: dict[str, Any]) -> bool:
    return not any(_is_arr(data.get(v)) for v in _used(logic)[0])


def evaluate(logic: Any, data: dict[str, Any], n: int, codes: Codes | None = None) -> Value:
    """``logic`` on ``n`` worlds; ``data`` values are scalars or arrays of length ``n``; ``codes``: the
    verdict's factorised columns (see ``Codes``), or None (each rule factorises its own columns)."""
    if not isinstance(logic, (dict, list)):
        return logic
    if isinstance(logic, list):
        return [evaluate(x, data, n, codes) for x in logic]
    if _scalar_only(logic, data) and "ln" not in _used(logic)[1]:
        scalar = _scalars(logic, data)
        try:
            return jsonlogic_policy.evaluate_validated(logic, scalar)
        except TypeError:
            return None
    by_rows = _by_distinct_rows(logic, data, n, codes)
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
            [evaluate(a, data, n, codes) if i % 2 == 0 or i == len(args) - 1 else a for i, a in enumerate(args)],
            data,
            n,
            codes,
        )
    vals = [evaluate(a, data, n, codes) for a in args]
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


def _by_distinct_rows(logic: Any, data: dict[str, Any], n: int, codes: Codes | None = None) -> np.ndarray | None:
    """When the per-world variables take few distinct joint values (yes/no roots, a date chosen by a
    root), evaluate the scalar rule once per distinct row: the scalar semantics exactly (nulls,
    coercions, dates), at the cost of a few calls. Continuous draws (many distinct values) go through the
    vectorised operators instead. A result that is not a number per world comes back as an object array."""
    variables, operators = _used(logic)
    names = [v for v in sorted(variables) if _is_arr(data.get(v))]
    if not names or "ln" in operators:
        return None
    cols = [data[v] for v in names]
    numeric = all(c.dtype != object for c in cols)
    if codes is not None and all(codes.is_constant(c) for c in cols):  # one row, no per-world work
        if numeric and any(c.dtype.kind == "f" and np.isnan(c[0]) for c in cols):
            return None  # as ``_joint_codes``: a NaN in every row, too many rows for this path
        return codes.constant(_row_results(logic, data, names, [tuple(c[0] for c in cols)]), n)
    joint = _joint_codes(cols, codes) if numeric or codes is not None else None
    if joint is not None:
        first, inverse = joint
        rows: list[tuple[Any, ...]] = list(zip(*(c[first] for c in cols)))
    elif numeric or codes is not None and all(c.dtype != object or codes.known(c) for c in cols):
        return None
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
    out = _row_results(logic, data, names, rows)
    if codes is not None:
        return codes.spread(out, inverse, n)
    return out[inverse]


def _row_results(logic: Any, data: dict[str, Any], names: list[str], rows: list[tuple[Any, ...]]) -> np.ndarray:
    """The scalar rule on each distinct row of its per-world variables ``names`` (numbers as floats, NaN
    for unknown; else an object array)."""
    scalar = _scalars(logic, data)
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
        return np.array([np.nan if r is None else float(r) for r in results])
    out = np.empty(len(results), dtype=object)
    out[:] = results
    return out


class Codes:
    """Each per-world column factorised once per verdict (its distinct values' count, each world's code,
    one world per code): a rule's distinct input rows are then combined from its columns' codes, without
    sorting the 2^14 draws again for every rule (``np.unique`` per column and per rule was most of a
    verdict's numbers). A rule's result gets its codes from its distinct rows' results. Keyed by the
    array's identity (the entry holds the array, so the identity cannot be reused while it is kept)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[np.ndarray, np.ndarray, int, np.ndarray]] = {}

    def known(self, col: np.ndarray) -> bool:
        hit = self._by_id.get(id(col))
        return hit is not None and hit[0] is col

    def of(self, col: np.ndarray) -> tuple[np.ndarray, int] | None:
        """(each world's code, number of codes); the count is MAX_DISTINCT + 1 for a column past the bound."""
        hit = self._by_id.get(id(col))
        if hit is None or hit[0] is not col:
            if col.dtype == object:
                return None
            self._by_id[id(col)] = hit = (col, *_factorise(col))
        return hit[1], hit[2]

    def constant(self, value: np.ndarray, n: int) -> np.ndarray:
        """``value`` (one entry) in every one of ``n`` worlds, as a read-only broadcast: no per-world work
        for a column that is the same in every world (most of a verdict's derived values), and the rules
        that read it combine no codes for it."""
        col = np.broadcast_to(value, (n,))
        self._by_id[id(col)] = (col, _ZEROS(n), 1, np.zeros(1, dtype=np.int64))
        return col

    def adopt(self, col: np.ndarray, digits: np.ndarray, k: int) -> None:
        """``col`` is a function of a sampled root's ``digits`` (its option numbers 0 … k−1, one value per
        option): when every option occurs, the digits are its codes — no sort of the column."""
        if k > MAX_DISTINCT:
            return
        d = digits.astype(np.int64)
        if d.size == 0 or int(d.min()) < 0 or int(d.max()) >= k:
            return
        first = np.full(k, -1, dtype=np.int64)
        first[d[::-1]] = _arange(d.size)[::-1]  # the first world of each option (last write wins)
        if (first < 0).any():  # an option no world drew: the column's own factorisation
            return
        self._by_id[id(col)] = (col, d, k, first)

    def entry(self, col: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, np.ndarray] | None:
        """``col``'s codes as kept here (for ``put`` into another verdict's codes), or None."""
        hit = self._by_id.get(id(col))
        return hit if hit is not None and hit[0] is col else None

    def put(self, entry: tuple[np.ndarray, np.ndarray, int, np.ndarray]) -> None:
        """Codes another verdict learned for a column this one reads too (``entry``)."""
        self._by_id[id(entry[0])] = entry

    def copy(self) -> Codes:
        """Another verdict pass over the same root columns (their codes kept)."""
        out = Codes()
        out._by_id = dict(self._by_id)
        return out

    def is_constant(self, col: np.ndarray) -> bool:
        hit = self._by_id.get(id(col))
        return hit is not None and hit[0] is col and hit[2] == 1

    def spread(self, results: np.ndarray, inverse: np.ndarray, n: int) -> np.ndarray:
        """``results[inverse]`` (each world's result from its distinct row), with its codes; a broadcast when
        every row gave the same result."""
        if results.dtype == object:
            try:
                index: dict[Any, int] = {}
                remap = np.array([index.setdefault(r, len(index)) for r in results], dtype=np.int64)
            except TypeError:  # an unhashable result (a list): found by the slow path if ever read
                return results[inverse]
            size = len(index)
        else:
            values, remap = np.unique(results, return_inverse=True)
            size = len(values)
        if size == 1:
            return self.constant(results[:1], n)
        spread = results[inverse]
        code = remap.reshape(-1)[inverse]
        rep = np.zeros(size, dtype=np.int64)
        rep[code] = _arange(code.size)
        self._by_id[id(spread)] = (spread, code, size, rep)
        return spread

    def derive(self, new: np.ndarray, old: np.ndarray) -> None:
        """``new`` is an element-wise function of ``old``: its codes follow from one world per code."""
        hit = self._by_id.get(id(old))
        if hit is None or hit[0] is not old or hit[2] > MAX_DISTINCT:
            return
        values, remap = np.unique(new[hit[3]], return_inverse=True)
        code = remap.reshape(-1)[hit[1]]
        rep = np.zeros(len(values), dtype=np.int64)
        rep[code] = _arange(code.size)
        self._by_id[id(new)] = (new, code, len(values), rep)


_ARANGES: dict[int, np.ndarray] = {}


def _ZEROS(n: int) -> np.ndarray:  # noqa: N802 - a constant's codes: 0 in every world, no memory per world
    return np.broadcast_to(np.int64(0), (n,))


def _arange(n: int) -> np.ndarray:
    """0 … n−1, made once per size (read-only: shared)."""
    a = _ARANGES.get(n)
    if a is None:
        a = np.arange(n)
        a.flags.writeable = False
        if len(_ARANGES) < 16:
            _ARANGES[n] = a
    return a


def _factorise(col: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """(each entry's code, number of codes, one entry per code) of a numeric column: small whole numbers
    (yes/no roots, cells) by a table, a continuous draw recognised on its first entries, else a sort."""
    if len(np.unique(col[: 4 * MAX_DISTINCT])) > MAX_DISTINCT:  # a continuous draw: no sort of all of it
        return np.zeros(0, dtype=np.int64), MAX_DISTINCT + 1, np.zeros(0, dtype=np.int64)
    if col.size and np.isfinite(col).all():
        lo, hi = float(col.min()), float(col.max())
        if lo >= 0 and hi < 1 << 12 and bool((col == np.floor(col)).all()):
            first, inverse = _dense(col.astype(np.int64), int(hi) + 1)
            return inverse, len(first), first
    values, rep, inv = np.unique(col, return_index=True, return_inverse=True)
    return inv.reshape(-1), len(values), rep


def _joint_codes(cols: list[np.ndarray], codes: Codes | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(index of one world per distinct joint row, each world's row number), or None past MAX_DISTINCT.

    Column by column (a 1-d factorisation each, kept in ``codes`` when given, and a column with too many
    values stops at once), not ``np.unique(axis=0)``, whose row sort costs ~10× more on 2^14 continuous
    draws. The bound counts rows as ``np.unique(axis=0)`` did (every row holding a NaN apart: NaN ≠ NaN)
    for numeric columns, so the same rules take the per-row path as before; below it, NaN rows are
    grouped (a NaN cell is read as missing anyway)."""
    n = cols[0].shape[0]
    code = np.zeros(n, dtype=np.int64)
    bound = 1  # codes are < bound: compressed only when the next column could overflow int64
    nan_rows = np.zeros(n, dtype=bool)
    numeric = True
    all_nan = False  # a constant NaN column: every row holds a NaN
    for c in cols:
        numeric = numeric and c.dtype != object
        if codes is not None and codes.is_constant(c):  # one code: the joint codes are unchanged
            all_nan = all_nan or (c.dtype.kind == "f" and bool(np.isnan(c[0])))
            continue
        if c.dtype.kind == "f":
            nan_rows |= np.isnan(c)
        got = codes.of(c) if codes is not None else None
        if got is None:
            if c.dtype == object:
                return None
            values, inv = np.unique(c, return_inverse=True)
            got = (inv.reshape(-1), len(values))
        inv, size = got
        if size > MAX_DISTINCT:
            return None
        if bound * size >= 1 << 62:
            uniq, code = np.unique(code, return_inverse=True)
            code, bound = code.reshape(-1), len(uniq)
        code = code * size + inv
        bound *= size
    if all_nan:
        nan_rows[:] = True
    first, inverse = _dense(code, bound) if bound > 1 else (np.zeros(1, dtype=np.int64), _ZEROS(n))
    n_nan = int(nan_rows.sum()) if numeric else 0
    if n_nan and len(_dense(code[~nan_rows], bound)[0]) + n_nan > MAX_DISTINCT:
        return None
    if len(first) > MAX_DISTINCT:
        return None
    return first, inverse


def _dense(code: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """(one index per distinct code, each entry's rank among the distinct codes): by a table when the
    codes are small (no sort), by ``np.unique`` otherwise."""
    if bound <= 1 << 16:
        present = np.zeros(bound, dtype=bool)
        present[code] = True
        rank = np.cumsum(present) - 1
        inverse = rank[code]
        first = np.zeros(int(present.sum()), dtype=np.int64)
        first[inverse[::-1]] = _arange(code.size)[::-1]  # the first world of each (last write wins)
        return first, inverse
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _if(args: list[Any], data: dict[str, Any], n: int, codes: Codes | None = None) -> Value:
    """``if`` chains [c1, v1, c2, v2, …, else]: values are evaluated only as arrays where needed."""
    if len(args) == 1:
        return args[0]
    if len(args) == 0:
        return None
    cond = _truth(args[0], n)
    then = _f(evaluate(args[1], data, n, codes), n)
    rest = _f(_if(args[2:], data, n, codes) if len(args) > 2 else None, n)
    return np.where(np.isnan(cond), np.nan, np.where(cond != 0, then, rest))


MEMO_SIZE = 128


def computation(
    logic: Any, kind: str, data: dict[str, Any], n: int, codes: Codes | None = None, memos: Memos | None = None
) -> Value:
    """A pack computation on ``n`` worlds, coerced as the scalar path does (``engine.values._compute``):
    yes/no values to 0/1, months, amounts and percents rounded to 4 decimals.

    Remembered across verdicts (a small LRU) under what it reads: the scalars it names, the value of a column
    that is the same in every world, the identity of any other column (a class of worlds' root columns are
    kept objects, ``sampled_worlds``, and a remembered result is returned as the same object) — so a rule of a
    case decided again, or of a new case that differs only in what the rule does not read, is not evaluated
    again. A rule that reads its data by computed names is never remembered. Remembered by the owner of
    ``memos`` (the run, the batch chunk, the verdict service; none: evaluated)."""
    memo = own(memos).lru("prob.vector_computations", MEMO_SIZE)
    key, held = _memo_key(logic, kind, data, n, codes)
    if key is not None:
        hit = memo.get(key)
        if hit is not None and hit[0] is logic and all(x is y for x, y in zip(hit[1], held)):
            if codes is not None and hit[3] is not None:
                codes.put(hit[3])
            return hit[2]
    out = _computation(logic, kind, data, n, codes)
    if key is not None:
        entry = None
        if _is_arr(out):
            out.flags.writeable = False  # shared from now on
            entry = codes.entry(out) if codes is not None else None
        memo.put(key, (logic, held, out, entry))
    return out


def _memo_key(
    logic: Any, kind: str, data: dict[str, Any], n: int, codes: Codes | None
) -> tuple[tuple[Any, ...] | None, tuple[np.ndarray, ...]]:
    _, names, _, literal = _walked(logic)
    if not literal:
        return None, ()
    parts: list[Any] = [id(logic), kind, n, codes is None]
    held: list[np.ndarray] = []
    for k in sorted(names):
        v = data.get(k)
        if isinstance(v, np.ndarray):
            if codes is not None and codes.is_constant(v):
                parts.append((k, "c", v.dtype.str, repr(v[0])))
            else:
                parts.append((k, "a", id(v)))
                held.append(v)
            parts.append(bool(data.get(f"__bool__{k}")))
        else:
            parts.append((k, "s", repr(v)))
    return tuple(parts), tuple(held)


def _computation(logic: Any, kind: str, data: dict[str, Any], n: int, codes: Codes | None = None) -> Value:
    out = evaluate(logic, data, n, codes)
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
        return _derived(codes, out, lambda x: np.where(np.isnan(x), np.nan, (x != 0).astype(np.float64)))
    if kind in ("months", "amount", "percent"):
        return _derived(codes, out, lambda x: np.asarray(np.round(x, 4)))
    return out


def _derived(codes: Codes | None, old: np.ndarray, f: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``f`` (element-wise) on ``old``: on its one value when ``old`` is a constant column."""
    if codes is None:
        return f(old)
    if codes.is_constant(old):
        return codes.constant(f(old[:1]), old.shape[0])
    new = f(old)
    codes.derive(new, old)
    return new
