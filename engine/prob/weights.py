"""Apply a pack's weights file (expert priors + soft rules) to a ProbProgram."""

from __future__ import annotations

from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.logic.weights import WeightsFile


def with_weights(prog: ProbProgram, weights: WeightsFile) -> ProbProgram:
    """Expert priors replace the priors of the named Bool variables; soft rules are appended."""
    p = prog.model_copy(deep=True)
    names = {v.name for v in p.variables}
    unknown = sorted(set(weights.priors) - names)
    if unknown:
        raise ValueError(f"weights: priors for unknown facts {unknown} (uncertain facts: {sorted(names)})")
    for i, v in enumerate(p.variables):
        if v.name in weights.priors:
            if not isinstance(v, BoolVar):
                raise ValueError(f"weights: prior for {v.name!r}: only yes/no facts take a prior here")
            p.variables[i] = v.model_copy(update={"prior": weights.priors[v.name]})
    p.soft_rules = [*p.soft_rules, *weights.soft_rules]
    return p
