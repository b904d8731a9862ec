"""The probabilistic program as a Pyro model, and Pyro's own inference on it (``--inference pyro``).

Why a Pyro model next to the contraction: it is the generative reading of the same semantics, run by
Pyro — every root a ``pyro.sample`` site (``Bernoulli`` / ``Categorical`` with the priors, answers
clamping them), the derived atoms a deterministic function of the roots evaluated for the whole batch
of worlds at once (the ground circuit, bit-parallel), integrity constraints as a ``pyro.factor`` of
log 0 / log 1 (the mask), Alexy soft rules as ``pyro.factor`` sites. Inference is importance sampling
with the prior as proposal (likelihood weighting) over a ``pyro.plate`` of worlds: the log weight of a
world is the sum of the factor sites' log-probabilities in the Pyro trace. It must agree with the
default (exact) inference within max(0.01, 3 SE) — the tests check it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyro
import pyro.distributions as dist
import torch
from pyro import poutine

from lexlogic.engine.prob.infer import Compiled, InconsistentEvidence, Stats
from lexlogic.engine.prob.model import BoolVar, ProbProgram


def model(
    c: Compiled, prog: ProbProgram, priors: list[np.ndarray], soft: list[tuple[int, float]], n: int
) -> torch.Tensor:
    """One batch of ``n`` worlds; returns the target's truth per world (a deterministic site too)."""
    with pyro.plate("worlds", n):
        draws = []
        for k, v in enumerate(prog.variables):
            p = torch.as_tensor(priors[k] / priors[k].sum(), dtype=torch.float64)
            if isinstance(v, BoolVar):
                x = pyro.sample(v.name, dist.Bernoulli(probs=p[1]))
            else:
                x = pyro.sample(v.name, dist.Categorical(probs=p))
            draws.append(x)
        digits = torch.stack(draws).to(torch.int16).numpy() if draws else np.zeros((0, n), dtype=np.int16)
        mask, obs = c.evaluate(digits)
        pyro.factor("constraints", torch.where(torch.from_numpy(mask), 0.0, -math.inf).to(torch.float64))
        for i, (row, q) in enumerate(soft):
            hold = torch.from_numpy(obs[row])
            f = torch.where(hold, math.log(q) if q > 0 else -math.inf, math.log1p(-q) if q < 1 else -math.inf)
            pyro.factor(f"soft_{i}", f.to(torch.float64))
        pyro.deterministic("observed", torch.from_numpy(obs))
        return pyro.deterministic(
            "target", torch.from_numpy(obs[0]) if obs.shape[0] else torch.zeros(n, dtype=torch.bool)
        )


def importance(
    c: Compiled,
    prog: ProbProgram,
    priors: list[np.ndarray],
    soft: list[tuple[int, float]],
    narratives: dict[str, dict[int, int]],
    n: int,
    seed: int,
    chunk: int = 1 << 16,
) -> Stats:
    """Likelihood weighting with Pyro: trace the model, weights = exp(Σ factor log-probs)."""
    pyro.set_rng_seed(seed)
    names = [v.name for v in prog.variables]
    sw = swt = sw2 = sw2t = 0.0
    consistent = 0
    n_obs = len(prog.observed_atoms())
    p_obs = np.zeros(n_obs)
    per_var = [np.zeros((2, len(p))) for p in priors]
    nar = {name: np.zeros(2) for name in narratives}
    done = 0
    while done < n:
        m = min(chunk, n - done)
        done += m
        with pyro.validation_enabled(False):
            tr = poutine.trace(model).get_trace(c, prog, priors, soft, m)
        log_w = torch.zeros(m, dtype=torch.float64)
        for site in tr.nodes.values():  # the factor sites: the proposal (prior) cancels in the weight
            if site["type"] == "sample" and site["is_observed"] and site["name"] not in ("observed", "target"):
                fn: Any = site["fn"]
                log_w = log_w + fn.log_prob(site["value"])
        w = torch.exp(log_w).numpy()
        nodes: Any = tr.nodes
        obs = nodes["observed"]["value"].numpy()
        t = obs[0] if n_obs else np.zeros(m, dtype=bool)
        wt = np.where(t, w, 0.0)
        consistent += int((w > 0).sum())
        sw += float(w.sum())
        swt += float(wt.sum())
        sw2 += float(w @ w)
        sw2t += float(w @ wt)
        p_obs += obs.astype(np.float64) @ w
        digits = np.stack([nodes[name]["value"].numpy().astype(np.int64) for name in names]) if names else None
        for k in range(len(names)):
            assert digits is not None
            d = per_var[k].shape[1]
            per_var[k][0] += np.bincount(digits[k], weights=w, minlength=d)[:d]
            per_var[k][1] += np.bincount(digits[k], weights=wt, minlength=d)[:d]
        for name, fixed in narratives.items():
            sel = np.ones(m, dtype=bool)
            for k, val in fixed.items():
                assert digits is not None
                sel &= digits[k] == val
            nar[name] += (float(w[sel].sum()), float(wt[sel].sum()))
    if sw <= 0.0:
        raise InconsistentEvidence(f"no sampled world ({n}) is consistent with the rules and the answers")
    pt = swt / sw
    se = math.sqrt(max(sw2t * (1.0 - 2.0 * pt) + pt * pt * sw2, 0.0)) / sw
    prior_mass = float(np.prod([p.sum() for p in priors])) if priors else 1.0
    return Stats(
        "importance_sampling",
        n,
        sw / n,
        prior_mass * consistent / n,
        p_obs / sw,
        se,
        sw * sw / sw2 if sw2 > 0 else 0.0,
        [pv / sw for pv in per_var],
        {k: (float(v[0]) / sw, float(v[1] / v[0]) if v[0] > 0 else float("nan")) for k, v in nar.items()},
    )
