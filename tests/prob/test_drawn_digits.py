"""A verdict's numbers' worlds drawn the cheaper way (issue 33): ``infer.drawn_digits`` (each yes/no root's
compare written into its int16 row, a categorical root's digit counted from its cumulated priors) gives the
very digits ``infer.sample_digits`` gives, and leaves the generator in the same state (the laws' draws continue
from it), whatever the priors: 0 and 1 exactly, uniform, skewed, categorical roots of 1 to 9 options."""

from __future__ import annotations

import numpy as np
import pytest

from lexlogic.engine.prob import BoolVar, CategoricalVar, Option, ProbProgram, infer


def _program(p: list[float], cats: list[list[float]]) -> ProbProgram:
    variables: list[BoolVar | CategoricalVar] = [BoolVar(name=f"f{i}", atom=f"f{i}", prior=q) for i, q in enumerate(p)]
    for j, c in enumerate(cats):
        options = [Option(atom=f"c{j}({k})", prob=q) for k, q in enumerate(c)]
        variables.append(CategoricalVar(name=f"c{j}", options=options))
    return ProbProgram(program="d :- f0.\n", variables=variables, target="d", queries=[])


def _cases() -> list[tuple[list[float], list[list[float]]]]:
    rng = np.random.default_rng(7)
    out = [
        ([0.0, 1.0, 0.5, 0.5], [[1.0, 0.0, 0.0]]),  # priors 0 and 1 exactly
        ([0.3], []),
        ([], [[0.2, 0.3, 0.5], [0.5, 0.5]]),  # no yes/no root
        ([0.999999999, 1e-12, 0.25], [[1.0], [0.0, 0.0, 1.0]]),
    ]
    for _ in range(6):
        k = int(rng.integers(1, 9))
        cats = [list(rng.dirichlet(np.ones(int(rng.integers(2, 10))))) for _ in range(int(rng.integers(0, 3)))]
        out.append((list(rng.random(k)), cats))
    return out


@pytest.mark.parametrize(("p", "cats"), _cases())
@pytest.mark.parametrize("n", [1, 7, 4096])
def test_the_same_digits_and_generator_state_as_sample_digits(p: list[float], cats: list[list[float]], n: int) -> None:
    prog = _program(p, cats)
    priors = infer.prior_vectors(prog.variables)
    old_rng, new_rng = np.random.default_rng(11), np.random.default_rng(11)
    old, _, _ = infer.sample_digits(prog, priors, n, old_rng)
    new = infer.drawn_digits(prog, priors, n, new_rng)
    assert new.dtype == old.dtype and new.shape == old.shape
    assert np.array_equal(new, old)
    assert new_rng.bit_generator.state == old_rng.bit_generator.state
