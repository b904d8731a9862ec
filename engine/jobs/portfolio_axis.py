"""A group's cases run side by side, so their numbers' worlds are drawn together on a case axis.

Why (issue 33, build item 3): the worlds a settled case's numbers read (``sampled_worlds``) can be drawn for
all the cases of one structure at once (``prob.case_axis``), but a case asks for them deep inside its
evaluation, and only once its verdict is settled — known only there. So each case of a group runs in its own
greenlet (a coroutine on this thread: nothing runs in parallel, no lock changes hands): when it asks for its
worlds it parks, the next case starts; once every case has finished or parked, the parked requests are drawn
per structure on the case axis (a few cases at a time) and each case resumes as soon as its own worlds are
drawn — exactly the ones it would have drawn alone. Every other step of every case is the per-case path's own code, in the same order within a case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar

import numpy as np
from greenlet import greenlet

from lexlogic.engine.prob import case_axis, infer, sampled_worlds
from lexlogic.engine.prob.model import ProbProgram
from lexlogic.engine.prob.sampled_worlds import SampledWorlds
from lexlogic.logic.memos import Memos

T = TypeVar("T")
_START = object()  # a case not started yet (``greenlet.switch`` passes its arguments to the task)


class _Ask(NamedTuple):
    """A parked case's request: what ``sampled_worlds.sampled`` takes."""

    prog: ProbProgram
    c: infer.Compiled
    priors: list[np.ndarray]
    n: int
    seed: int


class CaseAxisRun:
    """One group's run (owned by ``run_group``; its ``worlds`` is passed down as the verdict's ``draw_worlds``)."""

    def __init__(self, memos: Memos | None = None) -> None:
        """``memos``: the group's owner's (its library's), where a structure's worlds drawn alone are kept."""
        self.memos = memos
        self._cases: set[greenlet] = set()
        self.batches = 0  # case-axis draws made (tests/prob/test_case_axis.py reads it)

    def worlds(self, prog: ProbProgram, c: infer.Compiled, priors: list[np.ndarray], n: int, seed: int) -> Any:
        """The worlds of one case: inside a case of ``run``, parked until the group's are drawn; outside, as
        ``sampled_worlds.sampled`` (e.g. a caller that does not run cases through ``run``)."""
        me = greenlet.getcurrent()
        if me not in self._cases:
            return sampled_worlds.sampled(prog, c, priors, n, seed, self.memos)
        assert me.parent is not None
        return me.parent.switch(_Ask(prog, c, priors, n, seed))

    def run(self, tasks: Sequence[Callable[[], T]]) -> list[T]:
        """Each task's result, in order; a task's exception is raised here, as if called alone."""
        results: list[Any] = [None] * len(tasks)
        pending: list[tuple[int, greenlet, _Ask]] = []
        try:
            for i, task in enumerate(tasks):
                g = greenlet(task)
                self._cases.add(g)
                _step(i, g, _START, results, pending)
            while pending:
                parked, pending = pending, []
                for j, drawn in self._draw([ask for _, _, ask in parked]):  # each case resumed as its worlds come
                    i, g, _ = parked[j]
                    _step(i, g, drawn, results, pending)
        finally:
            self._cases.clear()
        return results

    def _draw(self, asks: list[_Ask]) -> Iterator[tuple[int, SampledWorlds | BaseException]]:
        """The parked cases' worlds, (request's index, its worlds) as they are drawn: per (structure, sample size,
        seed) one case-axis draw over their distinct priors (a structure asked with one prior list: the per-case
        path's own). A failure goes back to the cases that asked."""
        groups: dict[tuple[int, int, int], list[int]] = {}
        for j, a in enumerate(asks):
            groups.setdefault((id(a.c), a.n, a.seed), []).append(j)
        for idx in groups.values():
            first = asks[idx[0]]
            distinct: dict[tuple[bytes, ...], list[int]] = {}
            for j in idx:
                distinct.setdefault(tuple(p.tobytes() for p in asks[j].priors), []).append(j)
            given: set[int] = set()
            try:
                if len(distinct) == 1:
                    drawn: Iterator[SampledWorlds] = iter(
                        [sampled_worlds.sampled(first.prog, first.c, first.priors, first.n, first.seed, self.memos)]
                    )
                else:
                    reps = [asks[js[0]].priors for js in distinct.values()]
                    drawn = case_axis.sampled_on_axis(first.prog, first.c, reps, first.n, first.seed)
                    self.batches += 1
                for js, worlds in zip(distinct.values(), drawn, strict=True):
                    for j in js:
                        given.add(j)
                        yield j, worlds
            except Exception as exc:  # as the per-case path: the cases that asked fail with the reason
                for j in idx:
                    if j not in given:
                        yield j, exc


def _step(i: int, g: greenlet, value: Any, results: list[Any], pending: list[tuple[int, greenlet, _Ask]]) -> None:
    """Case ``i`` run until it finishes (its result kept) or parks again (its request queued)."""
    if value is _START:
        out = g.switch()
    elif isinstance(value, BaseException):
        out = g.throw(value)
    else:
        out = g.switch(value)
    if g.dead:
        results[i] = out
    else:
        pending.append((i, g, out))
