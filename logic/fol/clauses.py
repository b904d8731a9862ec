"""Clausal forms: NNF, Skolemisation of outer existentials, CNF, and the Horn test.

Engines differ in what they accept; this module decides, without running any engine, whether a belief
set (and a query) lies in the Horn fragment that SWI-Prolog answers exactly, and produces its clauses.
Existentials not under a universal become fresh constants (`sk1`, …) of the quantified sort; an
existential under a universal (needs a Skolem function) or any equality leaves the Horn fragment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count, product

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.fol import model as fm

MAX_CLAUSES = 256


class NotClausal(LexlogicError, ValueError):
    """The formula leaves the fragment this module can clausify without Skolem functions."""


@dataclass(frozen=True)
class Clause:
    pos: tuple[fm.Atom, ...]
    neg: tuple[fm.Atom, ...]
    vars: tuple[tuple[str, str], ...]  # (name, sort)
    source: int  # index of the formula it came from (-1: the query)

    @property
    def is_horn(self) -> bool:
        return len(self.pos) <= 1


def nnf(f: fm.Formula, positive: bool = True) -> fm.Formula:
    """Negation normal form with only And/Or/Not(atom)/quantifiers/Top/Bottom."""
    if isinstance(f, (fm.Atom, fm.Equals, fm.NotEquals)):
        return f if positive else fm.Not(f)
    if isinstance(f, fm.Top):
        return fm.Top() if positive else fm.Bottom()
    if isinstance(f, fm.Bottom):
        return fm.Bottom() if positive else fm.Top()
    if isinstance(f, fm.Not):
        return nnf(f.body, not positive)
    if isinstance(f, fm.And):
        parts = tuple(nnf(p, positive) for p in f.parts)
        return fm.And(parts) if positive else fm.Or(parts)
    if isinstance(f, fm.Or):
        parts = tuple(nnf(p, positive) for p in f.parts)
        return fm.Or(parts) if positive else fm.And(parts)
    if isinstance(f, fm.Implies):
        return nnf(fm.Or((fm.Not(f.left), f.right)), positive)
    if isinstance(f, fm.Iff):
        a, b = f.left, f.right
        return nnf(fm.And((fm.Or((fm.Not(a), b)), fm.Or((fm.Not(b), a)))), positive)
    if isinstance(f, fm.Xor):
        acc = f.parts[0]
        for p in f.parts[1:]:
            acc = fm.Not(fm.Iff(acc, p))
        return nnf(acc, positive)
    if isinstance(f, fm.Forall):
        return fm.Forall(f.var, nnf(f.body, positive)) if positive else fm.Exists(f.var, nnf(f.body, False))
    if isinstance(f, fm.Exists):
        return fm.Exists(f.var, nnf(f.body, positive)) if positive else fm.Forall(f.var, nnf(f.body, False))
    raise TypeError(f)


def _subst(f: fm.Formula, name: str, term: fm.Term) -> fm.Formula:
    def fix(t: fm.Term) -> fm.Term:
        return term if isinstance(t, fm.Var) and t.name == name else t

    if isinstance(f, fm.Atom):
        return fm.Atom(f.pred, tuple(fix(t) for t in f.args))
    if isinstance(f, (fm.Equals, fm.NotEquals)):
        return type(f)(fix(f.left), fix(f.right))
    if isinstance(f, (fm.Forall, fm.Exists)):
        return f if f.var.name == name else type(f)(f.var, _subst(f.body, name, term))
    if isinstance(f, fm.Not):
        return fm.Not(_subst(f.body, name, term))
    if isinstance(f, (fm.And, fm.Or, fm.Xor)):
        return type(f)(tuple(_subst(p, name, term) for p in f.parts))
    if isinstance(f, (fm.Implies, fm.Iff)):
        return type(f)(_subst(f.left, name, term), _subst(f.right, name, term))
    return f


@dataclass
class Clausifier:
    """Stateful: numbers Skolem constants and renamed variables across a whole belief set."""

    skolems: dict[str, str] = field(default_factory=dict)  # skolem constant -> sort
    _sk: count[int] = field(default_factory=lambda: count(1))
    _v: count[int] = field(default_factory=lambda: count(1))

    def matrix(self, f: fm.Formula, under_forall: bool, bound: dict[str, str]) -> fm.Formula:
        """Strip quantifiers from an NNF formula: ∀ → fresh variable, outer ∃ → Skolem constant."""
        if isinstance(f, fm.Forall):
            v = fm.Var(f"V{next(self._v)}", f.var.sort)
            bound[v.name] = v.sort
            return self.matrix(_subst(f.body, f.var.name, v), True, bound)
        if isinstance(f, fm.Exists):
            if under_forall:
                raise NotClausal("an existential under a universal needs a Skolem function")
            c = f"sk{next(self._sk)}"
            self.skolems[c] = f.var.sort
            return self.matrix(_subst(f.body, f.var.name, fm.Const(c)), under_forall, bound)
        if isinstance(f, fm.And):
            return fm.And(tuple(self.matrix(p, under_forall, bound) for p in f.parts))
        if isinstance(f, fm.Or):
            return fm.Or(tuple(self.matrix(p, under_forall, bound) for p in f.parts))
        return f

    def clauses(self, f: fm.Formula, source: int) -> list[Clause]:
        closed = f
        for v in sorted(fm.free_vars(f)):  # free variables read as universally quantified
            closed = fm.Forall(fm.Var(v), closed)
        bound: dict[str, str] = {}
        m = self.matrix(nnf(closed), False, bound)
        out = []
        for lits in _cnf(m):
            if lits is None:
                continue  # tautological clause
            pos: list[fm.Atom] = []
            neg: list[fm.Atom] = []
            names: set[str] = set()
            for lit in lits:
                a = lit.body if isinstance(lit, fm.Not) else lit
                if not isinstance(a, fm.Atom):  # equalities (and nothing else, after NNF)
                    raise NotClausal("equality is outside the Horn fragment")
                (neg if isinstance(lit, fm.Not) else pos).append(a)
                names |= {t.name for t in a.args if isinstance(t, fm.Var)}
            out.append(Clause(tuple(pos), tuple(neg), tuple((n, bound.get(n, "*")) for n in sorted(names)), source))
        return out


def _cnf(f: fm.Formula) -> list[tuple[fm.Formula, ...] | None]:
    """Clauses as literal tuples (None marks a clause made true by Top)."""
    if isinstance(f, fm.Top):
        return []
    if isinstance(f, fm.Bottom):
        return [()]
    if isinstance(f, (fm.Atom, fm.Not, fm.Equals, fm.NotEquals)):
        return [(f,)]
    if isinstance(f, fm.And):
        out: list[tuple[fm.Formula, ...] | None] = []
        for p in f.parts:
            out.extend(_cnf(p))
        return out
    if isinstance(f, fm.Or):
        parts = [[c for c in _cnf(p)] for p in f.parts]
        total = 1
        for alternatives in parts:
            total *= max(len(alternatives), 1)
            if total > MAX_CLAUSES:
                raise NotClausal("CNF too large")
        ors: list[tuple[fm.Formula, ...] | None] = []
        for combo in product(*parts):
            lits: list[fm.Formula] = []
            for c in combo:
                if c is None:
                    break
                lits.extend(x for x in c if x not in lits)
            else:
                ors.append(tuple(lits))
        return ors
    raise TypeError(f)


@dataclass
class HornProgram:
    clauses: list[Clause]
    skolems: dict[str, str]


def horn_program(bs: fm.BeliefSet) -> HornProgram:
    """Clauses of the whole belief set; NotClausal if it leaves the Horn fragment."""
    cl = Clausifier()
    out: list[Clause] = []
    for i, f in enumerate(bs.formulas):
        for c in cl.clauses(f, i):
            if not c.is_horn:
                raise NotClausal(f"formula {i + 1} is not Horn (a clause has {len(c.pos)} positive literals)")
            out.append(c)
    return HornProgram(out, cl.skolems)


def is_horn(bs: fm.BeliefSet) -> bool:
    try:
        horn_program(bs)
        return True
    except NotClausal:
        return False
