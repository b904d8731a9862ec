"""A what-if's numbers from the case's own draws, re-weighted to the what-if's priors (issue 33).

Why: a what-if that moves only priors (a slider) changes no rule, no value and no law: the worlds a verdict's
numbers are computed on, the pack's computations on them and the laws' draws are the case's own. Drawing them
again for every new prior costs about half of a new what-if. The case's draws come from its priors q; the
what-if's priors are p; each world's weight is multiplied by p(w)/q(w) = Π over the moved roots of
p_k(digit)/q_k(digit) (self-normalised importance sampling with the case's priors as proposal). Its quality is
read from the effective sample size (Kish: (Σw)²/Σw²): when it falls below ``MIN_ESS_SHARE`` of the case's own,
the caller tries once more from a WIDENED proposal — the case's priors with the moved roots drawn uniformly over
their values (drawn once per case and set of moved roots, kept like the case's own draws): every prior of those
roots strictly inside (0, 1) is then within reach (ESS ≥ ~55 % of the draws for a yes/no root moved anywhere in
[0.05, 0.95]). When that too is refused, or a prior moves to or from 0 (worlds the proposal never draws, or all
of a kind dropped), the caller draws afresh as before and says so. Every choice depends on the request alone
(the case, its priors, the what-if), never on what was asked before: the same what-if gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lexlogic.engine.prob import infer
from lexlogic.engine.prob.model import BoolVar, CategoricalVar, Option, ProbProgram

MIN_ESS_SHARE = 0.25  # the re-weighted draws keep at least this share of the case's ESS (SE at most ~2×)


@dataclass(frozen=True)
class Ratio:
    """The per-world likelihood ratio of the what-if's priors to the case's, or why there is none."""

    ratio: np.ndarray | None
    moved: tuple[str, ...]  # the variables whose prior moved
    refused: str | None = None  # why the case's draws cannot serve (then ``ratio`` is None)


def ess(w: np.ndarray) -> float:
    """Kish's effective sample size of weights ``w``."""
    s2 = float(np.einsum("i,i->", w, w))  # no BLAS (see numbers._dot)
    return float(w.sum()) ** 2 / s2 if s2 > 0 else 0.0


def prior_ratio(base: ProbProgram, new: ProbProgram, digits: np.ndarray) -> Ratio:
    """p(w)/q(w) for each drawn world (``digits``: the case's draws, one row per variable), ``base``'s priors
    being q and ``new``'s p. The two programs must have the same variables in the same order (same structure)."""
    moved: list[str] = []
    ratio: np.ndarray | None = None
    for k, (vb, vn) in enumerate(zip(base.variables, new.variables, strict=True)):
        if vb.name != vn.name:
            return Ratio(None, (), f"the variables differ ({vb.name} / {vn.name})")
        q, p = infer.prior_vector(vb), infer.prior_vector(vn)
        if np.array_equal(q, p):
            continue
        moved.append(vn.name)
        if not np.array_equal(q > 0, p > 0):
            return Ratio(None, tuple(moved), f"the prior of {vn.name} moves to or from 0")
        per_value = np.divide(p, q, out=np.zeros_like(p), where=q > 0)
        r = per_value[digits[k]]
        ratio = r if ratio is None else ratio * r
    return Ratio(ratio, tuple(moved))


def accepted(w0: np.ndarray, ratio: Ratio) -> tuple[np.ndarray | None, str, float]:
    """The re-weighted weights, the words saying so and the share of the proposal's ESS they keep; or None,
    why the proposal was refused, and 1. ``w0``: the proposal's draws' weights (mask × soft factors)."""
    if ratio.ratio is None:
        return None, ratio.refused or "no ratio", 1.0
    w = w0 * ratio.ratio
    base, new = ess(w0), ess(w)
    if not new >= MIN_ESS_SHARE * base:
        return (
            None,
            f"re-weighting the case's draws kept an effective sample size of {new:.0f} of {base:.0f}, "
            f"below the {MIN_ESS_SHARE:.0%} accepted",
            1.0,
        )
    return w, f"effective sample size {new:.0f} of the proposal's own {base:.0f}", new / base


def widened(prog: ProbProgram, moved: tuple[str, ...]) -> ProbProgram:
    """``prog`` with the ``moved`` variables' priors uniform over their values (a proposal that reaches any
    prior of theirs strictly inside (0, 1)); the other variables as they are."""
    names = set(moved)
    variables: list[BoolVar | CategoricalVar] = []
    for v in prog.variables:
        if v.name not in names:
            variables.append(v)
        elif isinstance(v, BoolVar):
            variables.append(v.model_copy(update={"prior": 0.5}))
        else:
            even = 1.0 / len(v.options)
            options = [Option(atom=o.atom, prob=even, value=o.value) for o in v.options]
            variables.append(v.model_copy(update={"options": options}))
    return prog.model_copy(update={"variables": variables})


def uniform_words(moved: tuple[str, ...]) -> str:
    return f"draws from the case's priors with {', '.join(moved)} uniform over its values"
