"""Lowering a sorted belief set with sub-sorts to one Tweety accepts (exact sorts, no sub-sorts).

One Tweety sort per connected component of the sort hierarchy (named after its sorts); each original
sort S of a component with more than one sort becomes a unary predicate `IsS`, each constant gets
`IsS(c)` for its own sort, each link A ⊑ B the axiom `forall X: (IsA(X) => IsB(X))`, and each quantifier
over S is guarded by `IsS(X)`. Quantifiers over a singleton component need no guard. The result is a
plain strictly-typed belief set: the same answers, readable by Tweety's exact-sort checks.
"""

from __future__ import annotations

from lexlogic.logic.fol.hierarchy import SortHierarchy
from lexlogic.logic.fol.model import (
    ANY,
    And,
    Atom,
    BeliefSet,
    Const,
    Equals,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    NotEquals,
    Or,
    Signature,
    Var,
    Xor,
)


def components(bs: BeliefSet, hierarchy: SortHierarchy) -> dict[str, str]:
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


def lower(bs: BeliefSet) -> BeliefSet:
    h = SortHierarchy.from_belief_set(bs)
    comp = components(bs, h)
    multi = {s for s in comp if sum(1 for t in comp.values() if t == comp[s]) > 1}
    sig = Signature(equality=bs.signature.equality)
    for s, consts in bs.signature.sorts.items():
        sig.sorts.setdefault(comp[s], []).extend(consts)
    for p, sorts in bs.signature.predicates.items():
        sig.predicates[p] = tuple(comp[s] for s in sorts)
    for s in sorted(multi):
        sig.predicates[f"Is{s}"] = (comp[s],)
    out = BeliefSet(signature=sig, labels=dict(bs.labels))

    def v(t: Var) -> Var:
        return Var(t.name, comp.get(t.sort, t.sort) if t.sort != ANY else ANY)

    def tr(f: Formula) -> Formula:
        if isinstance(f, Atom):
            return Atom(f.pred, tuple(v(t) if isinstance(t, Var) else t for t in f.args))
        if isinstance(f, (Equals, NotEquals)):
            return type(f)(*(v(t) if isinstance(t, Var) else t for t in (f.left, f.right)))
        if isinstance(f, Not):
            return Not(tr(f.body))
        if isinstance(f, (And, Or, Xor)):
            return type(f)(tuple(tr(p) for p in f.parts))
        if isinstance(f, (Implies, Iff)):
            return type(f)(tr(f.left), tr(f.right))
        if isinstance(f, (Forall, Exists)):
            nv = v(f.var)
            body = tr(f.body)
            if f.var.sort in multi:
                guard = Atom(f"Is{f.var.sort}", (nv,))
                body = Implies(guard, body) if isinstance(f, Forall) else And((guard, body))
            return type(f)(nv, body)
        return f

    for s, consts in bs.signature.sorts.items():
        if s in multi:
            for c in consts:
                out.add(Atom(f"Is{s}", (Const(c),)))
    for a, b in h.edges():
        if a in multi and b in multi:
            x = Var("X", comp[a])
            out.add(Forall(x, Implies(Atom(f"Is{a}", (x,)), Atom(f"Is{b}", (x,)))))
    for f, line in zip(bs.formulas, bs.lines):
        out.add(tr(f), line)
    return out


def lower_query(bs: BeliefSet, query: Formula) -> Formula:
    """The query in the lowered vocabulary (quantifiers guarded the same way)."""
    tmp = BeliefSet(signature=bs.signature, formulas=list(bs.formulas) + [query], lines=list(bs.lines) + [None])
    return lower(tmp).formulas[-1]
