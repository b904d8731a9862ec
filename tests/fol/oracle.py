"""Test oracle: brute-force model enumeration for small sorted belief sets (tests only).

Herbrand semantics over the named constants plus one fresh element per outer existential (after NNF),
quantifiers ranging over the elements whose sort is a sub-sort of the quantified one. Exact for
equality-free formulas whose existentials (after NNF, query negated) are not under a universal.
"""

from __future__ import annotations

from itertools import count, product

from lexlogic.logic.fol.clauses import nnf
from lexlogic.logic.fol.hierarchy import SortHierarchy
from lexlogic.logic.fol.model import And, Atom, BeliefSet, Bottom, Const, Exists, Forall, Formula, Not, Or, Top, Var


class OracleRefuses(Exception):
    pass


def _subst(f: Formula, name: str, c: str) -> Formula:
    if isinstance(f, Atom):
        return Atom(f.pred, tuple(Const(c) if isinstance(t, Var) and t.name == name else t for t in f.args))
    if isinstance(f, Not):
        return Not(_subst(f.body, name, c))
    if isinstance(f, (And, Or)):
        return type(f)(tuple(_subst(p, name, c) for p in f.parts))
    if isinstance(f, (Forall, Exists)):
        return f if f.var.name == name else type(f)(f.var, _subst(f.body, name, c))
    return f


def satisfiable(bs: BeliefSet, extra: list[Formula]) -> bool:
    h = SortHierarchy.from_belief_set(bs)
    elems = dict(bs.signature.constant_sorts())
    fresh = count()
    forms: list[Formula] = []

    def skolem(f: Formula, under: bool) -> Formula:
        if isinstance(f, Exists):
            if under:
                raise OracleRefuses("existential under universal")
            e = f"e{next(fresh)}"
            elems[e] = f.var.sort
            return skolem(_subst(f.body, f.var.name, e), under)
        if isinstance(f, Forall):
            return Forall(f.var, skolem(f.body, True))
        if isinstance(f, (And, Or)):
            return type(f)(tuple(skolem(p, under) for p in f.parts))
        return f

    for f in list(bs.formulas) + extra:
        forms.append(skolem(nnf(f), False))

    def ground(f: Formula) -> Formula:
        if isinstance(f, Forall):
            inst = [ground(_subst(f.body, f.var.name, e)) for e, s in elems.items() if h.is_subsort(s, f.var.sort)]
            return And(tuple(inst)) if inst else Top()
        if isinstance(f, (And, Or)):
            return type(f)(tuple(ground(p) for p in f.parts))
        if isinstance(f, Not):
            return Not(ground(f.body))
        return f

    grounded = [ground(f) for f in forms]
    atoms: list[Atom] = []

    def collect(f: Formula) -> None:
        if isinstance(f, Atom):
            if f not in atoms:
                atoms.append(f)
        elif isinstance(f, Not):
            collect(f.body)
        elif isinstance(f, (And, Or)):
            for p in f.parts:
                collect(p)

    for g in grounded:
        collect(g)
    if len(atoms) > 18:
        raise OracleRefuses(f"{len(atoms)} ground atoms")

    def ev(f: Formula, val: dict[Atom, bool]) -> bool:
        if isinstance(f, Atom):
            return val[f]
        if isinstance(f, Not):
            return not ev(f.body, val)
        if isinstance(f, And):
            return all(ev(p, val) for p in f.parts)
        if isinstance(f, Or):
            return any(ev(p, val) for p in f.parts)
        if isinstance(f, Top):
            return True
        if isinstance(f, Bottom):
            return False
        raise OracleRefuses(f"unsupported {f!r}")

    for bits in product((False, True), repeat=len(atoms)):
        val = dict(zip(atoms, bits))
        if all(ev(g, val) for g in grounded):
            return True
    return False


def entails(bs: BeliefSet, query: Formula) -> bool:
    return not satisfiable(bs, [Not(query)])


def consistent(bs: BeliefSet) -> bool:
    return satisfiable(bs, [])
