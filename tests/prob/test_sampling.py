"""Beyond the exact range: vectorised Monte Carlo with its reported error, against ProbLog and exact."""

from __future__ import annotations

import numpy as np
import pytest

from lexlogic.engine.prob import BoolVar, ProbProgram, analyse
from lexlogic.engine.prob.infer import bernoulli_bits
from tests.prob.gen import Spec, problog_marginals
from tests.prob.toy_pack import toy


def _wide_spec(n: int) -> Spec:
    """n facts, pairs feeding a noisy-or with a negated guard and a constraint (cheap for ProbLog)."""
    rng = np.random.default_rng(3)
    probs = [round(float(x), 4) for x in rng.uniform(0.1, 0.6, n)]
    m = n // 2
    rules = [(1 + i, [f"f{2 * i}", f"f{2 * i + 1}"], []) for i in range(m)]
    rules += [(0, [f"d{1 + i}"], ["f0"] if i % 3 == 0 and i else []) for i in range(m)]
    rules += [(m + 1, ["d1", "d2"], [])]
    return Spec(probs, [], [2] + [0] * m + [1], rules, constraints=[f"d{m + 1}"], target="d0")


def test_auto_is_exact_beyond_enumeration_and_sampling_matches_problog() -> None:
    spec = _wide_spec(24)  # 2^24 worlds > max_exact_worlds (2^21): contraction stays exact
    ref = problog_marginals(spec.problog())
    ex = analyse(spec.asp())
    assert ex.method == "exact" and ex.evaluator == "contraction"
    assert abs(ex.p_target - ref["d0"]) < 1e-9
    for atom, p in ref.items():
        if atom == "d0":
            continue
        got = ex.p_queries.get(atom, ex.p_variables.get(atom, {}).get("oui"))
        assert got is not None and abs(got - p) < 1e-9, atom
    v = analyse(spec.asp(), samples=1 << 18, seed=11, method="sampling")
    assert v.method == "monte_carlo" and v.n_worlds == 1 << 18
    assert 0.0 < v.error < 0.01 and v.effective_sample_size is not None
    assert abs(v.p_target - ref["d0"]) <= 5 * v.error
    for atom, p in ref.items():  # the other marginals: binomial-scale error bound
        if atom == "d0":
            continue
        got = v.p_queries.get(atom, v.p_variables.get(atom, {}).get("oui"))
        assert got is not None and abs(got - p) <= 5 * 0.5 / np.sqrt(v.effective_sample_size) + 1e-9, atom


def test_monte_carlo_eig_ranking_close_to_exact() -> None:
    prog = toy()
    ex = analyse(prog, answers={"regular_orders": "oui"})
    mc = analyse(prog, answers={"regular_orders": "oui"}, method="monte_carlo", samples=1 << 18, seed=5)
    assert mc.method == "monte_carlo" and ex.method == "exact"
    assert abs(mc.p_target - ex.p_target) <= 5 * mc.error
    e = {q.variable: q.eig for q in ex.questions}
    for q in mc.questions:
        assert q.eig == pytest.approx(e[q.variable], abs=0.01)
    assert mc.questions[0].variable == ex.questions[0].variable
    assert mc.p_target_by_narrative["NARRATIVE_B"] == pytest.approx(ex.p_target_by_narrative["NARRATIVE_B"], abs=0.02)


def test_sampling_is_reproducible_and_seed_dependent() -> None:
    prog = toy()
    a = analyse(prog, method="monte_carlo", samples=20000, seed=1)
    b = analyse(prog, method="monte_carlo", samples=20000, seed=1)
    c = analyse(prog, method="monte_carlo", samples=20000, seed=2)
    assert a.p_target == b.p_target and a.p_target != c.p_target


def test_bernoulli_bits_frequencies() -> None:
    p = np.array([0.0, 1.0, 0.3, 0.999])
    x = bernoulli_bits(p, 200_000, np.random.default_rng(0))
    freq = x.mean(axis=1)
    assert freq[0] == 0.0 and freq[1] == 1.0
    assert abs(freq[2] - 0.3) < 5 * np.sqrt(0.3 * 0.7 / 200_000)
    assert abs(freq[3] - 0.999) < 5 * np.sqrt(0.999 * 0.001 / 200_000)


def test_beta_prior_integrates_to_its_mean() -> None:
    from lexlogic.logic.weights import Beta

    def p(prior: float | Beta) -> float:
        prog = ProbProgram(
            program="c :- f, not g.",
            target="c",
            variables=[BoolVar(name="f", atom="f", prior=prior), BoolVar(name="g", atom="g", prior=0.5)],
        )
        return analyse(prog).p_target

    assert p(Beta(a=2, b=6)) == pytest.approx(p(0.25), abs=1e-15) == pytest.approx(0.125)
