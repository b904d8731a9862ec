"""Issue 29, point 3: the model weighs what it is told. Each probability is checked against an oracle that
shares no code with the model: the SYMBOLIC analysis of every completion (clingo, no probabilistic code)
weighted by hand, or a plain numpy Monte Carlo of the pack's calibrated notice law written here."""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.engine.verdict.build import build_verdict, read_case
from lexlogic.logic.errors import InvalidInput
from lexlogic.logic.facts import parse_case
from tests.prob.case_oracle import exceed_oracle
from tests.support.packs import SHIPPED, pack_by_name

ROOT = Path(__file__).resolve().parents[2]
GROUNDING = [{"kind": "document", "document_id": "piece", "page": 1, "char_start": 0, "char_end": 4, "quote": "lu"}]


def example(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "examples" / name / "facts.json").read_text(encoding="utf-8"))


def holds(case: dict[str, Any], completion: dict[str, Any]) -> bool:
    """The target in one complete world, by the symbolic analysis alone."""
    pack, program = pack_by_name(case["pack"])
    facts = {k: v for k, v in case["facts"].items() if k not in completion}
    a = analyse(pack, program, parse_case({**case, "facts": facts}, pack), completion)
    status = a.outcomes[pack.manifest.target].status
    assert status != "unknown", completion
    return status == "yes"


def brute_force(case: dict[str, Any], laws: dict[str, dict[Any, float]]) -> float:
    """Σ over the completions of the given laws (fact → value → probability) of P(world)·[target]."""
    names = sorted(laws)
    total = 0.0
    for values in itertools.product(*(list(laws[n].items()) for n in names)):
        w = math.prod(p for _, p in values)
        total += w * holds(case, {n: v for n, (v, _) in zip(names, values)})
    return total


def read(value: Any, confidence: float) -> dict[str, Any]:
    return {"value": value, "confidence": confidence, "grounding": GROUNDING}


@pytest.mark.parametrize(
    ("pack", "readings"),
    [
        ("rupture_brutale", {"fault_serious": (False, 0.9)}),
        ("rupture_brutale", {"fault_serious": (False, 0.9), "fault_proven": (True, 0.7)}),
        ("late_payment", {"professional_parties": (True, 0.8)}),
    ],
)
def test_a_reading_counts_with_its_confidence(pack: str, readings: dict[str, tuple[bool, float]]) -> None:
    """One reading with confidence c is P(value) = c, not certainty (the old model gave 1)."""
    case = example(pack)
    for name, (value, c) in readings.items():
        case["facts"][name] = read(value, c)
    v = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    assert v.probability.method == "exact"
    laws = {n: {value: c, (not value): 1 - c} for n, (value, c) in readings.items()}
    expected = brute_force(case, laws)
    assert 0 < expected < 1
    assert v.probability.p_target == pytest.approx(expected, abs=1e-9)


def narrative_case(fact: str, a: Any, b: Any, qa: float = 0.6) -> dict[str, Any]:
    case = example("rupture_brutale")
    case["facts"][fact] = {
        "value": a,
        "confidence": qa,
        "world": "NARRATIVE_A",
        "grounding": GROUNDING,
        "alternatives": [{"value": b, "confidence": 1 - qa, "world": "NARRATIVE_B", "grounding": GROUNDING}],
    }
    return case


def test_whatif_on_a_fact_split_into_narratives() -> None:
    """--whatif fault_serious=0.3 on a fact the narratives dispute: P(fault) = 0.3 (it was silently ignored)."""
    case = narrative_case("fault_serious", False, True)
    plain = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False).probability.p_target
    moved = build_verdict(
        read_case(SHIPPED, case), packs=SHIPPED, sliders=False, whatif={"fault_serious": 0.3}
    ).probability.p_target
    assert plain == pytest.approx(brute_force(case, {"fault_serious": {False: 0.6, True: 0.4}}), abs=1e-9)
    assert moved == pytest.approx(brute_force(case, {"fault_serious": {True: 0.3, False: 0.7}}), abs=1e-9)
    assert moved != pytest.approx(plain)


def test_whatif_on_a_narrative_enum_is_refused_by_name() -> None:
    case = narrative_case("rupture_kind", "total", "none")
    with pytest.raises(InvalidInput) as err:
        build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False, whatif={"rupture_kind": 0.3})
    assert "rupture_kind" in str(err.value)


def test_damages_in_every_narrative_world() -> None:
    """The damages distribution stays when rupture_kind is split into narratives (it vanished), comes from
    the worlds where the target holds, and carries the verdict's exact P(target)."""
    case = narrative_case("rupture_kind", "total", "none")
    v = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    p = v.probability
    damages = next(d for d in p.distributions if d.name == "damages")
    assert damages.given_target and damages.probability == p.p_target
    assert p.p_target == pytest.approx(0.6 * holds(case, {"rupture_kind": "total"}), abs=1e-9)
    given = copy.deepcopy(example("rupture_brutale"))
    ref = next(
        d
        for d in build_verdict(read_case(SHIPPED, given), packs=SHIPPED, sliders=False).probability.distributions
        if d.name == "damages"
    )
    assert damages.p50 == pytest.approx(ref.p50, rel=0.03)  # only world A is liable: A's damages


def notice_mc(law: dict[str, Any], years: float, effects: float, threshold: float, n: int = 400_000) -> float:
    """P(N > threshold) by plain numpy draws of the law as weights.yaml writes it."""
    rng = np.random.default_rng(29)
    z = rng.multivariate_normal(law["mean"], law["cov"], size=n)
    ln_n = z[:, 0] + z[:, 1] * math.log(years) + effects + np.exp(z[:, 2]) * rng.standard_normal(n)
    return float(np.mean(np.minimum(np.exp(ln_n), law["max"]) > threshold))


def test_the_judges_call_is_the_notice_law() -> None:
    """8-year relation, 9 months of written notice inside the range: P(found insufficient) is P(N > 9) under
    the calibrated law, the same event the damages are conditioned on (one event, one probability)."""
    case = example("rupture_brutale")
    case["facts"].update(relation_start="2016-03-15", notice_given_months=9, contractual_notice_months=0)
    v = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    values = {k: x.value for k, x in v.values.items()}
    assert values["reasonable_notice_low"] < 9 < values["reasonable_notice_high"]
    law = yaml.safe_load((ROOT / "rules/rupture_brutale/weights.yaml").read_text())["numbers"]["judge_notice_months"]
    effects = sum(e for f, e in law["effects"].items() if case["facts"].get(f) is True)
    mc = notice_mc(law, 96 / 12, effects, 9.0)
    assert v.probability.p_target == pytest.approx(mc, abs=0.004)  # 3 SE of 400 000 draws
    pack, _ = pack_by_name("rupture_brutale")
    from lexlogic.logic.weights import load_weights

    typed = load_weights(pack.root / "weights.yaml").numbers["judge_notice_months"]
    assert v.probability.p_target == pytest.approx(exceed_oracle(typed, values), abs=1e-9)
    damages = next(d for d in v.probability.distributions if d.name == "damages")
    assert damages.probability == v.probability.p_target


def test_the_oracle_quadrature_against_monte_carlo() -> None:
    pack, _ = pack_by_name("rupture_brutale")
    from lexlogic.logic.weights import load_weights

    typed = load_weights(pack.root / "weights.yaml").numbers["judge_notice_months"]
    law = yaml.safe_load((ROOT / "rules/rupture_brutale/weights.yaml").read_text())["numbers"]["judge_notice_months"]
    for years, threshold in ((8, 9.0), (3, 2.0), (15, 20.0)):
        values = {"relation_months": years * 12, "effective_notice_months": threshold}
        assert exceed_oracle(typed, values) == pytest.approx(notice_mc(law, years, 0.0, threshold), abs=0.004)
