"""Which inference a verdict gets — exact contraction, exact enumeration or sampling — decided from a cost
estimate BEFORE anything expensive runs, with the sample count chosen from a target standard error.

Why (issue 33): the contraction used to be attempted first and refused only when its planner met an
intermediate too wide, then the worlds were enumerated or sampled, and the verdict said nothing of why nor
how sure a sampled number was. Now:
* the compiled circuit's factor graph is planned (``contract.estimate``: each component's elimination path,
  from the operands' shapes alone — its largest intermediate and its operation count); within
  ``MAX_INTERMEDIATE`` entries and ``MAX_FLOPS`` operations the contraction runs (exact);
* else, when the worlds are few enough to tabulate (``max_exact_worlds``, the evaluator's limit), they are
  enumerated (exact);
* else the worlds are sampled: a pilot of ``PILOT`` draws measures the standard error per draw (weights and
  rejections included), and the main run draws n = PILOT·(se_pilot / target)² (at least ``PILOT``, at most
  the caller's ``samples``), so the stated error is the one aimed at — or the cap is said.
The plan is carried into the verdict (``ProbVerdict.plan``) and the faces word it (« estimée par
échantillonnage (± x) »).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lexlogic.engine.prob import contract, infer
from lexlogic.engine.prob.model import InferencePlan, ProbProgram

#: operations of one contraction pass beyond which sampling is cheaper than the exact contraction (a pass
#: is run 2–3 times, plus twice per narrative; numpy's pairwise einsums do ~1e8–1e9 operations a second)
MAX_FLOPS = 2e9
#: draws of the pilot run that measures the standard error per draw
PILOT = 1 << 12
#: standard error of P(target) a sampled verdict aims at (±0.4 point at 95 %)
TARGET_SE = 0.002

SAMPLING = ("sampling", "monte_carlo")


@dataclass
class Inputs:
    """One inference's inputs, as ``analyse`` prepared them."""

    c: infer.Compiled
    prog: ProbProgram
    priors: list[np.ndarray]
    soft: list[tuple[int, float]]
    narratives: dict[str, dict[int, int]]
    answered: dict[int, int]


def _estimate(x: Inputs) -> tuple[contract.Cost | None, str]:
    """The contraction's cost from its plan (no tensor multiplied), or None and why there is no contraction
    (a cycle or an aggregate in the cone, a step over too many indices)."""
    try:
        _, pl = infer._plan(x.c, x.priors)
        return contract.estimate(pl, [row for row, _ in x.soft]), ""
    except contract.NotContractible as exc:
        return None, f"no contraction ({exc})"


def choose(x: Inputs, method: str, max_exact_worlds: int) -> InferencePlan:
    """The route for ``method`` (auto | exact | enumerate | sampling | monte_carlo | pyro), from the estimate."""
    worlds = x.c.n_worlds
    if method == "pyro":
        return InferencePlan(route="pyro", reason="Pyro's importance sampling, as asked", worlds=worlds)
    if method in SAMPLING:
        return InferencePlan(route="sampling", reason="sampling, as asked", worlds=worlds)
    if method == "enumerate":
        return InferencePlan(route="enumeration", reason="enumeration, as asked", worlds=worlds)
    cost, none_why = _estimate(x)
    big = cost.largest if cost else None
    flops = cost.flops if cost and math.isfinite(cost.flops) else None  # None: not counted (JSON has no ∞)
    if cost is not None and cost.largest <= contract.MAX_INTERMEDIATE:
        if method == "exact" or cost.flops <= MAX_FLOPS:
            why = f"contraction planned at {cost.largest:.3g} entries, {cost.flops:.3g} operations"
            return InferencePlan(route="contraction", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)
    too_wide = (
        none_why
        if cost is None
        else f"contraction estimated at {cost.largest:.3g} entries"
        + (f", {cost.flops:.3g} operations" if flops is not None else " at least (the planner gave up there)")
        + f" (limits {contract.MAX_INTERMEDIATE:.3g} entries, {MAX_FLOPS:.3g} operations)"
    )
    limit = min(max_exact_worlds, x.c.exact_limit)
    if worlds <= limit or method == "exact":
        why = f"{too_wide}; {worlds} worlds to enumerate" + (f" (≤ {limit})" if worlds <= limit else ", as asked")
        return InferencePlan(route="enumeration", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)
    why = f"{too_wide}; {worlds:.3g} worlds > {limit:.3g}: sampled"
    return InferencePlan(route="sampling", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)


def sample_count(x: Inputs, cap: int, seed: int, target_se: float) -> tuple[int, int]:
    """(draws, pilot draws): the draws that bring the standard error of P(target) to ``target_se``, measured
    on a pilot run (its own seed); at most ``cap``. se ∝ 1/√n, so n = pilot·(se_pilot / target)²."""
    pilot = min(PILOT, cap)
    try:
        st = infer.sampled(x.c, x.prog, x.priors, x.soft, x.narratives, pilot, seed + 0x5EED)
    except infer.InconsistentEvidence:
        return cap, pilot  # no consistent world in the pilot: as many draws as allowed
    se = st.se_target
    if se <= 0.0:  # every pilot draw agreed: the binomial worst case at the pilot's effective size
        ess = st.ess or pilot
        se = 0.5 / math.sqrt(ess)
    n = math.ceil(pilot * (se / target_se) ** 2)
    return max(pilot, min(cap, n)), pilot


def run(
    x: Inputs, plan: InferencePlan, *, samples: int, seed: int, target_se: float | None, auto: bool
) -> tuple[infer.Stats, InferencePlan, str]:
    """The inference the plan chose: (statistics, plan completed with the draws, evaluator)."""
    if plan.route == "contraction":
        return infer.contracted(x.c, x.priors, x.soft, x.narratives), plan, "contraction"
    if plan.route == "enumeration":
        return infer.exact(x.c, x.priors, x.soft, x.narratives, answered=x.answered), plan, x.c.evaluator
    if plan.route == "pyro":
        from lexlogic.engine.prob import pyro_model

        st = pyro_model.importance(x.c, x.prog, x.priors, x.soft, x.narratives, samples, seed)
        return st, plan.model_copy(update={"samples": samples}), "pyro"
    n, pilot = (samples, None)
    if auto:
        target = target_se or TARGET_SE
        n, pilot = sample_count(x, samples, seed, target)
        plan = plan.model_copy(update={"target_se": target, "pilot": pilot})
    st = infer.sampled(x.c, x.prog, x.priors, x.soft, x.narratives, n, seed)
    return st, plan.model_copy(update={"samples": n}), x.c.evaluator


def interval(p: float, se: float, n: int) -> tuple[float, float]:
    """The 95 % normal interval p ± 1.96·se, within [0, 1]; when every one of the n draws agreed (se = 0),
    the rule of three (± 3/n) instead of a zero-width interval that would claim more than was drawn."""
    half = 1.96 * se if se > 0 else 3.0 / max(n, 1)
    return max(0.0, p - half), min(1.0, p + half)
