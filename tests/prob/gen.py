"""Random probabilistic logic programs written twice: ASP + priors (our engine) and ProbLog (oracle).

Shape: probabilistic facts f_i (and annotated-disjunction groups c_k(j)), derived atoms d_j with a
level; a rule for d_j uses positive literals of facts or derived atoms of level ≤ its own (positive
recursion allowed) and negative literals of facts or derived atoms of a LOWER level only (so the program
is stratified, which both engines need). Integrity constraints ``:- d_j.`` ↔ ProbLog
``evidence(d_j, false).`` — the mask is exactly conditioning on their falsity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from lexlogic.engine.prob import BoolVar, CategoricalVar, Option, ProbProgram


@dataclass
class Spec:
    probs: list[float]  # Bool facts f0..
    cats: list[list[float]]  # categorical groups c_k(j)
    levels: list[int]  # derived d0.. levels
    rules: list[tuple[int, list[str], list[str]]]  # (head index, positive atoms, negative atoms)
    constraints: list[str] = field(default_factory=list)  # atoms that must be false
    target: str = "d0"

    @property
    def derived(self) -> list[str]:
        return [f"d{j}" for j in range(len(self.levels))]

    def asp(self) -> ProbProgram:
        lines = []
        for h, pos, neg in self.rules:
            body = [*pos, *(f"not {a}" for a in neg)]
            lines.append(f"d{h} :- {', '.join(body)}." if body else f"d{h}.")
        lines += [f":- {a}." for a in self.constraints]
        variables: list[BoolVar | CategoricalVar] = [
            BoolVar(name=f"f{i}", atom=f"f{i}", prior=p) for i, p in enumerate(self.probs)
        ]
        variables += [
            CategoricalVar(name=f"c{k}", options=[Option(atom=f"c{k}({j})", prob=p) for j, p in enumerate(ps)])
            for k, ps in enumerate(self.cats)
        ]
        return ProbProgram(
            program="\n".join(lines),
            variables=variables,
            target=self.target,
            queries=[a for a in self.queried() if a != self.target],
        )

    def queried(self) -> list[str]:
        return [*self.derived, *(f"f{i}" for i in range(len(self.probs)))]

    def problog(self) -> str:
        lines = [f"{p!r}::f{i}." for i, p in enumerate(self.probs)]
        for k, ps in enumerate(self.cats):
            lines.append("; ".join(f"{p!r}::c{k}({j})" for j, p in enumerate(ps)) + ".")
        for h, pos, neg in self.rules:
            body = [*pos, *(f"\\+{a}" for a in neg)]
            lines.append(f"d{h} :- {', '.join(body)}." if body else f"d{h}.")
        lines += [f"evidence({a}, false)." for a in self.constraints]
        lines += [f"query({a})." for a in self.queried()]
        return "\n".join(lines)


def problog_marginals(text: str) -> dict[str, float]:
    from problog import get_evaluatable
    from problog.program import PrologString

    res = get_evaluatable().create_from(PrologString(text)).evaluate()
    return {str(k): float(v) for k, v in res.items()}


@st.composite
def specs(
    draw: st.DrawFn, max_facts: int = 6, max_cats: int = 1, max_derived: int = 5, constraints: bool = True
) -> Spec:
    prob = st.floats(0.05, 0.95).map(lambda x: round(x, 6))
    probs = draw(st.lists(prob, min_size=1, max_size=max_facts))
    cats = []
    for _ in range(draw(st.integers(0, max_cats))):
        raw = draw(st.lists(st.integers(1, 9), min_size=2, max_size=3))
        cats.append([r / sum(raw) for r in raw])
    nd = draw(st.integers(1, max_derived))
    levels = sorted(draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd)))
    facts = [f"f{i}" for i in range(len(probs))] + [f"c{k}({j})" for k, ps in enumerate(cats) for j in range(len(ps))]
    rules = []
    for h in range(nd):
        for _ in range(draw(st.integers(1, 2))):
            pos_pool = facts + [f"d{j}" for j in range(nd) if levels[j] <= levels[h] and j != h]
            neg_pool = facts + [f"d{j}" for j in range(nd) if levels[j] < levels[h]]
            pos = draw(st.lists(st.sampled_from(pos_pool), min_size=1, max_size=2, unique=True))
            neg = draw(st.lists(st.sampled_from(neg_pool), max_size=1, unique=True))
            neg = [a for a in neg if a not in pos]
            rules.append((h, pos, neg))
    cons = []
    if constraints and draw(st.booleans()) and nd > 1:
        cons = [f"d{draw(st.integers(1, nd - 1))}"]
    return Spec(probs, cats, levels, rules, cons, target="d0")
