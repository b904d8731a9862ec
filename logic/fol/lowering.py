"""Lowering a sorted belief set with sub-sorts to one Tweety accepts (exact sorts, no sub-sorts).

One Tweety sort per connected component of the sort hierarchy (named after its sorts); each original
sort S of a component with more than one sort becomes a unary predicate `IsS`, each constant gets
`IsS(c)` for its own sort, each link A ⊑ B the axiom `forall X: (IsA(X) => IsB(X))`, and each quantifier
over S is guarded by `IsS(X)`. Quantifiers over a singleton component need no guard. The result is a
plain strictly-typed belief set: the same answers, readable by Tweety's exact-sort checks.
"""

from __future__ import annotations

from lexlogic.logic.fol import model as fm
from lexlogic.logic.fol.hierarchy import SortHierarchy


def components(bs: fm.BeliefSet, hierarchy: SortHierarchy) -> dict[str, str]:
    parent = {s: s for s in bs.signature.sorts}

    def find(s: str) -> str:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for a, b in hierarchy.edges():
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for s in bs.signature.sorts:
        groups.setdefault(find(s), []).append(s)
    out = {}
    for members in groups.values():
        name = members[0] if len(members) == 1 else "Or".join(sorted(members))
        for s in members:
            out[s] = name
    return out


def lower(bs: fm.BeliefSet) -> fm.BeliefSet:
    """The belief set with each group of related sorts merged into one sort, membership in each merged sort
    an ``Is<Sort>`` predicate guarding its quantifiers, and the sub-sort links as implications."""
    h = SortHierarchy.from_belief_set(bs)
    lowering = _Lowering(components(bs, h))
    out = fm.BeliefSet(signature=lowering.signature(bs.signature), labels=dict(bs.labels))
    for s, consts in bs.signature.sorts.items():
        if s in lowering.multi:
            for c in consts:
                out.add(fm.Atom(f"Is{s}", (fm.Const(c),)))
    for a, b in h.edges():
        if a in lowering.multi and b in lowering.multi:
            x = fm.Var("X", lowering.comp[a])
            out.add(fm.Forall(x, fm.Implies(fm.Atom(f"Is{a}", (x,)), fm.Atom(f"Is{b}", (x,)))))
    for f, line in zip(bs.formulas, bs.lines):
        out.add(lowering.formula(f), line)
    return out


class _Lowering:
    """Sort → its merged sort (``comp``), and the sorts merged with others (``multi``): those need guards."""

    def __init__(self, comp: dict[str, str]) -> None:
        self.comp = comp
        self.multi = {s for s in comp if sum(1 for t in comp.values() if t == comp[s]) > 1}

    def signature(self, sig: fm.Signature) -> fm.Signature:
        out = fm.Signature(equality=sig.equality)
        for s, consts in sig.sorts.items():
            out.sorts.setdefault(self.comp[s], []).extend(consts)
        for p, sorts in sig.predicates.items():
            out.predicates[p] = tuple(self.comp[s] for s in sorts)
        for s in sorted(self.multi):
            out.predicates[f"Is{s}"] = (self.comp[s],)
        return out

    def var(self, t: fm.Var) -> fm.Var:
        return fm.Var(t.name, self.comp.get(t.sort, t.sort) if t.sort != fm.ANY else fm.ANY)

    def term(self, t: fm.Term) -> fm.Term:
        return self.var(t) if isinstance(t, fm.Var) else t

    def formula(self, f: fm.Formula) -> fm.Formula:
        """``f`` over the merged sorts; a quantifier over a merged sort guarded by its membership."""
        if isinstance(f, fm.Atom):
            return fm.Atom(f.pred, tuple(self.term(t) for t in f.args))
        if isinstance(f, (fm.Equals, fm.NotEquals)):
            return type(f)(self.term(f.left), self.term(f.right))
        if isinstance(f, fm.Not):
            return fm.Not(self.formula(f.body))
        if isinstance(f, (fm.And, fm.Or, fm.Xor)):
            return type(f)(tuple(self.formula(p) for p in f.parts))
        if isinstance(f, (fm.Implies, fm.Iff)):
            return type(f)(self.formula(f.left), self.formula(f.right))
        if isinstance(f, (fm.Forall, fm.Exists)):
            nv = self.var(f.var)
            body = self.formula(f.body)
            if f.var.sort in self.multi:
                guard = fm.Atom(f"Is{f.var.sort}", (nv,))
                body = fm.Implies(guard, body) if isinstance(f, fm.Forall) else fm.And((guard, body))
            return type(f)(nv, body)
        return f


def lower_query(bs: fm.BeliefSet, query: fm.Formula) -> fm.Formula:
    """The query in the lowered vocabulary (quantifiers guarded the same way)."""
    tmp = fm.BeliefSet(signature=bs.signature, formulas=list(bs.formulas) + [query], lines=list(bs.lines) + [None])
    return lower(tmp).formulas[-1]
