"""Verdicts on a pack-like program: stop rule, questions, narratives, what-if, monotonicity, caching."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.engine.prob import (
    BoolVar,
    InconsistentEvidence,
    NonUniqueWorldError,
    ProbProgram,
    World,
    analyse,
    compiled,
)
from lexlogic.engine.prob.acquisition import entropy
from lexlogic.engine.prob.soft import factor
from lexlogic.logic.memos import Memos
from tests.prob.gen import Spec, specs
from tests.prob.toy_pack import toy

KNOWN = {"notice_given_months": "4", "regular_orders": "oui"}  # the case already says this


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def test_missing_decisive_fact_asks_then_concludes() -> None:
    prog = toy()
    before = analyse(prog, answers=KNOWN)
    assert before.status == "NEEDS_INFORMATION"
    assert before.entropy >= before.entropy_threshold
    assert before.best_question is not None
    assert before.best_question.variable == "notice_written"
    assert before.best_question.question == "Le préavis a-t-il été donné par écrit ?"
    assert before.questions[0].utility == max(q.utility for q in before.questions)
    after = analyse(prog, answers={**KNOWN, "notice_written": "non"})
    assert after.status == "VERDICT"
    assert after.p_target > 0.95 and after.entropy < after.entropy_threshold
    assert after.best_question is None
    assert all(q.variable != "notice_written" for q in after.questions)
    written = analyse(prog, answers={**KNOWN, "notice_written": "oui"})
    assert written.status == "VERDICT" and written.p_target == 0.0  # sufficient written notice: not brutal


def test_eig_equals_entropy_drop_of_the_answer() -> None:
    """The contraction's EIG (one backward pass) against the enumerated table's answers (another engine)."""
    prog = toy(soft=False)
    v = analyse(prog, answers=KNOWN)
    assert v.evaluator == "contraction"
    q = next(q for q in v.questions if q.variable == "notice_written")
    expected = v.entropy
    for label, value in (("non", "false"), ("oui", "true")):
        post = analyse(prog, answers={**KNOWN, "notice_written": value}, method="enumerate")
        assert post.evaluator != "contraction"
        expected -= q.p_values[label] * entropy(post.p_target)
    assert q.eig == pytest.approx(expected, abs=1e-12)


def test_proven_safe_harbour_drives_liability_to_zero() -> None:
    assert analyse(toy(), answers={"notice_given_months": "18"}).p_target == 0.0
    assert analyse(toy(), whatif={"notice_given_months": "18"}).p_target == 0.0


@_settings(30)
@given(
    st.fixed_dictionaries(
        {
            k: st.floats(0.01, 0.99)
            for k in (
                "regular_orders",
                "notice_written",
                "fault_alleged",
                "fault_serious",
                "fault_proven",
                "force_majeure",
            )
        }
    ),
    st.sampled_from(["l", "m", "s", 0.3, 7.0]),
)
def test_safe_harbour_zero_whatever_the_priors(priors: dict[str, float], intensity: float | str) -> None:
    v = analyse(toy(priors, intensity=intensity), answers={"notice_given_months": "18"})
    assert v.p_target == 0.0 and v.status == "VERDICT"


@_settings(30)
@given(
    st.fixed_dictionaries(
        {
            k: st.floats(0.01, 0.99)
            for k in (
                "regular_orders",
                "notice_written",
                "fault_alleged",
                "fault_serious",
                "fault_proven",
                "force_majeure",
            )
        }
    ),
    st.floats(0.1, 10.0),
    st.floats(0.0, 10.0),
)
def test_raising_claimant_intensity_never_lowers_liability(priors: dict[str, float], i1: float, delta: float) -> None:
    low = analyse(toy(priors, intensity=i1)).p_target
    high = analyse(toy(priors, intensity=i1 + delta)).p_target
    assert high >= low - 1e-12


@_settings(20)
@given(specs(max_facts=5, constraints=True), st.floats(0.1, 10.0), st.floats(0.0, 10.0))
def test_soft_rule_monotone_in_its_condition(spec: Spec, i1: float, delta: float) -> None:
    """On any program: raising I1 of a rule on condition c never lowers P(c)."""
    from lexlogic.engine.prob import SoftRule
    from lexlogic.logic.weights import Fixed, Principle

    def p_cond(i: float) -> float:
        prog = spec.asp()
        prog.soft_rules = [SoftRule(id="r", condition="d0", claimant=Principle(intensity=Fixed(value=i)))]
        try:
            return analyse(prog).p_target
        except InconsistentEvidence:
            return -1.0

    assert p_cond(i1 + delta) >= p_cond(i1) - 1e-12


def test_soft_factor_mapping() -> None:
    from lexlogic.engine.prob import SoftRule
    from lexlogic.logic.weights import Fixed, Principle, Scale

    r = SoftRule(id="x", condition="c", claimant=Principle(intensity=Fixed(value=4)), defence=Principle())
    assert factor(r) == pytest.approx(4 / 5)  # s = 4 → odds × 4
    even = SoftRule(id="x", condition="c")
    assert factor(even) == 0.5  # stalemate is neutral
    mixed = SoftRule(id="x", condition="c", claimant=Principle(intensity=Scale(values=[1, 4], probs=[0.5, 0.5])))
    assert factor(mixed) == pytest.approx(0.5 * 0.5 + 0.5 * 0.8)
    # the factor moves the odds of the condition by exactly s on a free atom
    prog = ProbProgram(
        program="c :- f.", variables=[BoolVar(name="f", atom="f", prior=0.5)], target="c", soft_rules=[r]
    )
    p = analyse(prog).p_target
    assert p / (1 - p) == pytest.approx(4.0)


def test_narratives_and_collapse() -> None:
    v = analyse(toy(soft=False))
    assert set(v.p_target_by_narrative) == {"NARRATIVE_A", "NARRATIVE_B"}
    # claimant's story (no notice at all) makes liability likelier than the defence's (written, fault)
    assert v.p_target_by_narrative["NARRATIVE_A"] > v.p_target > v.p_target_by_narrative["NARRATIVE_B"]
    assert v.p_narrative["NARRATIVE_A"] == pytest.approx(0.3)
    assert not v.collapsed
    # answering 4 months contradicts the claimant's "no notice": narrative A collapses
    after = analyse(toy(soft=False), answers={"notice_given_months": "4"})
    assert [c.narrative for c in after.collapsed] == [World.NARRATIVE_A]
    assert after.collapsed[0].probability == 0.0
    assert after.p_target_by_narrative["NARRATIVE_A"] is None
    # a narrative below ε (not zero) collapses too, with the probability that triggered it
    thin = analyse(toy(soft=False, priors={"fault_alleged": 0.02}), epsilon=0.05)
    b = [c for c in thin.collapsed if c.narrative == World.NARRATIVE_B]
    assert b and 0.0 < b[0].probability < 0.05


def test_whatif_prior_and_weight_change_the_verdict() -> None:
    base = analyse(toy(), answers=KNOWN)
    wi = analyse(toy(), answers=KNOWN, whatif={"notice_written": 0.05})
    assert wi.p_target > base.p_target and wi.whatif == {"notice_written": "0.05"}
    stronger = analyse(toy(), answers=KNOWN, whatif={"dependance.I1": "s"})
    assert stronger.p_target > base.p_target
    assert stronger.soft_factors["dependance"] > base.soft_factors["dependance"]
    same = analyse(toy(), answers=KNOWN, whatif={"dependance.claimant.intensity": "s"})
    assert same.p_target == stronger.p_target
    weaker = analyse(toy(), answers=KNOWN, whatif={"dependance.defence.weight": "beta(2,2)"})
    assert weaker.p_target > base.p_target  # defence weight < 2 → claimant's odds up


def test_answers_and_whatifs_reuse_the_world_table() -> None:
    prog = toy()
    memos = Memos()  # one owner (a run, the verdict service)
    c = compiled(prog, memos)
    builds = c.table_builds
    for ans in ({}, KNOWN, {**KNOWN, "notice_written": "non"}):
        analyse(prog, answers=ans, whatif={"fault_proven": 0.5, "dependance.W2": "l"}, memos=memos)
    assert compiled(prog, memos) is c and c.table_builds <= max(builds, 1)


def test_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown fact 'nope'"):
        analyse(toy(), answers={"nope": "oui"})
    with pytest.raises(ValueError, match="not a yes/no answer"):
        analyse(toy(), answers={"notice_written": "peut-être"})
    with pytest.raises(ValueError, match="is not one of"):
        analyse(toy(), answers={"notice_given_months": "7"})
    with pytest.raises(ValueError, match="unknown name 'zzz'"):
        analyse(toy(), whatif={"zzz": 1})
    with pytest.raises(InconsistentEvidence):  # a proven fault that was never alleged
        analyse(toy(), answers={"fault_proven": "oui", "fault_alleged": "non"})


def test_unstratified_program_uses_clingo_and_rejects_two_answer_sets() -> None:
    ok = ProbProgram(
        program="a :- not b, f. b :- not a, f. :- b.", variables=[BoolVar(name="f", atom="f", prior=0.3)], target="a"
    )
    memos = Memos()  # one owner: the compiled program is its
    v = analyse(ok, memos=memos)
    assert v.evaluator == "clingo" and v.p_target == pytest.approx(0.3, abs=1e-12)
    c = compiled(ok, memos)
    assert c.clingo is not None and c.clingo.solve_calls == 1  # one enumeration call
    analyse(ok, answers={"f": "oui"}, memos=memos)
    assert c.clingo.solve_calls == 1  # cached worlds: clingo not called again
    s = analyse(ok, method="monte_carlo", samples=5000, memos=memos)
    assert c.clingo.solve_calls == 1 and s.p_target == pytest.approx(0.3, abs=5 * s.error + 1e-9)
    bad = ProbProgram(
        program="a :- not b, f. b :- not a, f.", variables=[BoolVar(name="f", atom="f", prior=0.3)], target="a"
    )
    with pytest.raises(NonUniqueWorldError, match=r"f=True.*several answer sets"):
        analyse(bad)


def test_clingo_sampling_solves_each_distinct_world_once() -> None:
    prog = ProbProgram(
        program="a :- not b, f. b :- not a, f. :- b, g.\nq :- a, g.",
        variables=[BoolVar(name=n, atom=n, prior=0.5) for n in ("f", "g")],
        target="a",
    )
    c = compiled(prog)
    assert c.clingo is not None
    import numpy as np

    digits = np.array([[1, 1, 0, 0, 1, 1], [1, 1, 0, 1, 1, 1]], dtype=np.int16)
    mask, obs = c.clingo.evaluate(digits)
    assert c.clingo.solve_calls == 3  # three distinct worlds among six
    assert mask.tolist() == [True, True, True, True, True, True]
    c.clingo.evaluate(digits)
    assert c.clingo.solve_calls == 3


def test_aggregates_run_vectorised() -> None:
    prog = ProbProgram(
        program="indic(a) :- fa. indic(b) :- fb. indic(c) :- fc.\nestablished :- #count{X: indic(X)} >= 2.",
        variables=[BoolVar(name=n, atom=n, prior=0.5) for n in ("fa", "fb", "fc")],
        target="established",
    )
    v = analyse(prog)
    assert v.evaluator == "vectorised" and v.p_target == pytest.approx(0.5, abs=1e-12)  # ≥2 of 3 fair coins


def test_cli_pairs_and_json_contract() -> None:
    import typer

    from lexlogic.api.cli_common import parse_assignments
    from lexlogic.engine.prob import ProbVerdict

    answers = parse_assignments(["notice_written=non", "notice_given_months = 4"], "--answer")
    assert answers == {"notice_written": False, "notice_given_months": 4}
    with pytest.raises(typer.Exit) as refused:
        parse_assignments(["oops"], "--whatif")
    assert refused.value.exit_code == 2
    v = analyse(toy(), answers=answers, whatif=parse_assignments(["dependance.I1=s"], "--whatif"))
    data = v.model_dump(mode="json")
    for key in ("status", "p_target", "p_target_by_narrative", "entropy", "method", "error", "questions", "collapsed"):
        assert key in data
    assert data["answers"] == {"notice_written": "false", "notice_given_months": "4"}
    assert ProbVerdict.model_validate_json(v.model_dump_json()) == v


def test_bool_and_one_option_categorical_do_not_share_a_cache_entry() -> None:
    from lexlogic.engine.prob import CategoricalVar

    as_bool = ProbProgram(target="liable", program="liable :- a.", variables=[BoolVar(name="a", atom="a", prior=0.3)])
    as_cat = ProbProgram(
        target="liable", program="liable :- a.", variables=[CategoricalVar(name="a", options=[("a", 1.0)])]
    )
    assert analyse(as_bool).p_target == pytest.approx(0.3)
    assert analyse(as_cat).p_target == 1.0


@_settings(15)
@given(
    st.dictionaries(
        st.sampled_from(["regular_orders", "notice_written", "fault_alleged", "force_majeure"]),
        st.booleans(),
        max_size=4,
    )
)
def test_answers_slice_equals_clamped_priors(ans: dict[str, bool]) -> None:
    """Answering (the enumerated table's slice) = a what-if prior of 1/0 (the contraction, another engine)."""
    try:
        sliced = analyse(toy(), answers={k: str(v) for k, v in ans.items()}, method="enumerate")
    except InconsistentEvidence:
        return
    clamped = analyse(toy(), whatif={k: 1.0 if v else 0.0 for k, v in ans.items()})
    assert sliced.p_target == pytest.approx(clamped.p_target, abs=1e-12)
    assert sliced.p_queries == pytest.approx(clamped.p_queries, abs=1e-12)
    for q in sliced.questions:
        other = next(x for x in clamped.questions if x.variable == q.variable)
        assert q.eig == pytest.approx(other.eig, abs=1e-12)
    for name, p in sliced.p_target_by_narrative.items():
        assert (p is None and clamped.p_target_by_narrative[name] is None) or p == pytest.approx(
            clamped.p_target_by_narrative[name], abs=1e-12
        )


def test_everything_answered() -> None:
    ans = {
        "regular_orders": "oui",
        "notice_written": "non",
        "notice_given_months": "4",
        "fault_alleged": "non",
        "fault_serious": "non",
        "fault_proven": "non",
        "force_majeure": "non",
    }
    v = analyse(toy(), answers=ans)
    assert v.p_target == 1.0 and v.status == "VERDICT" and v.questions == []
