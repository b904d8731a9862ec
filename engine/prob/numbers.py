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
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple, cast

import numpy as np

from lexlogic.engine.prob import infer, jl_vec, normal, reweight, sampled_worlds
from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.case_model import CaseModel, weights_of
from lexlogic.engine.prob.model import BoolVar, NumberSummary, ProbProgram, ProbVerdict, ScoredQuestion
from lexlogic.engine.prob.soft import factor
from lexlogic.logic.identity_memo import IdentityMemo
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.pack import FactSpec, FactType, RulePack
from lexlogic.logic.weights import NumberLaw

N_SAMPLES = 1 << 14
# (program, its compiled circuit, priors, n, seed) → its sampled worlds: ``sampled_worlds.sampled``'s signature
WorldsSource = Callable[[ProbProgram, infer.Compiled, list[np.ndarray], int, int], sampled_worlds.SampledWorlds]
MIN_EIG = 0.005  # bits; the plug-in bias is about (bins−1)(cells−1)/(2N ln 2) ≈ 4e-4 at N = 2^14


LAW_DRAWS_SIZE = 16


def draw_law(
    law: NumberLaw,
    n: int,
    rng: np.random.Generator,
    data: dict[str, Any] | None = None,
    memos: Memos | None = None,
) -> np.ndarray:
    """``n`` draws of a law (per-world covariates and effects read from ``data``).

    Plain seeded numpy draws: a case's numbers are the same on every run (a resumed run ends identical to an
    uninterrupted one) and the verdict does not import torch for them. Pyro's part is upstream — the notice
    law's parameters are the posterior of its SVI calibration (``calibration/fit_notice.py``).

    A regression law's draws are remembered by the owner of ``memos`` under what they depend on — the law, the
    generator's state, and what the law reads (``_law_key``) — with the state they leave: a new case that differs
    only in values the law does not read (its amounts) gets the very same draws, without drawing them again.
    """
    if memos is None or law.dist in ("normal", "uniform", "discrete"):
        return _draw_law(law, n, rng, data, memos)
    table = memos.lru("prob.law_draws", LAW_DRAWS_SIZE)
    key, held = _law_key(law, n, rng, data or {})
    hit = table.get(key)
    if hit is not None and hit[0] is law and all(x is y for x, y in zip(hit[1], held, strict=True)):
        rng.bit_generator.state = hit[3]
        return cast(np.ndarray, hit[2])
    x = _draw_law(law, n, rng, data, memos)
    x.flags.writeable = False  # shared from now on
    table.put(key, (law, held, x, rng.bit_generator.state))
    return x


def _law_reads(law: NumberLaw) -> list[str]:
    """The names of ``data`` a law's draws read: its covariate, its effects, its floor's condition and value."""
    reads = [law.covariate] if law.covariate else []
    reads += list(law.effects)
    if law.at_least:
        reads += [f"__atom__{law.at_least.get('when')}", law.at_least.get("value", "")]
    return reads


def _law_key(
    law: NumberLaw, n: int, rng: np.random.Generator, data: dict[str, Any]
) -> tuple[tuple[Any, ...], tuple[np.ndarray, ...]]:
    """What a law's draws depend on: the law (by identity, held), ``n``, the generator's state, and each value it
    reads — a scalar by its ``repr``, a per-world column by its identity (held: columns of a class of worlds and
    remembered computations are kept objects, so the same column is the same object)."""
    parts: list[Any] = [id(law), n, repr(rng.bit_generator.state)]
    held: list[np.ndarray] = []
    for name in _law_reads(law):
        v = data.get(name)
        if isinstance(v, np.ndarray):
            parts.append((name, "a", id(v)))
            held.append(v)
        else:
            parts.append((name, "s", repr(v)))
    return tuple(parts), tuple(held)


def _draw_law(
    law: NumberLaw,
    n: int,
    rng: np.random.Generator,
    data: dict[str, Any] | None = None,
    memos: Memos | None = None,
) -> np.ndarray:
    """The draws themselves (``draw_law``)."""
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
        a, b, sigma, eps = _regression_draws(law, n, rng, memos)
        loc = a + b * _ln_covariate(law, n, data or {})
        for fact, effect in law.effects.items():
            loc = loc + effect * _as_float(data.get(fact) if data else None, n)
        floor = _floor(law, n, data or {})
        if floor is not None:  # conditioned on exceeding the floor where the condition holds (inverse cdf)
            eps = _above_floor(floor, loc, sigma, eps, rng.random(n))
        x = np.exp(loc + sigma * eps)
    if law.min is not None or law.max is not None:
        x = np.clip(x, law.min, law.max)
    return np.asarray(x, dtype=np.float64)


DRAWS_SIZE = 16


def _regression_draws(
    law: NumberLaw, n: int, rng: np.random.Generator, memos: Memos | None = None
) -> tuple[np.ndarray, ...]:
    """(a, b, σ, ε) per draw of a regression law: its parameters from the calibration's posterior, then the
    residual. They depend on the generator's state and the law only — every verdict of a class of worlds starts
    its laws from the same state (``sampled_worlds``) — so they are drawn once per state and law and kept
    (read-only), the generator left where the draws leave it — by the owner of ``memos`` (none: drawn)."""
    table = own(memos).lru("prob.regression_draws", DRAWS_SIZE)
    st = rng.bit_generator.state
    key = (repr(st), tuple(law.mean or ()), tuple(map(tuple, law.cov or ())), n)
    hit: tuple[tuple[np.ndarray, ...], Any] | None = table.get(key)
    if hit is None:
        mean, cov = np.asarray(law.mean, dtype=np.float64), np.asarray(law.cov, dtype=np.float64)
        z = mean + np.einsum("ij,kj->ik", rng.standard_normal((n, mean.size)), np.linalg.cholesky(cov))  # no BLAS
        draws: tuple[np.ndarray, ...] = (z[:, 0].copy(), z[:, 1].copy(), np.exp(z[:, 2]), rng.standard_normal(n))
        for x in draws:
            x.flags.writeable = False
        hit = (draws, rng.bit_generator.state)
        table.put(key, hit)
    rng.bit_generator.state = hit[1]
    return hit[0]


_normal_cdf = normal.cdf  # whole arrays: no Python call per draw
_normal_icdf = normal.inv_cdf


def _above_floor(floor: np.ndarray, loc: np.ndarray, sigma: np.ndarray, eps: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The residuals: where a floor holds (not NaN), drawn by the inverse cdf above it (uniforms ``r``);
    elsewhere ``eps``. Φ and Φ⁻¹ are evaluated on the floored draws only (element-wise: the same numbers as on
    all of them, for about half the work)."""
    at = np.flatnonzero(~np.isnan(floor))
    out = eps.copy()
    zf = (np.log(np.clip(floor[at], 1e-9, None)) - loc[at]) / sigma[at]
    u_low = _normal_cdf(zf)
    u = np.clip(u_low + (1 - u_low) * r[at], 1e-12, 1 - 1e-12)
    out[at] = _normal_icdf(u)
    return out


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


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """Σ a·b without BLAS: on this shared 2-core machine a threaded BLAS ddot of 2^14 entries was measured
    at 60 ms under load (threads waiting for cores), the plain einsum loop at 0.02 ms."""
    return float(np.einsum("i,i->", a, b.astype(np.float64, copy=False)))


def weighted_summary(
    x: np.ndarray, w: np.ndarray, *, order: np.ndarray | None = None, **kw: Any
) -> NumberSummary | None:
    """Mean, deciles and SE of ``x`` under weights ``w``. ``order``: ``argsort(x)`` when the caller keeps it
    (the same values under other weights): the kept worlds are then read in that order, not sorted again."""
    keep = (w > 0) & ~np.isnan(x)
    if not keep.any():
        return None
    if order is not None:
        ranked = order[keep[order]]  # the kept worlds, by value
        xs, ws = x[ranked], w[ranked]
    x, w = x[keep], w[keep]
    sw = float(w.sum())
    mean = _dot(x, w) / sw
    if order is None:
        order = np.argsort(x)  # ties in any order: a quantile is the value where the weight crosses p
        xs, ws = x[order], w[order]
    cw = np.cumsum(ws) / sw
    q = [float(xs[min(int(np.searchsorted(cw, p)), xs.size - 1)]) for p in (0.1, 0.5, 0.9)]
    se = math.sqrt(_dot((x - mean) ** 2, w * w)) / sw
    return NumberSummary(mean=mean, p10=q[0], p50=q[1], p90=q[2], se=se, n_samples=int(keep.sum()), **kw)


def _entropy(w_by_bin: np.ndarray) -> float:
    p = w_by_bin[w_by_bin > 0]
    p = p / p.sum()
    return float(-(p * np.log2(p)).sum())


def _conditional_entropies(tables: list[np.ndarray], total: float) -> list[float]:
    """Each table's Σ over its rows of P(row)·H(row) (rows: a fact's values, columns: the remedy's bins), all the
    tables' rows at once — with ``_entropy``'s arithmetic row by row, so the same floats as the loop it replaced
    (~8 % of a new what-if, issue 33): each row's positive entries kept in order and summed along the row (rows
    grouped by how many they have), the terms added in row order by ``sum``."""
    if not tables:
        return []
    rows = np.concatenate(tables)  # (all rows, bins), C-contiguous: a row's sum is the sum of that row alone
    sums = rows.sum(axis=1)
    kept = sums > 0
    count = np.count_nonzero(rows > 0, axis=1)
    ent = np.zeros(len(rows))
    for k in np.unique(count[kept]):
        sel = np.flatnonzero(kept & (count == k))
        sub = rows[sel]
        p = sub[sub > 0].reshape(len(sel), int(k))
        p = p / p.sum(axis=1)[:, None]
        ent[sel] = -(p * np.log2(p)).sum(axis=1)
    terms = sums / total * ent
    out, start = [], 0
    for t in tables:
        end = start + len(t)
        out.append(sum(terms[start:end][kept[start:end]].tolist()))
        start = end
    return out


def may_ask_about_outputs(pack: RulePack, model: CaseModel) -> bool:
    """Whether ``finish_verdict`` can find a question about the damages: the pack has outputs and some askable
    fact (a question, not the judge's appreciation) is an uncertain root of the model or a number nobody gave
    that a law draws. A superset of the facts ``finish_verdict`` scores (it also skips a law's fact present as
    a root column), so False means its ``output_questions`` would be empty."""
    weights = weights_of(pack)
    if weights is None or not weights.outputs:
        return False
    facts = {model.asks[v.name] for v in model.program.variables if v.name in model.asks and v.name in model.roots}
    for name in weights.numbers:
        info = model.values.get(name)
        if name in pack.facts and (info is None or not info.known):
            facts.add(name)
    return any((s := pack.facts.get(f)) is not None and bool(s.question) and not s.appreciation for f in facts)


PRIOR_PROPOSAL = "importance_sampling (prior proposal, seeded numpy draws of the pack's laws)"
REWEIGHTED = (
    "importance_sampling ({} with seeded numpy draws of the pack's laws, re-weighted to the what-if's priors: {})"
)
OWN_DRAWS = "the case's own draws from its priors"


def finish_verdict(
    pack: RulePack,
    model: CaseModel,
    verdict: ProbVerdict,
    whatif: dict[str, Any] | None = None,
    *,
    seed: int = 0,
    samples: int = N_SAMPLES,
    summaries: bool = True,
    proposal: CaseModel | None = None,
    draw_worlds: WorldsSource | None = None,
    memos: Memos | None = None,
) -> ProbVerdict:
    """The verdict with its numbers (outputs of ``weights.yaml``) and the questions about the damages
    (``summaries=False``: the questions only, no distribution — a portfolio's result line reads none).
    ``proposal``: the case's model without the what-if (its priors): when the what-if moves only priors, its
    numbers are the case's draws re-weighted (``reweight``), else drawn afresh; the summaries' method says which.
    ``draw_worlds``: where the sampled worlds come from (a portfolio group's case axis); None, ``sampled_worlds``.
    ``memos``: the owner's (its sampled worlds and per-world outputs; none: this call's own)."""
    memos = own(memos)
    verdict = verdict.model_copy(update={"soft_factors": {**model.folded, **verdict.soft_factors}})
    verdict.unmodelled = dict(model.unmodelled)
    weights = weights_of(pack)
    if weights is None or not weights.outputs:
        return verdict
    prog = apply_whatif(model.program, whatif or {})
    n = samples
    draw = draw_worlds or partial(sampled_worlds.sampled, memos=memos)
    drawn = _draws(model, prog, proposal, n, seed, draw, memos)
    worlds, source, w, method = drawn.worlds, drawn.source, drawn.w, drawn.method
    if w.sum() <= 0:
        return verdict
    # without summaries only the remedy is read (its questions): the other outputs are not evaluated
    only = None if summaries else tuple(k for k, out in weights.outputs.items() if out.given_target)
    per = _per_world(pack, weights, source, worlds, n, seed, only, memos)
    if per is None:
        return verdict
    target = per.target
    p_t = _dot(w, target) / float(w.sum())
    if str(getattr(verdict.method, "value", verdict.method)) == "exact":  # the one P(target) the verdict prints
        p_t = float(verdict.p_target)
    remedy = None
    for name, out in weights.outputs.items():
        if name not in per.outs:
            continue
        x = jl_vec._f(per.outs[name], n)
        if np.isnan(x).all():
            continue
        if out.given_target:
            remedy = remedy or name
        if summaries:
            orders = per if method != PRIOR_PROPOSAL else None  # the case's own path: as it always was
            _summarise(verdict, name, out, x, w, target, p_t, prog.target, method, orders)
    if remedy is not None:
        x = np.where(target, jl_vec._f(per.outs[remedy], n), 0.0)
        # the plug-in EIG's bias grows as 1/ESS: re-weighted draws need as much more to count as information
        verdict.output_questions = _output_questions(pack, x, w, per.cells, per, min_eig=MIN_EIG / drawn.share)
        verdict.output_questions_about = remedy
    return verdict


def _worlds(prog: ProbProgram, n: int, seed: int, draw: WorldsSource, memos: Memos) -> sampled_worlds.SampledWorlds:
    return draw(prog, infer.compiled(prog, memos), infer.prior_vectors(prog.variables), n, seed)


def _weights(prog: ProbProgram, worlds: sampled_worlds.SampledWorlds) -> np.ndarray:
    """Each world's weight: its mask × the soft rules' factors (``prog``'s magnitudes)."""
    w = worlds.mask.astype(np.float64)
    observed = prog.observed_atoms()
    for rule in prog.soft_rules:
        q = factor(rule)
        w *= np.where(worlds.obs[observed.index(rule.condition_atom)], q, 1.0 - q)
    return w


def _same_case(a: CaseModel, b: CaseModel, prog: ProbProgram) -> bool:
    """Whether ``b``'s draws can stand for ``a``'s (what-if program ``prog``): same worlds' structure, same
    values, roots, readings and questions — only priors (and soft magnitudes) may differ."""
    if a is b:  # the what-if's program is ``apply_whatif(a.program, …)``: priors and magnitudes only
        return True
    if (a.roots, a.asserts, a.asks, a.values) != (b.roots, b.asserts, b.asks, b.values):
        return False
    return _same_structure(b.program, prog)


def _same_structure(p: ProbProgram, q: ProbProgram) -> bool:
    """``p.structure_key() == q.structure_key()`` without hashing either (what the key is made of, compared)."""
    if p.program != q.program or p.exclusive != q.exclusive or p.observed_atoms() != q.observed_atoms():
        return False
    if len(p.variables) != len(q.variables):
        return False
    for u, v in zip(p.variables, q.variables, strict=True):
        if isinstance(u, BoolVar) != isinstance(v, BoolVar):
            return False
        if isinstance(u, BoolVar) and isinstance(v, BoolVar):
            if u.atom != v.atom:
                return False
        elif [o.atom for o in u.options] != [o.atom for o in v.options]:  # type: ignore[union-attr]
            return False
    return True


class _Drawn(NamedTuple):
    worlds: sampled_worlds.SampledWorlds
    source: CaseModel  # the model whose values the worlds carry
    w: np.ndarray  # each world's weight
    method: str  # the summaries' words
    share: float = 1.0  # the share of the proposal's effective sample size the weights keep


def _draws(
    model: CaseModel,
    prog: ProbProgram,
    proposal: CaseModel | None,
    n: int,
    seed: int,
    draw: WorldsSource,
    memos: Memos,
) -> _Drawn:
    """The worlds the numbers are read on, the model whose values they carry, their weights and the method's
    words: the proposal's draws re-weighted when it can serve (``reweight``), otherwise ``prog``'s own."""
    method = PRIOR_PROPOSAL
    if proposal is not None and _same_case(model, proposal, prog):
        worlds = _worlds(proposal.program, n, seed, draw, memos)
        w0 = _weights(prog, worlds)
        ratio = reweight.prior_ratio(proposal.program, prog, worlds.digits)
        if not ratio.moved and ratio.refused is None:  # the same priors: the very draws prog's would be
            return _Drawn(worlds, proposal, w0, method)
        w, words, share = reweight.accepted(w0, ratio)
        if w is not None:
            return _Drawn(worlds, proposal, w, REWEIGHTED.format(OWN_DRAWS, words), share)
        if ratio.refused is None:  # too far from the case's priors: from the case's draws widened on those roots
            wide = reweight.widened(proposal.program, ratio.moved)
            worlds = _worlds(wide, n, seed, draw, memos)
            w0 = _weights(prog, worlds)
            w, words, share = reweight.accepted(w0, reweight.prior_ratio(wide, prog, worlds.digits))
            if w is not None:
                return _Drawn(worlds, proposal, w, REWEIGHTED.format(reweight.uniform_words(ratio.moved), words), share)
        method = f"{PRIOR_PROPOSAL}; drawn afresh for the what-if's priors: {words}"
    worlds = _worlds(prog, n, seed, draw, memos)
    return _Drawn(worlds, model, _weights(prog, worlds), method)


class _PerWorld:
    """What a class of draws gives a case model's numbers, whatever the weights: the target per world, the
    outputs per world, the askable roots' cells, and (for re-weighted summaries) each output's sort order."""

    def __init__(self, target: np.ndarray, outs: dict[str, np.ndarray], cells: dict[str, np.ndarray]) -> None:
        for a in (target, *outs.values(), *cells.values()):
            a.flags.writeable = False
        self.target, self.outs, self.cells = target, outs, cells
        self._orders: dict[tuple[str, bool], np.ndarray] = {}
        self._bins: tuple[np.ndarray, np.ndarray, np.ndarray, int] | None = None  # (x, ok, bins, count)
        self._lock = threading.Lock()

    def bins(self, x: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, int]:
        """``_deciles(x, ok)``, kept for the last (x, ok) asked (the remedy: one per verdict)."""
        with self._lock:
            hit = self._bins
        if hit is not None and np.array_equal(hit[0], x, equal_nan=True) and np.array_equal(hit[1], ok):
            return hit[2], hit[3]
        bins, nb = _deciles(x, ok)
        with self._lock:
            self._bins = (x, ok, bins, nb)
        return bins, nb

    def order(self, name: str, given: bool, x: np.ndarray) -> np.ndarray:
        """``argsort(x)`` for output ``name`` (``given``: its values given the target), computed once."""
        with self._lock:
            hit = self._orders.get((name, given))
        if hit is None:
            hit = np.argsort(x)
            with self._lock:
                self._orders[(name, given)] = hit
        return hit


PER_WORLD_SIZE = 8


def _per_world(
    pack: RulePack,
    weights: Any,
    model: CaseModel,
    worlds: sampled_worlds.SampledWorlds,
    n: int,
    seed: int,
    only: tuple[str, ...] | None,
    memos: Memos,
) -> _PerWorld | None:
    """``_evaluated``, kept per (pack, model, class of draws, outputs asked) by the owner of ``memos``: the
    what-ifs that re-weight the case's draws read the same outputs. None: an output the vectorised evaluation
    cannot compute."""
    per_world: IdentityMemo[_PerWorld | None] = memos.identity("prob.per_world", PER_WORLD_SIZE)
    return per_world.get(
        (pack, model, worlds), (n, seed, only), lambda: _evaluated(pack, weights, model, worlds, n, seed, only, memos)
    )


def _evaluated(
    pack: RulePack,
    weights: Any,
    model: CaseModel,
    worlds: sampled_worlds.SampledWorlds,
    n: int,
    seed: int,
    only: tuple[str, ...] | None,
    memos: Memos | None = None,
) -> _PerWorld | None:
    """The roots' values per world, the laws' draws (continuing the worlds' generator), the outputs."""
    prog = model.program
    rng = np.random.default_rng(seed)
    rng.bit_generator.state = worlds.state  # the laws' draws continue where the worlds' draws ended
    digits = worlds.digits
    target = _target_column(worlds, memos)
    data: dict[str, Any] = {k: v.value for k, v in model.values.items() if v.known}
    data[f"__atom__{prog.target}"] = target
    cells: dict[str, np.ndarray] = {}  # askable root → its value index per world (for the EIG)
    choices: dict[str, list[Any]] = {}  # a root whose value is not a number per world: its value per world
    for k, var in enumerate(prog.variables):
        fact = model.roots.get(var.name)
        if fact is None:
            continue
        if var.name in model.asserts:  # a narrative's reading: its value where that narrative's variable holds
            per = choices.setdefault(fact, [None] * n)
            said = model.asserts[var.name]
            for i in np.flatnonzero(digits[k]):
                per[i] = said
        elif isinstance(var, BoolVar):
            if var.name == fact:
                data[fact] = worlds.column(k)
                data[f"__bool__{fact}"] = True
        else:
            vals = [o.value for o in var.options]
            if pack.value_type(fact) in (FactType.BOOL,) or not all(_numeric(v) for v in vals):
                choices[fact] = [vals[j] for j in digits[k]]
            else:
                data[fact] = worlds.column(k, tuple(float(v) for v in vals))  # type: ignore[arg-type]
        if var.name in model.asks:
            cells[model.asks[var.name]] = digits[k].astype(np.int64)
    for name, law in weights.numbers.items():  # numeric facts nobody gave, not in the discrete part
        if name in pack.facts and name not in data and not model.values[name].known:
            x = draw_law(law, n, rng, memos=memos)
            data[name] = x
            if pack.facts[name].question:
                edges = np.quantile(x, [0.25, 0.5, 0.75])
                cells[name] = np.searchsorted(edges, x)
    try:
        outs = _outputs_by_choice(
            pack, weights, data, choices, n, rng, worlds.codes(), list(only) if only is not None else None, memos
        )
    except jl_vec.Unvectorisable:
        return None
    return _PerWorld(target, {k: jl_vec._f(v, n) for k, v in outs.items()}, cells)


WORLD_TARGETS_SIZE = 16


def _target_column(worlds: sampled_worlds.SampledWorlds, memos: Memos | None) -> np.ndarray:
    """The target per world (observed and not masked), one read-only object per class of worlds kept by the owner
    of ``memos``: what reads it (a law's floor) is then remembered under its identity (``draw_law``)."""

    def target() -> np.ndarray:
        t = worlds.obs[0] & worlds.mask
        t.flags.writeable = False
        return t

    table: IdentityMemo[np.ndarray] = own(memos).identity("prob.world_targets", WORLD_TARGETS_SIZE)
    return table.get((worlds,), None, target)


def _summarise(
    verdict: ProbVerdict,
    name: str,
    out: Any,
    x: np.ndarray,
    w: np.ndarray,
    target: np.ndarray,
    p_t: float,
    target_name: str,
    method: str = PRIOR_PROPOSAL,
    orders: _PerWorld | None = None,
) -> None:
    """One output's distribution (and, for the remedy, given the target) into the verdict. ``orders``: the
    outputs' sort orders kept with the draws (re-weighted what-ifs: the same values, other weights)."""
    if out.given_target:
        given = weighted_summary(
            x,
            w * target,
            unit=out.unit,
            method=method,
            condition=f"given {target_name}",
            probability=p_t,
            order=orders.order(name, False, x) if orders is not None else None,
        )
        if given is not None:
            verdict.outputs_given_target[name] = given
        x = np.where(target, x, 0.0)
    order = orders.order(name, out.given_target, x) if orders is not None else None
    summary = weighted_summary(x, w, unit=out.unit, method=method, order=order)
    if summary is not None:
        verdict.outputs[name] = summary


def _reads(pack: RulePack, weights: Any, outputs: list[str]) -> set[str] | None:
    """Every value ``outputs`` depend on: their formulas' variables, every latent law's inputs (each law is drawn
    whatever is asked, in order, so the generator's draws are the same), and, through the pack's
    computations, what those read. None when a formula reads by computed names (then everything is needed)."""
    frontier: list[str] = []
    for name in outputs:
        if not jl_vec.literal_reads(weights.outputs[name].logic):
            return None
        frontier += jl_vec.variables(weights.outputs[name].logic)
    for name, law in weights.numbers.items():
        if name not in pack.facts:
            frontier += [x for x in (law.covariate, *law.effects, *(law.at_least or {}).values()) if x]
    seen: set[str] = set()
    while frontier:
        name = frontier.pop()
        if name in seen:
            continue
        seen.add(name)
        comp = pack.computation_for(name)
        if comp is None:
            continue
        if not jl_vec.literal_reads(comp.logic):
            return None
        frontier += [*comp.inputs, *jl_vec.variables(comp.logic)]
    return seen


def _outputs(
    pack: RulePack,
    weights: Any,
    data: dict[str, Any],
    n: int,
    rng: Any,
    roots: jl_vec.Codes | None = None,
    only: list[str] | None = None,
    memos: Memos | None = None,
) -> dict[str, np.ndarray]:
    """The pack's outputs per world from the roots' values (``data``): its computations, then its laws.
    ``roots``: the codes of the sampled roots' columns. ``only``: these outputs, and of the computations only
    those they read (``_reads``); every law is still drawn."""
    data = dict(data)
    # each per-world column factorised once: rules evaluated once per class of their inputs
    codes = roots.copy() if roots is not None else jl_vec.Codes()
    needed = _reads(pack, weights, only) if only is not None else None
    for comp in pack.computations:
        if needed is not None and comp.output not in needed:
            continue
        reads = [d for d in comp.inputs if d not in data or data[d] is None]
        if reads:
            data.pop(comp.output, None)
            continue
        if any(isinstance(data.get(v), np.ndarray) for v in jl_vec.variables(comp.logic)):
            try:
                data[comp.output] = jl_vec.computation(comp.logic, comp.type.value, data, n, codes, memos)
            except jl_vec.Unvectorisable:  # e.g. a date chosen per world: unknown for the numbers
                data.pop(comp.output, None)
    for name, law in weights.numbers.items():  # the pack's latent numbers (not facts)
        if name not in pack.facts:
            data[name] = draw_law(law, n, rng, data, memos)
    return {
        name: jl_vec._f(jl_vec.evaluate(out.logic, data, n, codes), n)
        for name, out in weights.outputs.items()
        if only is None or name in only
    }


def _outputs_by_choice(
    pack: RulePack,
    weights: Any,
    data: dict[str, Any],
    choices: dict[str, list[Any]],
    n: int,
    rng: Any,
    roots: jl_vec.Codes | None = None,
    only: list[str] | None = None,
    memos: Memos | None = None,
) -> dict[str, np.ndarray]:
    """The outputs in every world, when some roots take a value that is not a number (an enum, a narrative's
    reading): evaluated once per combination of those values, each world keeping its own combination. The
    laws are drawn once (one generator state per combination), so the worlds share their draws."""
    if not choices:
        return _outputs(pack, weights, data, n, rng, roots, only, memos)
    names = sorted(choices)
    per_world = list(zip(*(choices[f] for f in names)))
    out: dict[str, np.ndarray] = {}
    state = rng.bit_generator.state
    for combo in dict.fromkeys(per_world):
        rng.bit_generator.state = state
        sel = np.array([w == combo for w in per_world])
        values = _outputs(pack, weights, {**data, **dict(zip(names, combo))}, n, rng, roots, only, memos)
        for name, x in values.items():
            out.setdefault(name, np.full(n, np.nan))[sel] = x[sel]
    return out


def _numeric(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _deciles(x: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, int]:
    """Each world's decile bin of ``x`` (the deciles of the kept worlds' values, unweighted), and the count."""
    edges = np.unique(np.quantile(x[ok], np.linspace(0.1, 0.9, 9)))
    bins = np.searchsorted(edges, np.nan_to_num(x), side="right")
    return bins, int(bins.max()) + 1


def _output_questions(
    pack: RulePack,
    x: np.ndarray,
    w: np.ndarray,
    cells: dict[str, np.ndarray],
    kept: _PerWorld | None = None,
    *,
    min_eig: float = MIN_EIG,
) -> list[ScoredQuestion]:
    """EIG (bits) of each askable root on the remedy output binned by deciles (Monte Carlo plug-in).
    ``kept``: the draws' record, which keeps the bins of the remedy for the same kept worlds (re-weighted
    what-ifs: the same values, other weights)."""
    ok = (w > 0) & ~np.isnan(x)
    if ok.sum() < 2:
        return []
    bins, nb = kept.bins(x, ok) if kept is not None else _deciles(x, ok)
    h = _entropy(np.bincount(bins[ok], weights=w[ok], minlength=nb))
    total = float(w[ok].sum())
    bins_ok, w_ok = bins[ok], w[ok]
    asked: list[tuple[str, FactSpec]] = []
    tables: list[np.ndarray] = []
    for fact, cell in cells.items():
        spec = pack.facts.get(fact)
        if spec is None or not spec.question or spec.appreciation:
            continue
        c = cell[ok]  # one weighted table (cell × bin) instead of one mask per cell value
        tables.append(np.bincount(c * nb + bins_ok, weights=w_ok, minlength=(int(c.max()) + 1) * nb).reshape(-1, nb))
        asked.append((fact, spec))
    out: list[ScoredQuestion] = []
    for (fact, spec), cond in zip(asked, _conditional_entropies(tables, total), strict=True):
        eig = max(0.0, h - cond)
        if eig < min_eig:  # below the plug-in estimator's bias: noise, not information
            continue
        out.append(
            ScoredQuestion(variable=fact, question=spec.question, eig=eig, cost=spec.cost, utility=eig / spec.cost)
        )
    out.sort(key=lambda q: (-q.utility, q.variable))
    return out
