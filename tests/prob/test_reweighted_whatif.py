"""A what-if that moves only a prior reads its numbers from the case's own draws, re-weighted (issue 33,
``engine.prob.reweight``). The oracle shares no weighting code with it: the law of total expectation over the
moved yes/no root, each side a verdict where that root is ANSWERED (its own fresh draws from another seed, no
what-if, no ratio):
E_p'[X] = p'·E[X | x] + (1 − p')·E[X | ¬x]. The re-weighted means must agree within their Monte-Carlo error; a
deliberately wrong weighting (the ratio inverted, or none) must not."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from lexlogic.engine.prob import numbers, reweight
from lexlogic.engine.prob.model import NumberSummary
from tests.prob.case_oracle import EXAMPLE
from tests.support.deciding import decide_case

ROOT = "notice_written"  # an oral notice counts as zero: the damages move with this root's prior
OPEN = [ROOT, "economic_dependence_proven", "dedicated_investments", "exclusivity", "private_label"]


def _raw() -> dict[str, Any]:
    raw = json.loads(EXAMPLE.read_text())
    for fact in OPEN:
        raw["facts"].pop(fact, None)
    return raw


def _numbers(answers: dict[str, Any], whatif: dict[str, Any], seed: int = 0) -> dict[str, NumberSummary]:
    p = decide_case(_raw(), answers, whatif, seed=seed).probability
    assert p is not None
    return {**p.outputs, **{f"{k} | target": v for k, v in p.outputs_given_target.items()}}


def _disagreements(p: float) -> list[str]:
    """The outputs whose re-weighted mean is more than 4 combined standard errors from the oracle's."""
    got = _numbers({}, {ROOT: p})
    yes, no = _numbers({ROOT: True}, {}, seed=1), _numbers({ROOT: False}, {}, seed=2)  # draws of their own
    assert set(got) == set(yes) == set(no) and got
    bad = []
    for name, s in got.items():
        mean = p * yes[name].mean + (1 - p) * no[name].mean
        se = math.sqrt(s.se**2 + (p * yes[name].se) ** 2 + ((1 - p) * no[name].se) ** 2)
        if abs(s.mean - mean) > 4 * se:
            bad.append(f"{name}: {s.mean:.6g} vs {mean:.6g} ± {se:.3g} ({s.method})")
    return bad


@pytest.mark.parametrize("p", [0.1, 0.9])
def test_reweighted_numbers_agree_with_the_total_expectation(p: float) -> None:
    method = _numbers({}, {ROOT: p})["damages"].method
    assert "re-weighted to the what-if's priors" in method and "effective sample size" in method, method
    assert _disagreements(p) == []


def test_the_widened_proposal_agrees_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A demanding ESS share refuses the case's own draws: the numbers come from the draws widened on the
    moved root (uniform), re-weighted — and still agree with the oracle."""
    monkeypatch.setattr(reweight, "MIN_ESS_SHARE", 0.5)
    method = _numbers({}, {ROOT: 0.1})["damages"].method
    assert "uniform over its values" in method, method
    assert _disagreements(0.1) == []


@pytest.mark.parametrize("wrong", ["inverted", "none"])
def test_a_wrong_weighting_is_caught(monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    """The check has power: the ratio inverted (q/p instead of p/q), or no re-weighting at all, disagrees."""
    right = reweight.prior_ratio

    def broken(base: Any, new: Any, digits: np.ndarray) -> reweight.Ratio:
        r = right(base, new, digits)
        assert r.ratio is not None
        ratio = 1.0 / r.ratio if wrong == "inverted" else np.ones_like(r.ratio)
        return reweight.Ratio(ratio, r.moved)

    monkeypatch.setattr(reweight, "prior_ratio", broken)
    assert _disagreements(0.1) != []


def test_refused_draws_are_the_fresh_ones_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """When neither proposal keeps enough of its ESS, the what-if draws afresh at its priors (the numbers of
    the code before re-weighting) and its method says why."""
    fresh = _numbers({}, {ROOT: 0.1})
    monkeypatch.setattr(reweight, "MIN_ESS_SHARE", 1.01)
    refused = _numbers({}, {ROOT: 0.1})
    monkeypatch.setattr(numbers, "_draws", _fresh_draws)
    plain = _numbers({}, {ROOT: 0.1})
    for name, s in refused.items():
        assert "drawn afresh for the what-if's priors" in s.method and "below the 101% accepted" in s.method
        assert s.model_dump(exclude={"method"}) == plain[name].model_dump(exclude={"method"})
        assert s.method.startswith(numbers.PRIOR_PROPOSAL) and plain[name].method == numbers.PRIOR_PROPOSAL
        assert s.mean != fresh[name].mean  # the re-weighted numbers were another estimate


_DRAWS = numbers._draws


def _fresh_draws(model: Any, prog: Any, proposal: Any, n: int, seed: int, *source: Any) -> Any:
    return _DRAWS(model, prog, None, n, seed, *source)  # no proposal: what every what-if did before
