"""A case's computed values as a few CLASSES each, compiled into ASP rules over the classes they read.

Why (issue 33): compiling a computed yes/no value by evaluating it on every completion of the roots in
its cone is exponential in the cone (0.7 s at 33 variables, 20 s at 40, > 3 GB at 44). A computation
reads few values directly, and each of those takes few distinct values over the worlds (the relation's
length: two or three; the reasonable notice: a handful). So each computed value is evaluated once per
combination of the CLASSES of what it reads (a class = one distinct value — status, value, missing
roots — and the ASP atom that holds in exactly the worlds where the value is that), never per world:
the work is the sum over computations of the product of their direct inputs' class counts.

The world semantics are those of ``values.world_values``: the roots of a world are given, every
computation is evaluated again in pack order from the values it reads; a value read by nothing
uncertain is the same in every world. A pack whose parameters are selected by a computed date falls
back to the caller's enumeration (``ValueClassesUnsupported``): the parameters would then vary per world.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from lexlogic.engine.symbolic.values import (
    ValueInfo,
    ValueStatus,
    computation_reads,
    computed_dates,
    evaluate_computation,
)
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.pack import RulePack

MAX_COMBINATIONS = 1 << 16  # class combinations evaluated for one computation


class ClassesTooMany(LexlogicError, ValueError):
    """A computation reads values whose class combinations exceed the budget: names it."""


class ValueClassesUnsupported(LexlogicError):
    """The pack's parameters depend on a computed date: classes would not be constant per world."""


# One class: the value (None when the case has no value of that name at all) and the ASP body literal
# that holds in exactly its worlds (None: every world).
Klass = tuple[ValueInfo | None, str | None]


def class_key(info: ValueInfo | None) -> tuple[Any, ...]:
    if info is None:
        return ("absent",)
    return (info.status.value, repr(info.value), tuple(info.missing))


class ValueClasses:
    """The classes of every value the model asks for, memoised; rules appended to ``lines``."""

    def __init__(
        self,
        pack: RulePack,
        base: dict[str, ValueInfo],
        roots: dict[str, list[tuple[Any, str]]],
        lines: list[str],
        memos: Memos | None = None,
    ) -> None:
        if computed_dates(pack):
            raise ValueClassesUnsupported("a parameter's date is a computed value")
        self.pack = pack
        self.memos = own(memos)  # the owner's memoised computations
        self.base = base
        self.lines = lines
        self.evaluations = 0
        self.groups: list[list[str]] = []  # each compiled value's class atoms: exactly one holds per world
        self._memo: dict[str, list[Klass]] = {}
        # every evaluation: (computation, the classes' values it was given but the case's own, its result's key),
        # and the case's own values read only by evaluations — what another case must give alike (``case_model``)
        self.trace: list[tuple[Any, dict[str, ValueInfo], tuple[Any, ...]]] = []
        self.raw: set[str] = set()
        self._roots = set(roots)
        for name, cells in roots.items():
            self._memo[name] = [
                (ValueInfo(name=name, status=ValueStatus.GIVEN, value=v), lit if len(cells) > 1 else None)
                for v, lit in cells
            ]

    def of(self, name: str) -> list[Klass]:
        """The classes of ``name``: a root's values, a computation's distinct results, else the case's value."""
        if name not in self._memo:
            comp = self.pack.computation_for(name)
            # the case's own value: read unlogged here, noted by whoever uses it (``combinations``)
            self._memo[name] = [(dict.get(self.base, name), None)] if comp is None else self._compile(name, comp)
        return self._memo[name]

    def _own(self, name: str) -> bool:
        """``name``'s one class is the case's own value (not a root's cells, not a computation's results)."""
        return name not in self._roots and self.pack.computation_for(name) is None

    def combinations(
        self, names: list[str], owner: str, *, evaluated: bool = False
    ) -> Iterator[tuple[dict[str, ValueInfo], str]]:
        """Each combination of the classes of ``names``: (the values it gives those that vary or are known,
        its ASP body). ``owner`` names the value being compiled in the error beyond ``MAX_COMBINATIONS``.
        The case's own values among them are read: noted in ``raw`` when the combinations only feed evaluations
        (``evaluated``: traced), else looked up in the case's values (a ``ReadLog`` notes it)."""
        classes = [(d, self.of(d)) for d in dict.fromkeys(names)]
        for d, cs in classes:
            if len(cs) == 1 and self._own(d):
                if evaluated:
                    self.raw.add(d)
                else:
                    _ = d in self.base
        fixed = {d: cs[0][0] for d, cs in classes if len(cs) == 1 and cs[0][0] is not None}
        varying = [(d, cs) for d, cs in classes if len(cs) > 1]
        n = math.prod(len(cs) for _, cs in varying)
        if n > MAX_COMBINATIONS:
            names_ = ", ".join(f"{d} ({len(cs)})" for d, cs in varying)
            raise ClassesTooMany(f"{owner} reads {names_}: {n} combinations, more than {MAX_COMBINATIONS}")
        for combo in itertools.product(*(cs for _, cs in varying)):
            over = dict(fixed)
            for (d, _), (info, _lit) in zip(varying, combo):
                if info is not None:
                    over[d] = info
            yield over, ", ".join(lit for _, lit in combo if lit)

    def partition(
        self, name: str, keyed: list[tuple[Hashable, str]], tag: str = "c"
    ) -> list[tuple[Hashable, str | None]]:
        """The distinct keys of ``keyed`` (key, ASP body) as classes: one atom ``name__<tag>K`` per key,
        defined by its bodies, registered as an exclusive group (exactly one holds per world, so the
        contraction makes them ONE categorical node); no atom when there is one key (every world)."""
        groups: dict[Hashable, list[str]] = {}
        for key, body in keyed:
            groups.setdefault(key, []).append(body)
        if len(groups) == 1:
            return [(next(iter(groups)), None)]
        out: list[tuple[Hashable, str | None]] = []
        for k, (key, bodies) in enumerate(groups.items()):
            atom = f"{name}__{tag}{k}"
            self.lines.extend(f"{atom} :- {body}." if body else f"{atom}." for body in bodies)
            out.append((key, atom))
        self.groups.append([atom for _, atom in out if atom])
        return out

    def _compile(self, name: str, comp: Any) -> list[Klass]:
        results: dict[tuple[Any, ...], ValueInfo] = {}
        keyed: list[tuple[Hashable, str]] = []
        reads = computation_reads(comp, self.memos)
        own_values = {d for d in reads if self._own(d)}
        for over, body in self.combinations(reads, name, evaluated=True):
            # a merged copy, not a ChainMap: the evaluation's many lookups cost a ChainMap's walk each
            res = evaluate_computation(comp, {**self.base, **over}, self.memos)
            self.evaluations += 1
            self.trace.append((comp, {d: v for d, v in over.items() if d not in own_values}, class_key(res)))
            results.setdefault(class_key(res), res)
            keyed.append((class_key(res), body))
        return [(results[key], atom) for key, atom in self.partition(name, keyed)]  # type: ignore[index]


def compile_bool(
    classes: ValueClasses,
    name: str,
    lines: list[str],
    open_coin: Callable[[ValueInfo, str], None],
) -> None:
    """A computed yes/no value read by the ASP rules: ``name`` holds in its true classes; a class where it
    is undecided gets the caller's coin (the judge's zone, or a number nobody gave)."""
    for info, atom in classes.of(name):
        if info is None:
            continue
        if info.known:
            if info.value:
                lines.append(f"{name} :- {atom}." if atom else f"{name}.")
        else:
            open_coin(info, atom or "")
