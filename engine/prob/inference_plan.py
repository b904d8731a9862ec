"""Which inference a verdict gets — exact contraction, exact enumeration or sampling — decided from a cost
estimate BEFORE anything expensive runs, with the sample count chosen from a target standard error.

Why (issue 33): the contraction used to be attempted first and refused only when its planner met an
intermediate too wide, then the worlds were enumerated or sampled, and the verdict said nothing of why nor
how sure a sampled number was. Now:
* the compiled circuit's factor graph is planned (``contract.estimate``: each component's elimination path,
  from the operands' shapes alone — its largest intermediate and its operation count); within
  ``InferenceLimits.max_intermediate`` entries and ``InferenceLimits.max_flops`` operations the contraction runs (exact);
* else, when the worlds are few enough to tabulate (``InferenceLimits.max_worlds``, and the evaluator's limit), they
  are enumerated (exact);
* else the worlds are sampled: a pilot of ``InferenceLimits.pilot`` draws measures the standard error per draw
  (weights and rejections included), and the main run draws n = pilot·(se_pilot / target)² (at least the
  pilot, at most ``InferenceLimits.samples``), so the stated error is the one aimed at — or the cap is said.
The thresholds are fields of the one ``Settings`` (``inference_*``, documented there with their defaults),
carried as a ``InferenceLimits`` passed down explicitly; a call given none gets ``Settings.defaults()``'s.
The plan is carried into the verdict (``ProbVerdict.plan``) and the faces word it (« estimée par
échantillonnage (± x) »).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lexlogic.engine.prob import contract, infer
from lexlogic.engine.prob.model import InferencePlan, ProbProgram
from lexlogic.settings import Settings

SAMPLING = ("sampling", "monte_carlo")


@dataclass(frozen=True)
class InferenceLimits:
    """The route's thresholds, from ``Settings.inference_*`` (their meaning and defaults are documented
    there). ``max_flops``: one contraction pass is run 2–3 times, plus twice per narrative, and numpy's
    pairwise einsums do ~1e8–1e9 operations a second, so beyond it sampling is the cheaper estimate."""

    max_intermediate: int
    max_flops: float
    max_worlds: int
    pilot: int
    target_se: float
    samples: int

    @classmethod
    def of(cls, settings: Settings | None = None) -> InferenceLimits:
        """The limits of ``settings`` (the caller's, built at the edge); none: the built-in defaults."""
        s = settings if settings is not None else Settings.defaults()
        return cls(
            max_intermediate=s.inference_max_intermediate,
            max_flops=s.inference_max_flops,
            max_worlds=s.inference_max_worlds,
            pilot=s.inference_pilot,
            target_se=s.inference_target_se,
            samples=s.inference_samples,
        )


@dataclass
class Inputs:
    """One inference's inputs, as ``analyse`` prepared them."""

    c: infer.Compiled
    prog: ProbProgram
    priors: list[np.ndarray]
    soft: list[tuple[int, float]]
    narratives: dict[str, dict[int, int]]
    answered: dict[int, int]


def _estimate(x: Inputs, limits: InferenceLimits) -> tuple[contract.Cost | None, str]:
    """The contraction's cost from its plan (no tensor multiplied), or None and why there is no contraction
    (a cycle or an aggregate in the cone, a step over too many indices)."""
    try:
        _, pl = infer._plan(x.c, x.priors)
        return contract.estimate(pl, [row for row, _ in x.soft], limits.max_intermediate), ""
    except contract.NotContractible as exc:
        return None, f"no contraction ({exc})"


def choose(
    x: Inputs, method: str, max_exact_worlds: int | None = None, limits: InferenceLimits | None = None
) -> InferencePlan:
    """The route for ``method`` (auto | exact | enumerate | sampling | monte_carlo | pyro), from the estimate
    and ``limits`` (``max_exact_worlds``, when given, overrides ``limits.max_worlds``)."""
    lim = limits or InferenceLimits.of()
    worlds = x.c.n_worlds
    if method == "pyro":
        return InferencePlan(route="pyro", reason="Pyro's importance sampling, as asked", worlds=worlds)
    if method in SAMPLING:
        return InferencePlan(route="sampling", reason="sampling, as asked", worlds=worlds)
    if method == "enumerate":
        return InferencePlan(route="enumeration", reason="enumeration, as asked", worlds=worlds)
    cost, none_why = _estimate(x, lim)
    big = cost.largest if cost else None
    flops = cost.flops if cost and math.isfinite(cost.flops) else None  # None: not counted (JSON has no ∞)
    if cost is not None and cost.largest <= lim.max_intermediate:
        if method == "exact" or cost.flops <= lim.max_flops:
            why = f"contraction planned at {cost.largest:.3g} entries, {cost.flops:.3g} operations"
            return InferencePlan(route="contraction", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)
    too_wide = (
        none_why
        if cost is None
        else f"contraction estimated at {cost.largest:.3g} entries"
        + (f", {cost.flops:.3g} operations" if flops is not None else " at least (the planner gave up there)")
        + f" (limits {lim.max_intermediate:.3g} entries, {lim.max_flops:.3g} operations)"
    )
    limit = min(lim.max_worlds if max_exact_worlds is None else max_exact_worlds, x.c.exact_limit)
    if worlds <= limit or method == "exact":
        why = f"{too_wide}; {worlds} worlds to enumerate" + (f" (≤ {limit})" if worlds <= limit else ", as asked")
        return InferencePlan(route="enumeration", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)
    why = f"{too_wide}; {worlds:.3g} worlds > {limit:.3g}: sampled"
    return InferencePlan(route="sampling", reason=why, largest_intermediate=big, flops=flops, worlds=worlds)


def sample_count(x: Inputs, cap: int, seed: int, target_se: float, pilot_draws: int | None = None) -> tuple[int, int]:
    """(draws, pilot draws): the draws that bring the standard error of P(target) to ``target_se``, measured
    on a pilot run of ``pilot_draws`` (its own seed; default ``InferenceLimits.of().pilot``); at most ``cap``.
    se ∝ 1/√n, so n = pilot·(se_pilot / target)²."""
    pilot = min(InferenceLimits.of().pilot if pilot_draws is None else pilot_draws, cap)
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
    x: Inputs,
    plan: InferencePlan,
    *,
    samples: int | None = None,
    seed: int,
    target_se: float | None,
    auto: bool,
    limits: InferenceLimits | None = None,
) -> tuple[infer.Stats, InferencePlan, str]:
    """The inference the plan chose: (statistics, plan completed with the draws, evaluator). ``samples`` and
    ``target_se``, when given, override ``limits.samples`` / ``limits.target_se``."""
    lim = limits or InferenceLimits.of()
    samples = lim.samples if samples is None else samples
    if plan.route == "contraction":
        st = infer.contracted(x.c, x.priors, x.soft, x.narratives, lim.max_intermediate)
        return st, plan, "contraction"
    if plan.route == "enumeration":
        return infer.exact(x.c, x.priors, x.soft, x.narratives, answered=x.answered), plan, x.c.evaluator
    if plan.route == "pyro":
        from lexlogic.engine.prob import pyro_model

        st = pyro_model.importance(x.c, x.prog, x.priors, x.soft, x.narratives, samples, seed)
        return st, plan.model_copy(update={"samples": samples}), "pyro"
    n, pilot = (samples, None)
    if auto:
        target = target_se or lim.target_se
        n, pilot = sample_count(x, samples, seed, target, lim.pilot)
        plan = plan.model_copy(update={"target_se": target, "pilot": pilot})
    st = infer.sampled(x.c, x.prog, x.priors, x.soft, x.narratives, n, seed)
    return st, plan.model_copy(update={"samples": n}), x.c.evaluator


def interval(p: float, se: float, n: int) -> tuple[float, float]:
    """The 95 % normal interval p ± 1.96·se, within [0, 1]; when every one of the n draws agreed (se = 0),
    the rule of three (± 3/n) instead of a zero-width interval that would claim more than was drawn."""
    half = 1.96 * se if se > 0 else 3.0 / max(n, 1)
    return max(0.0, p - half), min(1.0, p + half)
