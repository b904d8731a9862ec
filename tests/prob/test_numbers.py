"""Numbers as distributions: the vectorised computations against the scalar ones, coherence of the
damages with liability, the calibration stored in the pack, the damages question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.engine.prob import jl_vec
from lexlogic.engine.prob.case_model import weights_of
from lexlogic.engine.symbolic.values import gather_values, world_values
from lexlogic.logic.facts import parse_case
from tests.prob.case_oracle import EXAMPLE
from tests.prob.test_case_oracle import repro
from tests.support.deciding import decide_case
from tests.support.packs import pack_by_name

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ["notice_written", "economic_dependence_proven", "dedicated_investments", "exclusivity", "private_label"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([0, 3, 10, 18]), st.sampled_from(["2024-03-15", "2018-06-01"]), st.integers(0, 2**5 - 1))
def test_vectorised_computations_equal_the_scalar_ones(notice: int, notified: str, seed: int) -> None:
    """Every pack computation on a batch of worlds (jl_vec) = the scalar evaluation of each world."""
    pack, _ = pack_by_name("rupture_brutale")
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts.update(notice_given_months=notice, notification_date=notified)
    for r in ROOTS:
        facts.pop(r, None)
    case = parse_case({"pack": "rupture_brutale", "facts": facts}, pack)
    base = gather_values(pack, case)
    rng = np.random.default_rng(seed)
    worlds = rng.integers(0, 2, size=(len(ROOTS), 16)).astype(bool)
    data: dict[str, Any] = {k: v.value for k, v in base.items() if v.known and pack.computation_for(k) is None}
    for r, col in zip(ROOTS, worlds):
        data[r] = col.astype(float)
        data[f"__bool__{r}"] = True
    for comp in pack.computations:
        if any(d not in data or data[d] is None for d in comp.inputs):
            continue
        data[comp.output] = jl_vec.computation(comp.logic, comp.type.value, data, 16)
    for j in range(16):
        ref = world_values(pack, base, {r: bool(worlds[i, j]) for i, r in enumerate(ROOTS)})
        for comp in pack.computations:
            got = data.get(comp.output)
            want = ref[comp.output]
            if not want.known or got is None:
                continue
            value = got[j] if isinstance(got, np.ndarray) else got
            if isinstance(want.value, bool):
                assert bool(value) == want.value, (comp.output, j)
            elif isinstance(want.value, (int, float)):
                assert float(value) == pytest.approx(float(want.value), abs=1e-6), (comp.output, j)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([0, 3, 10, 18]), st.sampled_from(["2024-03-15", "2018-06-01"]), st.integers(0, 2**5 - 1))
def test_factorised_columns_give_each_world_its_scalar_values(notice: int, notified: str, seed: int) -> None:
    """Issue 33: with the verdict's factorised columns (``jl_vec.Codes``: each column sorted once, a rule
    evaluated once per class of its inputs) every computation on 512 worlds = the scalar evaluation of each
    world (``world_values``, the symbolic path), and = the per-rule path without the factorisation."""
    pack, _ = pack_by_name("rupture_brutale")
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts.update(notice_given_months=notice, notification_date=notified)
    for r in ROOTS:
        facts.pop(r, None)
    case = parse_case({"pack": "rupture_brutale", "facts": facts}, pack)
    base = gather_values(pack, case)
    n = 512
    worlds = np.random.default_rng(seed).integers(0, 2, size=(len(ROOTS), n)).astype(bool)
    plain: dict[str, Any] = {k: v.value for k, v in base.items() if v.known and pack.computation_for(k) is None}
    for r, col in zip(ROOTS, worlds):
        plain[r] = col.astype(float)
        plain[f"__bool__{r}"] = True
    coded, codes = dict(plain), jl_vec.Codes()
    for comp in pack.computations:
        if any(d not in plain or plain[d] is None for d in comp.inputs):
            continue
        plain[comp.output] = jl_vec.computation(comp.logic, comp.type.value, plain, n)
        coded[comp.output] = jl_vec.computation(comp.logic, comp.type.value, coded, n, codes)
        a, b = plain[comp.output], coded[comp.output]
        if isinstance(a, np.ndarray) and a.dtype != object:
            np.testing.assert_array_equal(a, b, err_msg=comp.output)
        elif isinstance(a, np.ndarray):
            assert list(a) == list(b), comp.output
        else:
            assert a == b, comp.output
    for j in range(0, n, 37):
        ref = world_values(pack, base, {r: bool(worlds[i, j]) for i, r in enumerate(ROOTS)})
        for comp in pack.computations:
            got, want = coded.get(comp.output), ref[comp.output]
            if not want.known or got is None:
                continue
            value = got[j] if isinstance(got, np.ndarray) else got
            if isinstance(want.value, bool):
                assert bool(value) == want.value, (comp.output, j)
            elif isinstance(want.value, (int, float)):
                assert float(value) == pytest.approx(float(want.value), abs=1e-6), (comp.output, j)


def test_damages_are_coherent_with_liability() -> None:
    p = decide_case(repro()).probability
    notice, d, dl = (
        p.outputs.get("reasonable_notice_months"),
        p.outputs.get("damages"),
        p.outputs_given_target.get("damages"),
    )
    assert notice is not None and d is not None and dl is not None
    assert notice.p10 < notice.p50 < notice.p90
    # issue 29: the probability printed beside the damages is the verdict's exact P(target), not the draws'
    assert dl.probability == p.p_target
    # E[D] = P(L)·E[D | L]: the draws' own P(L) is within its sampling error of the exact one
    assert d.mean == pytest.approx(dl.mean * dl.probability, rel=4 * 0.5 / np.sqrt(dl.n_samples) / p.p_target)
    assert dl.p10 > 0  # liable ⇒ the judge's notice exceeds the notice given: never a zero award
    assert d.p10 == 0.0  # not liable in more than 10 % of the worlds


def test_dependence_raises_the_notice() -> None:
    low = decide_case(repro(), {"economic_dependence_proven": False}).probability.outputs["reasonable_notice_months"]
    high = decide_case(repro(), {"economic_dependence_proven": True}).probability.outputs["reasonable_notice_months"]
    assert high.p50 > low.p50 * 1.3  # the law's effect ×1.5 on the median (before the cap)


def test_margin_rate_is_the_question_once_liability_is_settled() -> None:
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts.pop("annual_gross_margin")
    facts["annual_turnover"] = {"2021": 2_100_000, "2022": 2_250_000, "2023": 2_050_000}
    v = decide_case({"pack": "rupture_brutale", "case_id": "t", "facts": facts})
    assert v.status == "VERDICT" and v.probability.p_target == 1.0
    assert v.questions and v.questions[0]["fact"] == "margin_rate_pct" and v.questions[0]["about"] == "damages"
    after = decide_case({"pack": "rupture_brutale", "case_id": "t", "facts": {**facts, "margin_rate_pct": 25}})
    before_d, after_d = v.probability.outputs_given_target["damages"], after.probability.outputs_given_target["damages"]
    assert after_d.p90 - after_d.p10 < before_d.p90 - before_d.p10


def test_the_notice_law_is_calibrated_data_of_the_pack() -> None:
    pack, _ = pack_by_name("rupture_brutale")
    law = weights_of(pack).numbers["judge_notice_months"]
    assert law.dist == "lognormal_regression" and law.calibration
    data = (pack.root / "calibration" / "caselaw_notice.csv").read_text(encoding="utf-8")
    assert "16-13.464" in data  # the decisions fitted on travel with the pack, with their references
    for path in (ROOT / "engine" / "prob").glob("*.py"):
        assert "shared/domain" not in path.read_text(encoding="utf-8"), path


def test_a_number_with_a_law_is_a_discrete_root_of_the_yes_no_values() -> None:
    """Volume drop unknown, uniform on 0–100 % in 10 cells: ≥ 30 % (7 cells) yes, < 10 % (1 cell) no,
    between (2 cells) the judge's open zone (½) → P(liable) = 0.7 + 0.2·½; the answer settles it."""
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts["rupture_kind"] = "partial_volume"
    raw = {"pack": "rupture_brutale", "case_id": "t", "facts": facts}
    v = decide_case(raw)
    assert v.probability.p_target == pytest.approx(0.8, abs=1e-12) and not v.probability.unmodelled
    assert v.questions[0]["fact"] == "volume_drop_pct"
    assert decide_case(raw, {"volume_drop_pct": 40}).probability.p_target == 1.0
    assert decide_case(raw, {"volume_drop_pct": 5}).probability.p_target == 0.0


def test_an_unmodelled_coin_is_reported_only_where_an_outcome_can_feel_it() -> None:
    """A computed yes/no value over a date nobody gave is a 0.5 coin, reported as unmodelled — unless the
    case makes every rule that reads it dead (the contraction's cone of influence leaves it out)."""
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts.pop("egalim3_negotiation_date", None)
    dead = decide_case(
        {"pack": "rupture_brutale", "case_id": "t", "facts": {**facts, "egalim3_negotiation_failed": False}}
    )
    assert dead.probability.p_target == 1.0 and not dead.probability.unmodelled
    # the Egalim 3 option is the supplier's (issue 31): the author must be the supplier for the rule to live
    live_facts = {**facts, "egalim3_negotiation_failed": True, "egalim3_author_is_supplier": True}
    live = decide_case({"pack": "rupture_brutale", "case_id": "t", "facts": live_facts})
    assert 0.0 < live.probability.p_target < 1.0
    assert {r for rs in live.probability.unmodelled.values() for r in rs} == {"egalim3_negotiation_date"}
