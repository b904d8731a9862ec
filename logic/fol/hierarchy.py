"""Sort hierarchy inferred from universal implications `forall X: (A(X) => B(X))`.

The sort of A's argument becomes a sub-sort of the sort of B's argument. Kept as a graph of direct
edges, each remembering the implication that justified it, so a repair can cite its reason. Every
walk is breadth-first with a visited set: a cycle (A ⊑ B ⊑ A) is reported by `cycles()`, never looped on.
"""

from __future__ import annotations

from collections import deque

from lexlogic.logic.fol.model import Atom, BeliefSet, Forall, Formula, Implies, Signature, Var
from lexlogic.logic.fol.printer import print_formula


def implication_edge(f: Formula, sig: Signature) -> tuple[str, str] | None:
    """(sub, super) when f is `forall X: (A(X) => B(X))` with A, B unary over different sorts."""
    if not isinstance(f, Forall) or not isinstance(f.body, Implies):
        return None
    a, b = f.body.left, f.body.right
    if not (isinstance(a, Atom) and isinstance(b, Atom) and len(a.args) == 1 and len(b.args) == 1):
        return None
    if not (isinstance(a.args[0], Var) and a.args[0].name == f.var.name):
        return None
    if not (isinstance(b.args[0], Var) and b.args[0].name == f.var.name):
        return None
    sa = sig.predicates.get(a.pred, (None,))[0]
    sb = sig.predicates.get(b.pred, (None,))[0]
    if sa is None or sb is None or sa == sb:
        return None
    return sa, sb


class SortHierarchy:
    def __init__(self) -> None:
        self.supers: dict[str, set[str]] = {}
        self.because: dict[tuple[str, str], str] = {}

    @classmethod
    def from_belief_set(cls, bs: BeliefSet) -> SortHierarchy:
        h = cls()
        for f in bs.formulas:
            edge = implication_edge(f, bs.signature)
            if edge:
                h.add(edge[0], edge[1], print_formula(f))
        return h

    def add(self, sub: str, sup: str, because: str) -> list[str] | None:
        """Add sub ⊑ sup; returns the cycle it closes (sup ⊑ … ⊑ sub ⊑ sup) if any."""
        new = sup not in self.supers.get(sub, set())
        self.supers.setdefault(sub, set()).add(sup)
        self.because.setdefault((sub, sup), because)
        if new:
            back = self.path(sup, sub)
            if back is not None:
                return back + [sup]
        return None

    def ancestors(self, sort: str) -> set[str]:
        seen: set[str] = set()
        todo = deque([sort])
        while todo:
            s = todo.popleft()
            for p in self.supers.get(s, ()):
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return seen  # contains `sort` itself only when it lies on a cycle

    def is_subsort(self, sub: str, sup: str) -> bool:
        return sub == sup or self.path(sub, sup) is not None

    def path(self, sub: str, sup: str) -> list[str] | None:
        """Shortest chain [sub, …, sup] of direct edges (BFS, cycle-safe); [sub] when equal."""
        if sub == sup:
            return [sub]
        prev: dict[str, str] = {}
        todo = deque([sub])
        seen = {sub}
        while todo:
            s = todo.popleft()
            for p in sorted(self.supers.get(s, ())):
                if p in seen:
                    continue
                prev[p] = s
                if p == sup:
                    chain = [p]
                    while chain[-1] != sub:
                        chain.append(prev[chain[-1]])
                    return chain[::-1]
                seen.add(p)
                todo.append(p)
        return None

    def justifications(self, chain: list[str]) -> list[str]:
        return [self.because[(a, b)] for a, b in zip(chain, chain[1:])]

    def edges(self) -> list[tuple[str, str]]:
        return sorted((a, b) for a, bs in self.supers.items() for b in bs)

    def cycles(self) -> list[list[str]]:
        """Each strongly connected set of sorts with more than one member (or a self-loop), sorted."""
        nodes = set(self.supers) | {b for bs in self.supers.values() for b in bs}
        out: list[list[str]] = []
        done: set[str] = set()
        for n in sorted(nodes):
            if n in done:
                continue
            comp = sorted(
                {m for m in nodes if self.path(n, m) is not None and self.path(m, n) is not None}
                if n in self.supers
                else {n}
            )
            done.update(comp)
            if len(comp) > 1 or n in self.supers.get(n, set()):
                out.append(comp)
        return out

    def as_dict(self) -> dict[str, list[str]]:
        return {s: sorted(p) for s, p in sorted(self.supers.items())}
