"""The inference route is chosen from the compiled circuit's cost estimate before anything expensive runs,
and the verdict says which route it took (issue 33).

Oracles share no code with the engine: ProbLog on the small model; on the wide one (2^30 worlds, a clique
of pairs: ProbLog did not finish in 300 s) an exact computation written here — the five facts read by the
guard and the constraint enumerated by hand, the other facts' count by the Poisson-binomial recurrence.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from lexlogic.engine.prob import analyse, contract, infer
from tests.prob.gen import Spec, problog_marginals


def small_spec() -> Spec:
    probs = [0.3, 0.6, 0.45, 0.2, 0.7]
    rules = [(0, ["f0", "f1"], ["d1"]), (0, ["f2"], []), (1, ["f3", "f4"], []), (2, ["f1", "f4"], [])]
    return Spec(probs, [], [1, 0, 0], rules, constraints=["d2"], target="d0")


def wide_spec(n: int) -> Spec:
    """d1 = at least two of n facts (a rule per pair: the circuit is a clique, treewidth n − 1); the target
    d0 = d1 and not (f0 and f1); worlds where f2, f3 and f4 all hold are excluded by a constraint."""
    rng = np.random.default_rng(7)
    probs = [round(float(x), 4) for x in rng.uniform(0.02, 0.09, n)]
    rules = [(0, ["d1"], ["d2"])]
    rules += [(1, [f"f{i}", f"f{j}"], []) for i, j in itertools.combinations(range(n), 2)]
    rules += [(2, ["f0", "f1"], []), (3, ["f2", "f3", "f4"], [])]
    return Spec(probs, [], [1, 0, 0, 0], rules, constraints=["d3"], target="d0")


def wide_oracle(probs: list[float]) -> float:
    """P(d0 | not (f2 and f3 and f4)) by hand: the first five facts enumerated, the rest by their count."""
    count = np.array([1.0])  # distribution of how many of f5.. hold
    for p in probs[5:]:
        count = np.append(count * (1 - p), 0.0) + np.append(0.0, count * p)
    num = den = 0.0
    for bits in itertools.product((0, 1), repeat=5):
        w = float(np.prod([p if b else 1 - p for p, b in zip(probs, bits)]))
        if bits[2] and bits[3] and bits[4]:
            continue
        den += w
        if bits[0] and bits[1]:
            continue
        need = max(0, 2 - sum(bits))
        num += w * float(count[need:].sum())
    return num / den


def test_small_model_is_exact_and_says_so() -> None:
    spec = small_spec()
    v = analyse(spec.asp())
    ref = problog_marginals(spec.problog())["d0"]
    assert v.plan is not None and v.plan.route == "contraction"
    assert v.method == "exact" and v.error == 0.0 and v.interval is None
    assert v.plan.largest_intermediate is not None and v.plan.largest_intermediate <= contract.MAX_INTERMEDIATE
    assert v.plan.flops is not None and v.plan.samples is None
    assert abs(v.p_target - ref) < 1e-12


def test_wide_model_is_sampled_from_the_estimate_without_trying_the_exact_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = wide_spec(30)

    def refused(*_a: object, **_k: object) -> None:
        raise AssertionError("the exact path was attempted")

    monkeypatch.setattr(contract, "contract_all", refused)  # the contraction itself
    monkeypatch.setattr(infer, "exact", refused)  # the enumeration
    monkeypatch.setattr(infer.Compiled, "table", refused)  # the world table it would build
    v = analyse(spec.asp(), seed=3)
    plan = v.plan
    assert plan is not None and plan.route == "sampling" and v.method == "monte_carlo"
    assert plan.largest_intermediate is not None and plan.largest_intermediate > contract.MAX_INTERMEDIATE
    assert plan.worlds == 1 << 30 and "sampled" in plan.reason
    json.dumps(v.model_dump(mode="json"), allow_nan=False)  # storable as JSON (JSONB has no ∞)
    assert plan.target_se is not None and plan.pilot is not None and plan.samples == v.n_worlds
    assert plan.pilot <= plan.samples <= 1 << 18
    assert 0.0 < v.error <= 1.25 * plan.target_se  # the sample count was chosen for that error
    assert v.interval is not None
    lo, hi = v.interval
    assert lo == pytest.approx(v.p_target - 1.96 * v.error) and hi == pytest.approx(v.p_target + 1.96 * v.error)
    exact = wide_oracle([p for p in spec.probs])
    assert lo <= exact <= hi, (exact, v.interval)


def test_a_sampled_count_is_kept_when_asked() -> None:
    v = analyse(small_spec().asp(), method="sampling", samples=1 << 14, seed=1)
    assert v.plan is not None and v.plan.route == "sampling" and v.plan.pilot is None
    assert v.n_worlds == 1 << 14 and v.interval is not None


def test_a_sampled_probability_is_worded_as_an_estimate_never_as_a_computation() -> None:
    from lexlogic.engine.text import formatting
    from lexlogic.engine.text.inference_words import method_phrase

    sampled = {
        "method": "monte_carlo",
        "error": 0.002,
        "n_worlds": 62515,
        "plan": {"route": "sampling", "samples": 62515},
    }
    said = method_phrase(sampled)
    assert said == f"estimée par échantillonnage (± 0,4 point à 95 %, {formatting.number(62515)} tirages)"
    assert "exact" not in said and "calcul" not in said
    agreed = method_phrase({**sampled, "error": 0.0})  # every draw agreed: never « ± 0 »
    assert "± moins de 0,1 point à 95 %" in agreed
    assert (
        method_phrase({"method": "exact", "n_worlds": 8, "plan": {"route": "contraction"}})
        == "(calcul exact, 8 mondes)"
    )
    enumerated = {"method": "exact", "n_worlds": 8, "plan": {"route": "enumeration"}}
    assert method_phrase(enumerated) == "(calcul exact par énumération, 8 mondes)"


def test_the_cli_says_how_the_probability_was_computed() -> None:
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
    cli = Path(sys.executable).with_name("lexlogic")
    lines = {}
    for how in ("auto", "sampling"):
        out = subprocess.run([str(cli), "analyze", str(example), "--inference", how], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        lines[how] = next(line for line in out.stdout.splitlines() if "Probabilité" in line)
    assert "(calcul exact, " in lines["auto"] and "échantillonnage" not in lines["auto"]
    assert "estimée par échantillonnage (± " in lines["sampling"] and "à 95 %" in lines["sampling"]
    assert "calcul exact" not in lines["sampling"]


def test_a_changed_setting_changes_the_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """The thresholds are the one Settings' ``inference_*`` fields, passed down as ``InferenceLimits``: the same
    model goes contraction → enumeration → sampling as they tighten, and the exact routes agree."""
    from lexlogic.engine.prob.inference_plan import InferenceLimits
    from lexlogic.settings import Settings

    spec = small_spec()
    default = analyse(spec.asp())
    assert default.plan is not None and default.plan.route == "contraction"
    assert InferenceLimits.of() == InferenceLimits.of(Settings.defaults())

    monkeypatch.setenv("LEXLOGIC_INFERENCE_MAX_INTERMEDIATE", "1")  # read at the edge, as a deployment would
    narrow = Settings()
    assert narrow.inference_max_intermediate == 1
    v = analyse(spec.asp(), limits=InferenceLimits.of(narrow))
    assert v.plan is not None and v.plan.route == "enumeration" and "limits 1 entries" in v.plan.reason
    assert abs(v.p_target - default.p_target) < 1e-12

    few_flops = Settings.defaults().model_copy(update={"inference_max_flops": 1.0})
    v = analyse(spec.asp(), limits=InferenceLimits.of(few_flops))
    assert v.plan is not None and v.plan.route == "enumeration"

    sampled = few_flops.model_copy(
        update={"inference_max_worlds": 1, "inference_pilot": 512, "inference_samples": 2048}
    )
    v = analyse(spec.asp(), limits=InferenceLimits.of(sampled), seed=2)
    assert v.plan is not None and v.plan.route == "sampling" and v.plan.pilot == 512
    assert v.plan.samples is not None and 512 <= v.plan.samples <= 2048
    assert analyse(spec.asp(), limits=InferenceLimits.of(sampled), max_exact_worlds=1 << 10).plan.route == "enumeration"  # type: ignore[union-attr]
