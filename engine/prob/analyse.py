"""``analyse``: one probabilistic verdict (answers and what-ifs applied), ready for ``lexlogic analyze``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from lexlogic.engine.prob import infer, inference_plan
from lexlogic.engine.prob.acquisition import eig, entropy
from lexlogic.engine.prob.model import (
    BoolVar,
    CategoricalVar,
    CollapsedNarrative,
    Option,
    ProbProgram,
    ProbVerdict,
    ScoredQuestion,
    World,
)
from lexlogic.engine.prob.soft import factor
from lexlogic.logic.facts import read_answer
from lexlogic.logic.memos import Memos
from lexlogic.logic.weights import Beta, parse_magnitude

_SIDES = {"claimant": "principle_claimant", "defence": "principle_defence", "defense": "principle_defence"}
_PARAMS = {
    "i": "intensity",
    "intensity": "intensity",
    "w": "weight",
    "weight": "weight",
    "r": "reliability",
    "reliability": "reliability",
}


def parse_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    read = read_answer(str(value))  # the one reader of typed answers (oui/non, yes/no, true/false, 1/0)
    if isinstance(read, bool):
        return read
    if read in (0, 1):
        return bool(read)
    raise ValueError(f"{name}: {value!r} is not a yes/no answer (true/false, oui/non)")


def _known(prog: ProbProgram) -> str:
    return ", ".join(v.name for v in prog.variables) or "(none)"


def answer_digits(prog: ProbProgram, answers: Mapping[str, Any]) -> dict[int, int]:
    """Answers → {variable index: value index}; unknown names and bad values raise ValueError."""
    out: dict[int, int] = {}
    names = {v.name: k for k, v in enumerate(prog.variables)}
    for name, value in answers.items():
        if name not in names:
            raise ValueError(f"answer for unknown fact {name!r} (uncertain facts: {_known(prog)})")
        k = names[name]
        v = prog.variables[k]
        out[k] = int(parse_bool(value, name)) if isinstance(v, BoolVar) else v.index_of(str(value))
    return out


def apply_whatif(prog: ProbProgram, whatif: Mapping[str, Any]) -> ProbProgram:
    """A copy of ``prog`` with priors / soft-rule magnitudes overridden.

    Keys: ``<variable>`` → new prior (bool: probability, ``beta(a,b)``, true/false; categorical:
    ``{option: prob}``, ``"opt=p,opt=p"`` or one option = certain); ``<soft_id>.<I1|W1|R1|I2|W2|R2>`` or
    ``<soft_id>.<claimant|defence>.<intensity|weight|reliability>`` → a magnitude (number, Alexy level
    l/m/s r/p/e, ``beta(a,b)``, ``scale(1:0.2,2:0.8)``).
    """
    if not whatif:
        return prog
    # a new list of variables (each moved one replaced by a copy) and a copy of each soft rule (a moved
    # magnitude replaces its principle on the copy): the rest is shared, never mutated — a deep copy of the
    # whole program was ~5 % of a new what-if's CPU
    p = prog.model_copy(
        update={"variables": list(prog.variables), "soft_rules": [r.model_copy() for r in prog.soft_rules]}
    )
    rules = {r.id: r for r in p.soft_rules}
    for key, value in whatif.items():
        if key in {v.name for v in p.variables}:
            idx = next(i for i, v in enumerate(p.variables) if v.name == key)
            p.variables[idx] = _with_prior(p.variables[idx], value)
            continue
        head, _, rest = key.partition(".")
        if head in rules and rest:
            rule = rules[head]
            parts = rest.lower().split(".")
            if len(parts) == 1 and len(parts[0]) == 2 and parts[0][0] in "iwr" and parts[0][1] in "12":
                side = "principle_claimant" if parts[0][1] == "1" else "principle_defence"
                param = _PARAMS[parts[0][0]]
            elif len(parts) == 2 and parts[0] in _SIDES and parts[1] in _PARAMS:
                side, param = _SIDES[parts[0]], _PARAMS[parts[1]]
            else:
                raise ValueError(
                    f"what-if {key!r}: expected {head}.I1|W1|R1|I2|W2|R2 or "
                    f"{head}.claimant|defence.intensity|weight|reliability"
                )
            principle = getattr(rule, side).model_copy()
            setattr(principle, param, parse_magnitude(value))
            setattr(rule, side, principle)
            continue
        raise ValueError(
            f"what-if on unknown name {key!r} (uncertain facts: {_known(p)}; "
            f"soft rules: {', '.join(rules) or '(none)'})"
        )
    return p


def _with_prior(v: BoolVar | CategoricalVar, value: Any) -> BoolVar | CategoricalVar:
    if isinstance(v, BoolVar):
        if isinstance(value, (Beta, float, int)) and not isinstance(value, bool):
            prior: float | Beta = value if isinstance(value, Beta) else float(value)
        else:
            s = str(value).strip().lower()
            if s.startswith("beta("):
                m = parse_magnitude(s)
                assert isinstance(m, Beta)
                prior = m
            elif isinstance(value, bool) or isinstance(read_answer(s), bool) or s in ("0", "1"):
                prior = 1.0 if parse_bool(value, v.name) else 0.0
            else:
                prior = float(s)
        return v.model_copy(update={"prior": BoolVar(name=v.name, atom=v.atom, prior=prior).prior})
    if isinstance(value, Mapping):
        probs = {str(k): float(x) for k, x in value.items()}
    elif "=" in str(value):
        probs = {a.split("=")[0].strip(): float(a.split("=")[1]) for a in str(value).split(",")}
    else:
        probs = {str(value): 1.0}
    new = [0.0] * len(v.options)
    for k, x in probs.items():
        new[v.index_of(k)] = x
    opts = [Option(atom=o.atom, prob=x, value=o.value) for o, x in zip(v.options, new)]
    return CategoricalVar.model_validate({**v.model_dump(), "options": [o.model_dump() for o in opts]})


def _narratives(prog: ProbProgram) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for tag in (World.NARRATIVE_A, World.NARRATIVE_B):
        fixed: dict[int, int] = {}
        for k, v in enumerate(prog.variables):
            if v.world != tag:
                continue
            if isinstance(v, BoolVar):
                fixed[k] = int(v.asserted)
            elif v.asserted is not None:
                fixed[k] = v.index_of(v.asserted)
        if fixed:
            out[tag.value] = fixed
    return out


def analyse(
    program: ProbProgram,
    answers: Mapping[str, Any] | None = None,
    whatif: Mapping[str, Any] | None = None,
    *,
    epsilon: float = 0.01,
    entropy_threshold: float = 0.3,
    max_exact_worlds: int | None = None,
    samples: int | None = None,
    seed: int = 0,
    method: Literal["auto", "exact", "enumerate", "sampling", "monte_carlo", "pyro"] = "auto",
    target_se: float | None = None,
    limits: inference_plan.InferenceLimits | None = None,
    memos: Memos | None = None,
) -> ProbVerdict:
    """The verdict on ``program.target`` given answers (evidence) and what-ifs (overrides). The route
    (contraction, enumeration, sampling) is chosen from a cost estimate (``engine.prob.inference_plan``)
    and ``limits`` (the caller's ``Settings.inference_*``; none: the defaults); ``samples`` is the number of
    draws when sampling is asked, their cap when ``auto`` samples (the count is then chosen for a standard
    error of ``target_se``). ``max_exact_worlds``, ``samples`` and ``target_se``, when given, override the
    limits' values. ``memos``: the owner's, where the compiled circuit is kept (none: compiled for this call)."""
    answers = dict(answers or {})
    whatif = dict(whatif or {})
    prog = apply_whatif(program, whatif)
    fixed = answer_digits(prog, answers)
    c = infer.compiled(prog, memos)
    priors = []
    for k, vec in enumerate(infer.prior_vectors(prog.variables)):
        if k in fixed:
            onehot = np.zeros_like(vec)
            onehot[fixed[k]] = 1.0
            vec = vec * onehot if (vec * onehot).sum() > 0 else onehot  # an answer beats a 0 prior
        priors.append(vec)
    observed = prog.observed_atoms()
    soft = [(observed.index(r.condition_atom), factor(r)) for r in prog.soft_rules]
    narratives = _narratives(prog)
    x = inference_plan.Inputs(c, prog, priors, soft, narratives, fixed)
    lim = limits or inference_plan.InferenceLimits.of()
    plan = inference_plan.choose(x, method, max_exact_worlds, lim)
    st, plan, evaluator = inference_plan.run(
        x, plan, samples=samples, seed=seed, target_se=target_se, auto=method == "auto", limits=lim
    )
    p_t = float(min(max(st.p_observed[0], 0.0), 1.0))
    h = entropy(p_t)

    questions: list[ScoredQuestion] = []
    p_vars: dict[str, dict[str, float]] = {}
    for k, v in enumerate(prog.variables):
        pv = st.per_var[k]
        labels = ["non", "oui"] if isinstance(v, BoolVar) else [o.value or o.atom for o in v.options]
        p_vars[v.name] = {lab: float(x) for lab, x in zip(labels, pv[0])}
        if k in fixed:
            continue
        if pv[0].max() >= 1.0 - 1e-12:  # already certain under the posterior: nothing to ask
            continue
        g = eig(pv, p_t)
        text = v.question or f"{v.name} ?"
        questions.append(
            ScoredQuestion(
                variable=v.name,
                question=text,
                eig=g,
                cost=v.cost,
                utility=g / v.cost,
                options=[] if isinstance(v, BoolVar) else labels,
                p_values={lab: float(x) for lab, x in zip(labels, pv[0])},
            )
        )
    questions.sort(key=lambda q: (-q.utility, -q.eig, q.variable))

    p_by: dict[str, float | None] = {}
    p_nar: dict[str, float] = {}
    collapsed: list[CollapsedNarrative] = []
    for name, (px, ptx) in st.narratives.items():
        p_nar[name] = px
        if px < epsilon:
            collapsed.append(CollapsedNarrative(narrative=World(name), probability=px, epsilon=epsilon))
            p_by[name] = None
        else:
            p_by[name] = None if math.isnan(ptx) else ptx

    informative = [q for q in questions if q.eig > 1e-9]
    status = "VERDICT" if h < entropy_threshold or not informative else "NEEDS_INFORMATION"
    return ProbVerdict(
        status=status,
        target=prog.target,
        p_target=p_t,
        p_target_by_narrative=p_by,
        p_narrative=p_nar,
        p_queries={a: float(st.p_observed[i]) for i, a in enumerate(observed) if a in prog.queries},
        p_variables=p_vars,
        entropy=h,
        entropy_threshold=entropy_threshold,
        method=st.method,  # type: ignore[arg-type]
        error=st.se_target,
        n_worlds=st.n_worlds,
        effective_sample_size=st.ess,
        p_evidence=st.p_evidence,
        questions=questions,
        best_question=informative[0] if status == "NEEDS_INFORMATION" else None,
        collapsed=collapsed,
        answers={prog.variables[k].name: _label(prog.variables[k], d) for k, d in fixed.items()},
        whatif={k: str(v) for k, v in whatif.items()},
        evaluator=evaluator,
        effective_worlds=st.n_worlds
        if evaluator == "contraction"
        else math.prod(int(np.count_nonzero(p)) for p in priors),
        inference=method,
        plan=plan,
        interval=inference_plan.interval(p_t, st.se_target, st.n_worlds)
        if plan.route in ("sampling", "pyro")
        else None,
        soft_factors={r.id: q for r, (_, q) in zip(prog.soft_rules, soft)},
    )


def _label(v: BoolVar | CategoricalVar, d: int) -> str:
    if isinstance(v, BoolVar):
        return "true" if d else "false"
    return v.options[d].value or v.options[d].atom
