"""The RestrictedPython policy for dynamic rules: what a rule may write, name, touch and call.

Three layers, each enough on its own for the common escapes, together for defence in depth:

1. compile time (`RulePolicy`, a RestrictingNodeTransformer): RestrictedPython refuses names starting
   with "_" and frame/code attributes; we add: no imports at all (RestrictedPython lets them compile
   and fail later on a missing __import__), no class definitions, no `yield`, no `global`, no
   `.format` / `.format_map`, and no reference to the introspection builtins (getattr, vars, globals,
   type, open…) so that the author gets a compile-time message naming the line, not a NameError;
2. run time guards (`_getattr_`, `_getitem_`, `_write_`, …): attribute access is an ALLOW-list per
   exact type (str methods minus format, list/dict/set methods, date fields); everything else —
   functions, generators, exceptions' tracebacks, classes — has no reachable attribute;
3. curated builtins: only what rules need (sum, min, max, any, all, enumerate, sorted, len, range,
   abs, round, containers, date helpers). A fresh copy per run, so rebinding one cannot leak into the
   next run in the same worker.

The input facts are frozen (`FrozenDict` / `FrozenList`): any attempt to modify them is a policy
violation. Violations are recorded outside the rule's reach, so a rule that catches the exception
still fails. CPU, memory and time are NOT this module's job (RestrictedPython cannot bound them):
the worker process enforces them with rlimits and the pool with a wall-clock kill.
"""

from __future__ import annotations

import ast
import operator
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from RestrictedPython import compile_restricted_exec
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import RestrictingNodeTransformer

from lexlogic.logic.errors import LexlogicError
from lexlogic.sandbox.helpers import DATE_HELPERS

RULE_FUNCTION = "rule"
MAX_SOURCE_BYTES = 64_000
MAX_CODE_BYTES = 2_000_000  # a legitimate rule compiles to a few KB

# Names a rule may not even mention: each one is (or was, in some Python) a door to introspection,
# I/O or the interpreter. None of them is in the builtins we provide either.
FORBIDDEN_NAMES = frozenset(
    {
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "vars",
        "globals",
        "locals",
        "dir",
        "type",
        "object",
        "super",
        "classmethod",
        "staticmethod",
        "property",
        "open",
        "eval",
        "exec",
        "compile",
        "input",
        "breakpoint",
        "help",
        "memoryview",
        "id",
        "hash",
        "print",
        "printed",
        "exit",
        "quit",
        "copyright",
        "credits",
        "license",
        "format",
        "iter",
        "next",
        "issubclass",
        "bytes",
        "bytearray",
        "callable",
        "BaseException",
        "SystemExit",
        "KeyboardInterrupt",
        "GeneratorExit",
    }
)

# Attribute names refused at compile time (on top of RestrictedPython's "_…" and frame attributes).
FORBIDDEN_ATTRIBUTES = frozenset({"format", "format_map", "mro", "with_traceback", "throw", "send", "close"})


class SandboxViolation(BaseException):
    """A rule tried something the policy forbids at run time (BaseException: `except Exception`
    in the rule does not swallow it; a bare `except:` does, but the violation is recorded anyway)."""


class FrozenDict(dict):
    """A read-only dict for the input facts; records which keys the rule read (for proof trees).

    Every path that reveals a key or a value records it: item access, ``get``, ``in``, iteration,
    ``keys/values/items/copy``, ``repr``/``str``/``%`` formatting, ``==``/``!=``, ``|`` and ``reversed``.
    Keys that exist go to ``reads``; a key asked for but absent goes to ``missing`` (bounded, printable
    names only), so a rule cannot pad its premises with invented names nor read without trace.
    """

    _reads: set | None = None
    _missing: set | None = None

    def _ro(self, *_a: Any, **_k: Any) -> None:
        raise SandboxViolation("the input facts are read-only")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = __ior__ = _ro  # type: ignore[assignment]

    def _track(self, key: Any) -> None:
        if self._reads is None:
            return
        try:
            present = dict.__contains__(self, key)
        except TypeError:  # unhashable key: nothing read
            return
        if present:
            self._reads.add(key if isinstance(key, str) else repr(key))
        elif self._missing is not None and isinstance(key, str) and _fact_name_ok(key):
            if len(self._missing) < MAX_MISSING:
                self._missing.add(key)

    def __getitem__(self, key: Any) -> Any:
        self._track(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:  # type: ignore[override]
        self._track(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._track(key)
        return dict.__contains__(self, key)

    def _track_all(self) -> None:
        if self._reads is not None:
            self._reads.update(k if isinstance(k, str) else repr(k) for k in dict.keys(self))

    def keys(self):  # type: ignore[no-untyped-def]
        self._track_all()
        return dict.keys(self)

    def values(self):  # type: ignore[no-untyped-def]
        self._track_all()
        return dict.values(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._track_all()
        return dict.items(self)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._track_all()
        return dict.__iter__(self)

    def __reversed__(self):  # type: ignore[no-untyped-def]
        self._track_all()
        return dict.__reversed__(self)

    def __repr__(self) -> str:
        self._track_all()
        return dict.__repr__(self)

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        self._track_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self._track_all()
        return dict.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Any) -> Any:
        self._track_all()
        return dict(dict.items(self)) | other

    def __ror__(self, other: Any) -> Any:
        self._track_all()
        return other | dict(dict.items(self))

    def copy(self) -> dict:  # a plain (mutable) shallow copy: the rule's own
        self._track_all()
        return dict(dict.items(self))


MAX_MISSING = 64
_NAME_OK = re.compile(r"^[^\x00-\x1f\x7f-\x9f]{1,200}$")


def _fact_name_ok(key: str) -> bool:
    return bool(_NAME_OK.match(key))


class FrozenList(list):
    """A read-only list for the input facts (a list, so `xs + [1]` and slicing behave as expected)."""

    def _ro(self, *_a: Any, **_k: Any) -> None:
        raise SandboxViolation("the input facts are read-only")

    append = extend = insert = remove = pop = sort = reverse = clear = _ro  # type: ignore[assignment]
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _ro  # type: ignore[assignment]

    def copy(self) -> list:  # type: ignore[override]
        return list(self)


def freeze(value: Any, reads: set | None = None, missing: set | None = None) -> Any:
    """Deep read-only copy of JSON data; `reads` (if given) collects the top-level keys read, `missing`
    the absent keys asked for."""
    if isinstance(value, dict):
        out = FrozenDict((k, freeze(v)) for k, v in value.items())
        if reads is not None:
            out._reads = reads
            out._missing = missing
        return out
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value


_STR_METHODS = frozenset(
    {
        "capitalize",
        "casefold",
        "center",
        "count",
        "endswith",
        "expandtabs",
        "find",
        "index",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "islower",
        "isnumeric",
        "isspace",
        "istitle",
        "isupper",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rindex",
        "rjust",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "upper",
        "zfill",
    }
)
_LIST_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "copy", "clear"}
)
_DICT_METHODS = frozenset({"get", "keys", "values", "items", "copy", "update", "pop", "setdefault", "clear", "popitem"})
_SET_READ = frozenset(
    {"union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint", "copy"}
)
_SET_METHODS = _SET_READ | {"add", "discard", "remove", "pop", "update", "clear"}
_EXCEPTIONS = (Exception, ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, ArithmeticError, LookupError)

# Exact type → attribute names a rule may read. Anything not listed (functions, generators, classes,
# modules, tracebacks…) exposes nothing.
ALLOWED_ATTRIBUTES: dict[type, frozenset[str]] = {
    str: _STR_METHODS,
    list: _LIST_METHODS,
    dict: _DICT_METHODS,
    set: _SET_METHODS,
    frozenset: _SET_READ,
    tuple: frozenset({"index", "count"}),
    FrozenDict: frozenset({"get", "keys", "values", "items", "copy"}),
    FrozenList: frozenset({"index", "count", "copy"}),
    float: frozenset({"is_integer"}),
    date: frozenset({"year", "month", "day", "isoformat", "weekday", "isoweekday", "toordinal", "replace"}),
    timedelta: frozenset({"days", "total_seconds"}),
    **{exc: frozenset({"args"}) for exc in _EXCEPTIONS},
}
_FROZEN = (FrozenDict, FrozenList)
_MUTATORS = (_LIST_METHODS | _DICT_METHODS) - {"get", "keys", "values", "items", "copy", "index", "count"}


@dataclass
class RunContext:
    """Per-run state kept OUTSIDE the rule's reach: the violations it triggered."""

    violations: list[str] = field(default_factory=list)
    caught_limit: str | None = None  # "memory" | "recursion": the rule caught a resource error

    def violate(self, message: str) -> SandboxViolation:
        self.violations.append(message)
        return SandboxViolation(message)

    def caught(self) -> None:
        """Called first thing in every `except` and `finally` block of a rule (injected at compile time): a
        rule that swallows a MemoryError/RecursionError (a handler, or a `return`/`break` in `finally`) still
        gets its run failed and its worker recycled."""
        exc = sys.exc_info()[1]
        if isinstance(exc, MemoryError):
            self.caught_limit = "memory"
        elif isinstance(exc, RecursionError) and self.caught_limit is None:
            self.caught_limit = "recursion"


def _make_guards(ctx: RunContext) -> dict[str, Any]:
    def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
        t = type(obj)
        allowed = ALLOWED_ATTRIBUTES.get(t)
        if allowed is None or name not in allowed or name.startswith("_"):
            if t in _FROZEN and name in _MUTATORS:
                raise ctx.violate(f"the input facts are read-only (.{name}() is not allowed)")
            raise ctx.violate(f"attribute '{name}' of {t.__name__} is not accessible to rules")
        return getattr(obj, name)

    def guarded_getitem(obj: Any, key: Any) -> Any:
        if type(obj) not in _SUBSCRIPTABLE:
            raise ctx.violate(f"indexing a {type(obj).__name__} is not allowed in rules")
        return obj[key]

    def guarded_write(obj: Any) -> Any:
        t = type(obj)
        if t in _FROZEN:
            raise ctx.violate("the input facts are read-only")
        if t in (dict, list, set):
            return obj
        raise ctx.violate(f"a rule cannot modify a {t.__name__}")

    def guarded_iter(obj: Any) -> Any:
        return iter(obj)

    def inplacevar(op: str, x: Any, y: Any) -> Any:
        if op not in _INPLACE:
            raise ctx.violate(f"operator {op} is not allowed")
        inplace, binary = _INPLACE[op]
        if type(x) in _FROZEN:  # never mutate the input: fall back to a new object
            return binary(x, y)
        return inplace(x, y)

    def apply(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return {
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_write_": guarded_write,
        "_getiter_": guarded_iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_inplacevar_": inplacevar,
        "_apply_": apply,
        "_caught_": ctx.caught,
    }


_SUBSCRIPTABLE = frozenset({dict, list, tuple, str, range, FrozenDict, FrozenList})
_INPLACE: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "+=": (operator.iadd, operator.add),
    "-=": (operator.isub, operator.sub),
    "*=": (operator.imul, operator.mul),
    "/=": (operator.itruediv, operator.truediv),
    "//=": (operator.ifloordiv, operator.floordiv),
    "%=": (operator.imod, operator.mod),
    "**=": (operator.ipow, operator.pow),
    "<<=": (operator.ilshift, operator.lshift),
    ">>=": (operator.irshift, operator.rshift),
    "|=": (operator.ior, operator.or_),
    "^=": (operator.ixor, operator.xor),
    "&=": (operator.iand, operator.and_),
}

_BUILTINS: dict[str, Any] = {
    "sum": sum,
    "min": min,
    "max": max,
    "any": any,
    "all": all,
    "enumerate": enumerate,
    "sorted": sorted,
    "reversed": reversed,
    "len": len,
    "range": range,
    "abs": abs,
    "round": round,
    "divmod": divmod,
    "zip": zip,
    "map": map,
    "filter": filter,
    "isinstance": isinstance,
    "list": list,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "repr": repr,
    "chr": chr,
    "ord": ord,
    "None": None,
    "True": True,
    "False": False,
    **{exc.__name__: exc for exc in _EXCEPTIONS},
    **DATE_HELPERS,
}
ALLOWED_BUILTIN_NAMES = frozenset(_BUILTINS)


def make_globals(ctx: RunContext) -> dict[str, Any]:
    """Fresh globals for one run: a fresh copy of the curated builtins plus the guards."""
    return {"__builtins__": dict(_BUILTINS), "__name__": "dynamic_rule", **_make_guards(ctx)}


# ---------------------------------------------------------------- compile time


class RulePolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer plus the refusals specific to dynamic rules."""

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id in FORBIDDEN_NAMES:
            self.error(node, f'name "{node.id}" is not available in rules')
        return super().visit_Name(node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if node.attr in FORBIDDEN_ATTRIBUTES:
            self.error(node, f'attribute ".{node.attr}" is not allowed in rules (no str.format, no generator control)')
        return super().visit_Attribute(node)

    def visit_Import(self, node: ast.Import) -> Any:
        # RestrictedPython itself lets imports compile (they fail later, at run time, on a missing
        # __import__): a rule never needs one, so say so at compile time.
        names = ", ".join(a.name for a in node.names)
        self.error(node, f"imports are not allowed in rules (import {names})")
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        module = "." * (node.level or 0) + (node.module or "")
        self.error(node, f"imports are not allowed in rules (from {module} import …)")
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        self.error(node, "class definitions are not allowed in rules")
        return node

    def visit_Yield(self, node: ast.Yield) -> Any:
        self.error(node, "generators (yield) are not allowed in rules; build and return a list")
        return node

    visit_YieldFrom = visit_Yield  # type: ignore[assignment]  # noqa: N815

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> Any:
        handler = super().visit_ExceptHandler(node)
        assert isinstance(handler, ast.ExceptHandler)  # RestrictedPython's visitor returns the node it got
        # first statement of every handler: report what was caught (outside the rule's reach)
        call = ast.Expr(value=ast.Call(func=ast.Name(id="_caught_", ctx=ast.Load()), args=[], keywords=[]))
        for n in ast.walk(call):
            ast.copy_location(n, handler)
        handler.body.insert(0, call)
        return handler

    def visit_Try(self, node: ast.Try) -> Any:
        tried = super().visit_Try(node)
        if isinstance(tried, ast.Try) and tried.finalbody:
            # a `return`/`break` in `finally` swallows an error no handler saw: report it here too
            call = ast.Expr(value=ast.Call(func=ast.Name(id="_caught_", ctx=ast.Load()), args=[], keywords=[]))
            for n in ast.walk(call):
                ast.copy_location(n, tried.finalbody[0])
            tried.finalbody.insert(0, call)
        return tried

    def visit_Global(self, node: ast.Global) -> Any:
        self.error(node, "global statements are not allowed in rules")
        return node


@dataclass(frozen=True)
class CompileProblem:
    line: int | None
    message: str


class RuleRefused(LexlogicError):
    """The rule was refused at compile time; `problems` name each line."""

    def __init__(self, problems: list[CompileProblem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"line {p.line}: {p.message}" if p.line else p.message for p in problems))


_LINE = re.compile(r"^Line (\d+|None): (.*)$", re.S)


def _problem(text: str) -> CompileProblem:
    m = _LINE.match(text)
    if not m:
        return CompileProblem(None, text)
    line = None if m.group(1) == "None" else int(m.group(1))
    return CompileProblem(line, m.group(2).strip())


def compile_rule(source: str, filename: str = "<rule>") -> Any:
    """Compile a rule under the policy, or raise RuleRefused listing every problem (with lines)."""
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise RuleRefused([CompileProblem(None, f"rule source exceeds {MAX_SOURCE_BYTES} bytes")])
    if "\x00" in source:
        raise RuleRefused([CompileProblem(None, "rule source contains a NUL byte")])
    try:
        tree = ast.parse(source, filename, "exec")
    except SyntaxError as exc:
        raise RuleRefused([CompileProblem(exc.lineno, f"syntax error: {exc.msg}")]) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise RuleRefused([CompileProblem(None, f"unparseable rule: {type(exc).__name__}")]) from None
    if not any(
        isinstance(n, ast.FunctionDef) and n.name == RULE_FUNCTION and (n.args.args or n.args.posonlyargs)
        for n in tree.body
    ):
        raise RuleRefused([CompileProblem(None, f"a rule must define `def {RULE_FUNCTION}(facts):` at top level")])
    try:
        result = compile_restricted_exec(tree, filename=filename, policy=RulePolicy)
    except (RecursionError, MemoryError) as exc:
        raise RuleRefused([CompileProblem(None, f"rule too deeply nested: {type(exc).__name__}")]) from None
    except SyntaxError as exc:
        raise RuleRefused([CompileProblem(exc.lineno, f"syntax error: {exc.msg}")]) from None
    if result.errors or result.code is None:
        raise RuleRefused([_problem(e) for e in result.errors] or [CompileProblem(None, "not compilable")])
    size = code_bytes(result.code)
    if size > MAX_CODE_BYTES:
        raise RuleRefused(
            [CompileProblem(None, f"the rule compiles to {size} bytes of code and constants (cap {MAX_CODE_BYTES})")]
        )
    return result.code


def code_bytes(code: Any) -> int:
    """Memory held by a code object: bytecode plus its constants, nested code included (constant folding
    turns 64 KB of source into megabytes: `'x'*4000` repeated)."""
    seen: set[int] = set()
    total, stack = 0, [code]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, types.CodeType):
            stack.append(obj.co_code)
            stack.extend(obj.co_consts)
            stack.extend(obj.co_names)
        elif isinstance(obj, (tuple, frozenset)):
            stack.extend(obj)
    return total
