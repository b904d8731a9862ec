"""Numbers as distributions: the reasonable notice and the damages, over the same worlds as liability.

Why: a verdict that says "liable with probability 0.57" must also say how much, and the amount depends on
the same uncertain facts (dependence raises the notice the judge would grant; an oral notice counts as
zero) plus numbers of their own (the judge's notice for this length of relation, the margin rate).
Generative reading, per world: discrete roots drawn from their priors (the model's variables), numeric
roots and the pack's latent numbers drawn from their laws (``weights.yaml`` ``numbers``; the judge's
notice is calibrated offline with Pyro on court decisions, ``calibration/``), every pack computation
and every output (``weights.yaml`` ``outputs``) evaluated on the whole batch (``jl_vec``), weights =
mask × soft factors (importance sampling with the prior as proposal; seeded numpy draws). A law may be
conditioned on the target: liable ⇒ the judge's notice exceeds the notice given (``at_least``), so the damages given liability are never a zero the judge could not have meant.
Reported: mean, p10, p50, p90, the standard error of the mean, the probability of the condition.
Questions about the remedy (the first output given the target): EIG (bits) of each askable root on it binned
by deciles — the question worth asking once liability is settled (e.g. the margin rate when only the turnover is known).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np

from lexlogic.engine.prob import infer, jl_vec
from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.case_model import CaseModel, weights_of
from lexlogic.engine.prob.model import BoolVar, NumberSummary, ProbVerdict, Question
from lexlogic.engine.prob.soft import factor
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.weights import NumberLaw

N_SAMPLES = 1 << 14
MIN_EIG = 0.005  # bits; the plug-in bias is about (bins−1)(cells−1)/(2N ln 2) ≈ 4e-4 at N = 2^14


def draw_law(law: NumberLaw, n: int, rng: np.random.Generator, data: dict[str, Any] | None = None) -> np.ndarray:
    """``n`` draws of a law (per-world covariates and effects read from ``data``).

    Plain seeded numpy draws: a case's numbers are the same on every run (a resumed run ends identical to an
    uninterrupted one) and the verdict does not import torch for them. Pyro's part is upstream — the notice
    law's parameters are the posterior of its SVI calibration (``calibration/fit_notice.py``).
    """
    if law.dist == "normal":
        assert law.mu is not None and law.sigma is not None
        x = law.mu + law.sigma * rng.standard_normal(n)
    elif law.dist == "uniform":
        assert law.low is not None and law.high is not None
        x = law.low + (law.high - law.low) * rng.random(n)
    elif law.dist == "discrete":
        probs = np.asarray(law.probs, dtype=np.float64)
        x = np.asarray(law.values, dtype=np.float64)[rng.choice(probs.size, size=n, p=probs / probs.sum())]
    else:
        # parameter uncertainty (the calibration's posterior over a, b, ln σ), then the residual
        mean, cov = np.asarray(law.mean, dtype=np.float64), np.asarray(law.cov, dtype=np.float64)
        z = mean + rng.standard_normal((n, mean.size)) @ np.linalg.cholesky(cov).T
        loc = z[:, 0] + z[:, 1] * _ln_covariate(law, n, data or {})
        for fact, effect in law.effects.items():
            loc = loc + effect * _as_float(data.get(fact) if data else None, n)
        sigma = np.exp(z[:, 2])
        eps = rng.standard_normal(n)
        floor = _floor(law, n, data or {})
        if floor is not None:  # conditioned on exceeding the floor where the condition holds (inverse cdf)
            zf = (np.log(np.clip(np.nan_to_num(floor, nan=1.0), 1e-9, None)) - loc) / sigma
            u_low = _normal_cdf(zf)
            u = np.clip(u_low + (1 - u_low) * rng.random(n), 1e-12, 1 - 1e-12)
            eps = np.where(np.isnan(floor), eps, _normal_icdf(u))
        x = np.exp(loc + sigma * eps)
    if law.min is not None or law.max is not None:
        x = np.clip(x, law.min, law.max)
    return np.asarray(x, dtype=np.float64)


_STD_NORMAL = NormalDist()
_normal_cdf = np.vectorize(_STD_NORMAL.cdf, otypes=[np.float64])
_normal_icdf = np.vectorize(_STD_NORMAL.inv_cdf, otypes=[np.float64])


def _as_float(v: Any, n: int) -> np.ndarray:
    if isinstance(v, np.ndarray):
        return np.nan_to_num(v.astype(np.float64), nan=0.0)
    if v is None:
        return np.zeros(n)
    return np.full(n, float(v))


def _ln_covariate(law: NumberLaw, n: int, data: dict[str, Any]) -> np.ndarray:
    if law.covariate is None:
        return np.zeros(n)
    v = data.get(law.covariate)
    arr = np.full(n, np.nan) if v is None else (v if isinstance(v, np.ndarray) else np.full(n, float(v)))
    return np.log(np.maximum(arr / law.divide, 1e-9))


def _floor(law: NumberLaw, n: int, data: dict[str, Any]) -> np.ndarray | None:
    if not law.at_least:
        return None
    when = data.get(f"__atom__{law.at_least.get('when')}")
    value = data.get(law.at_least.get("value", ""))
    if when is None or value is None:
        return None
    val = value if isinstance(value, np.ndarray) else np.full(n, float(value))
    return np.where(when, val, np.nan)


def weighted_summary(x: np.ndarray, w: np.ndarray, **kw: Any) -> NumberSummary | None:
    keep = (w > 0) & ~np.isnan(x)
    if not keep.any():
        return None
    x, w = x[keep], w[keep]
    sw = float(w.sum())
    mean = float(x @ w) / sw
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cw = np.cumsum(w[order]) / sw
    q = [float(xs[min(int(np.searchsorted(cw, p)), xs.size - 1)]) for p in (0.1, 0.5, 0.9)]
    se = math.sqrt(float(((x - mean) ** 2) @ (w * w))) / sw
    return NumberSummary(mean=mean, p10=q[0], p50=q[1], p90=q[2], se=se, n_samples=int(keep.sum()), **kw)


def _entropy(w_by_bin: np.ndarray) -> float:
    p = w_by_bin[w_by_bin > 0]
    p = p / p.sum()
    return float(-(p * np.log2(p)).sum())


def finish_verdict(
    pack: RulePack,
    model: CaseModel,
    verdict: ProbVerdict,
    whatif: dict[str, Any] | None = None,
    *,
    seed: int = 0,
    samples: int = N_SAMPLES,
) -> ProbVerdict:
    """The verdict with its numbers (outputs of ``weights.yaml``) and the questions about the damages."""
    verdict = verdict.model_copy(update={"soft_factors": {**model.folded, **verdict.soft_factors}})
    verdict.unmodelled = dict(model.unmodelled)
    weights = weights_of(pack)
    if weights is None or not weights.outputs:
        return verdict
    prog = apply_whatif(model.program, whatif or {})
    c = infer.compiled(prog)
    priors = infer.prior_vectors(prog.variables)
    rng = np.random.default_rng(seed)
    n = samples
    digits, _, _ = infer.sample_digits(prog, priors, n, rng)
    mask, obs = c.evaluate(digits)
    w = mask.astype(np.float64)
    observed = prog.observed_atoms()
    for rule in prog.soft_rules:
        q = factor(rule)
        w *= np.where(obs[observed.index(rule.condition_atom)], q, 1.0 - q)
    if w.sum() <= 0:
        return verdict
    target = obs[0] & mask
    data: dict[str, Any] = {k: v.value for k, v in model.values.items() if v.known}
    data[f"__atom__{prog.target}"] = target
    cells: dict[str, np.ndarray] = {}  # askable root → its value index per world (for the EIG)
    for k, var in enumerate(prog.variables):
        fact = model.roots.get(var.name)
        if fact is None:
            continue
        if isinstance(var, BoolVar):
            if var.name == fact:
                data[fact] = digits[k].astype(np.float64)
                data[f"__bool__{fact}"] = True
        else:
            vals = [o.value for o in var.options]
            if pack.value_type(fact) in (FactType.BOOL,) or not all(_numeric(v) for v in vals):
                continue
            data[fact] = np.array([float(v) for v in vals])[digits[k]]  # type: ignore[arg-type]
        if var.name in model.asks:
            cells[model.asks[var.name]] = digits[k].astype(np.int64)
    for name, law in weights.numbers.items():  # numeric facts nobody gave, not in the discrete part
        if name in pack.facts and name not in data and not model.values[name].known:
            x = draw_law(law, n, rng)
            data[name] = x
            if pack.facts[name].question:
                edges = np.quantile(x, [0.25, 0.5, 0.75])
                cells[name] = np.searchsorted(edges, x)
    try:
        for comp in pack.computations:
            reads = [d for d in comp.inputs if d not in data or data[d] is None]
            if reads:
                data.pop(comp.output, None)
                continue
            if any(isinstance(data.get(v), np.ndarray) for v in jl_vec.jsonlogic_policy.variables_used(comp.logic)):
                try:
                    data[comp.output] = jl_vec.computation(comp.logic, comp.type.value, data, n)
                except jl_vec.Unvectorisable:  # e.g. a date chosen per world: unknown for the numbers
                    data.pop(comp.output, None)
        for name, law in weights.numbers.items():  # the pack's latent numbers (not facts)
            if name not in pack.facts:
                data[name] = draw_law(law, n, rng, data)
        outs = {name: jl_vec.evaluate(out.logic, data, n) for name, out in weights.outputs.items()}
    except jl_vec.Unvectorisable:
        return verdict
    p_t = float(w @ target) / float(w.sum())
    remedy = None
    method = "importance_sampling (prior proposal, seeded numpy draws of the pack's laws)"
    for name, out in weights.outputs.items():
        x = jl_vec._f(outs[name], n)
        if np.isnan(x).all():
            continue
        if out.given_target:
            remedy = remedy or name
            given = weighted_summary(
                x, w * target, unit=out.unit, method=method, condition=f"given {prog.target}", probability=p_t
            )
            if given is not None:
                verdict.outputs_given_target[name] = given
            x = np.where(target, x, 0.0)
        summary = weighted_summary(x, w, unit=out.unit, method=method)
        if summary is not None:
            verdict.outputs[name] = summary
    if remedy is not None:
        x = np.where(target, jl_vec._f(outs[remedy], n), 0.0)
        verdict.output_questions = _output_questions(pack, x, w, cells)
        verdict.output_questions_about = remedy
    return verdict


def _numeric(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _output_questions(pack: RulePack, x: np.ndarray, w: np.ndarray, cells: dict[str, np.ndarray]) -> list[Question]:
    """EIG (bits) of each askable root on the remedy output binned by deciles (Monte Carlo plug-in)."""
    ok = (w > 0) & ~np.isnan(x)
    if ok.sum() < 2:
        return []
    edges = np.unique(np.quantile(x[ok], np.linspace(0.1, 0.9, 9)))
    bins = np.searchsorted(edges, np.nan_to_num(x), side="right")
    nb = int(bins.max()) + 1
    h = _entropy(np.bincount(bins[ok], weights=w[ok], minlength=nb))
    out: list[Question] = []
    for fact, cell in cells.items():
        spec = pack.facts.get(fact)
        if spec is None or not spec.question or spec.appreciation:
            continue
        cond = 0.0
        total = float(w[ok].sum())
        for v in np.unique(cell[ok]):
            sel = ok & (cell == v)
            pv = float(w[sel].sum()) / total
            if pv > 0:
                cond += pv * _entropy(np.bincount(bins[sel], weights=w[sel], minlength=nb))
        eig = max(0.0, h - cond)
        if eig < MIN_EIG:  # below the plug-in estimator's bias: noise, not information
            continue
        out.append(Question(variable=fact, question=spec.question, eig=eig, cost=spec.cost, utility=eig / spec.cost))
    out.sort(key=lambda q: (-q.utility, q.variable))
    return out
