"""Completions of a case's unknown roots: the one mechanism behind supervaluation and the world model.

A *root* is an input fact the case leaves open (an unknown yes/no fact, an ambiguity with its readings,
an enum); a *completion* gives each root of a set one value of its domain. Two places need the values
the pack's computations take on every completion:

- the symbolic analysis (``values._supervaluate``): a computed value unknown only for lack of a few
  roots is *known* when every completion gives it the same value (supervaluation: 3 months written or 0
  oral are both below 8 months);
- the probabilistic model (``engine/prob``): a computed yes/no value is compiled, completion by
  completion, into ASP rules over its roots, so answering a root moves it exactly as the formula says.

Both enumerate the same product of domains, evaluate each completion once, and bound the enumeration
(2^n grows fast): that is what this module does, and all it does — the caller says how to evaluate a
completion (usually ``values.world_values``) and what limit fits its budget.

    table = CompletionTable(lambda c: world_values(pack, values, dict(c)))
    for completion in enumerate_completions(roots, domains, limit=6):
        world = table[completion]            # evaluated once, whoever asks again
    agreed = supervalue(outputs, enumerate_completions(roots, domains, limit=4), table, read)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from lexlogic.logic.errors import LexlogicError

Completion = tuple[tuple[str, Any], ...]
"""One value per root, in the order the roots were given: ``(("some_fact", True), ...)``."""

R = TypeVar("R")

UNDECIDED: Any = object()
"""What a reader returns for an output a completion leaves unknown (never equal to a value)."""


class TooManyCompletions(LexlogicError):
    """More roots than the caller's budget: the message names them and the limit."""


def enumerate_completions(
    roots: Sequence[str], domains: Mapping[str, Sequence[Any]], limit: int | None = None
) -> list[Completion]:
    """Every completion of `roots` (product of their domains, first root varying slowest).

    `limit`: the most roots the caller accepts (None: no limit); more raises ``TooManyCompletions``.
    A root without a domain (or with an empty one) has no completion: the result is empty.
    """
    if limit is not None and len(roots) > limit:
        raise TooManyCompletions(f"{len(roots)} open facts ({', '.join(roots)}) exceed the limit of {limit}")
    return [tuple(zip(roots, combo, strict=True)) for combo in itertools.product(*(domains.get(r, ()) for r in roots))]


class CompletionTable(Generic[R]):
    """Evaluations of completions, each computed once (a completion and its reordering are one key)."""

    def __init__(self, evaluate: Callable[[Completion], R]) -> None:
        self._evaluate = evaluate
        self._cache: dict[Completion, R] = {}
        self.evaluations = 0  # how many completions were actually evaluated (for notes and benchmarks)

    def __getitem__(self, completion: Completion) -> R:
        key = tuple(sorted(completion, key=lambda kv: kv[0]))
        if key not in self._cache:
            self.evaluations += 1
            self._cache[key] = self._evaluate(completion)
        return self._cache[key]

    def __len__(self) -> int:
        return len(self._cache)


def supervalue(
    outputs: Iterable[str],
    completions: Sequence[Completion],
    table: CompletionTable[R],
    read: Callable[[R, str], Any],
) -> dict[str, Any]:
    """The outputs that take one and the same value on every completion, with that value.

    `read(world, output)` gives an output's value in an evaluated completion, or ``UNDECIDED`` when the
    completion leaves it unknown (then the output is not agreed on). No completion: nothing is agreed.
    """
    outputs = list(outputs)
    results: dict[str, list[Any]] = {o: [] for o in outputs}
    for completion in completions:
        world = table[completion]
        for o in outputs:
            results[o].append(read(world, o))
    agreed: dict[str, Any] = {}
    for o, vals in results.items():
        if vals and vals[0] is not UNDECIDED and all(v is not UNDECIDED and v == vals[0] for v in vals):
            agreed[o] = vals[0]
    return agreed
