"""The case model against oracles that do not share its code (issue 15):
(a) brute force through the SYMBOLIC analysis equals the model to 1e-9 for P and every EIG;
(b) the law of total probability for every unknown yes/no fact, and ``--whatif X=1`` ≡ ``--answer X=true``;
(c) ProbLog on the model's discrete program; (d) sampling within 3 SE of exact; Pyro within max(0.01, 3 SE).
"""

from __future__ import annotations

import copy
import json
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from lexlogic.engine.prob.case_model import build_case_model
from lexlogic.logic.facts import parse_case
from tests.prob.case_oracle import EXAMPLE, brute_force, cases, to_problog
from tests.prob.gen import problog_marginals
from tests.support.deciding import decide_case
from tests.support.packs import pack_by_name

SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _pack() -> Any:
    return pack_by_name("rupture_brutale")


# the verdict on liability (the numbers' sampling is not what these oracles check)
_decide = partial(decide_case, numbers=False)


def repro() -> dict[str, Any]:
    """The issue's case: notice of 10 months, three facts removed."""
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts["notice_given_months"] = 10
    for name in ("fault_serious", "economic_dependence_proven", "notice_written"):
        facts.pop(name)
    return {"pack": "rupture_brutale", "case_id": "repro", "facts": facts}


def _check_against_brute_force(raw: dict[str, Any]) -> None:
    pack, program = _pack()
    ref = brute_force(pack, program, copy.deepcopy(raw))
    v = _decide(raw).probability
    assert v.method == "exact"
    assert v.p_target == pytest.approx(ref["p"], abs=1e-9)
    eig = {q.variable: q.eig for q in v.questions}
    for name in ref["roots"]:
        if ref["eig"][name] > 1e-9:
            assert name in eig, name
        if name in eig:
            assert eig[name] == pytest.approx(ref["eig"][name], abs=1e-9), name
        if name in v.p_variables and all(isinstance(x, bool) for x in ref["posterior"][name]):
            assert v.p_variables[name]["oui"] == pytest.approx(ref["posterior"][name].get(True, 0.0), abs=1e-9)


def test_the_issue_case_equals_the_brute_force() -> None:
    raw = repro()
    _check_against_brute_force(raw)
    v = _decide(raw)
    # 0.569111 with the pack of the issue; 0.548889 since dependence is the claimant's to prove (issue 20);
    # 0.569111 with the pack of the issue; 0.548889 since dependence is the claimant's to prove (issue 20);
    # then the range of reasonable notice became the calibrated law's 10–90 % band (issue 31) and the judge's
    # call inside it P(notice he deems reasonable > 10) under that law (issue 29: one event, one
    # probability) — the brute force above is the reference either way
    assert 0.0 < v.probability.p_target < 1.0
    assert v.questions[0]["fact"] == "fault_serious"  # the decisive question, not notice_written


@SETTINGS
@given(cases())
def test_brute_force_over_completions_equals_the_model(raw: dict[str, Any]) -> None:
    _check_against_brute_force(raw)


def _check_total_probability(raw: dict[str, Any]) -> None:
    base = _decide(raw).probability
    for q in base.questions:
        if q.options:  # categorical: the mixture over every option
            mix = sum(
                q.p_values[o] * _decide(raw, {q.variable: o}).probability.p_target
                for o in q.options
                if q.p_values[o] > 0
            )
            assert mix == pytest.approx(base.p_target, abs=1e-9), q.variable
            continue
        if "__" in q.variable:
            continue
        p = base.p_variables[q.variable]["oui"]
        yes = _decide(raw, {q.variable: True}).probability.p_target if p > 0 else 0.0
        no = _decide(raw, {q.variable: False}).probability.p_target if p < 1 else 0.0
        assert p * yes + (1 - p) * no == pytest.approx(base.p_target, abs=1e-9), q.variable
        if p > 0:
            assert _decide(raw, whatif={q.variable: 1}).probability.p_target == yes  # exactly
        if p < 1:
            assert _decide(raw, whatif={q.variable: 0}).probability.p_target == no


def test_answers_mix_back_to_the_verdict_on_the_issue_case() -> None:
    _check_total_probability(repro())


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(max_unknown=3))
def test_law_of_total_probability_and_whatif_equals_answer(raw: dict[str, Any]) -> None:
    _check_total_probability(raw)


@SETTINGS
@given(cases())
def test_problog_equals_the_model_on_the_discrete_part(raw: dict[str, Any]) -> None:
    pack, _ = _pack()
    m = build_case_model(pack, parse_case(copy.deepcopy(raw), pack))
    assert not m.program.soft_rules  # the pack's balancing is folded into the judge's call
    ref = problog_marginals(to_problog(m.program))
    assert _decide(raw).probability.p_target == pytest.approx(ref[m.program.target], abs=1e-9)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_sampling_and_pyro_agree_with_exact(raw: dict[str, Any]) -> None:
    exact = _decide(raw).probability.p_target
    mc = _decide(raw, inference="sampling", samples=1 << 15, seed=3).probability
    assert mc.method == "monte_carlo"
    assert abs(mc.p_target - exact) <= 3 * mc.error + 1e-12
    py = _decide(raw, inference="pyro", samples=1 << 13, seed=5).probability
    assert py.method == "importance_sampling" and py.evaluator == "pyro"
    assert abs(py.p_target - exact) <= max(0.01, 3 * py.error)


def test_pyro_agrees_on_the_issue_case() -> None:
    exact = _decide(repro()).probability.p_target
    py = _decide(repro(), inference="pyro", samples=1 << 15, seed=1).probability
    assert abs(py.p_target - exact) <= max(0.01, 3 * py.error)
    assert 0 < py.error < 0.01


def test_deterministic_roots_do_not_count() -> None:
    """A prior of 0 or 1 is not a variable: the effective world count ignores it."""
    raw = repro()
    v = _decide(raw).probability
    w = _decide(raw, whatif={"notice_written": 1}).probability
    assert w.effective_worlds < v.effective_worlds
    assert "notice_written" not in w.p_variables
