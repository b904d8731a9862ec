from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.bridges import fol_eprover, fol_prolog, fol_reasoner
from lexlogic.logic.fol import (
    And,
    Atom,
    BeliefSet,
    Const,
    Exists,
    Forall,
    Implies,
    Not,
    Or,
    Signature,
    Var,
    parse_belief_set,
    parse_formula,
)
from lexlogic.logic.fol.clauses import is_horn
from lexlogic.logic.fol.lowering import lower, lower_query
from lexlogic.logic.proof import NodeKind
from tests.fol import oracle

FIX = Path(__file__).parent / "fixtures"
needs_e = pytest.mark.skipif(fol_eprover.binary() is None, reason="eprover binary not installed")


def animals() -> BeliefSet:
    return parse_belief_set((FIX / "examplebeliefbase.fologic").read_text())


def q(bs: BeliefSet, text: str):  # type: ignore[no-untyped-def]
    return parse_formula(text, bs.signature)[0]


@needs_e
@pytest.mark.parametrize(
    "query,expected",
    [
        ("Eats(rabbit,eagle)", True),
        ("HasWings(eagle)", False),
        ("!Flies(penguin)", True),
        ("exists X: (Eats(X,rabbit))", True),
        ("forall X: (Flies(X) => HasWings(X))", True),
        ("forall X: (HasWings(X))", False),
        ("Eats(rabbit,eagle) && Stings(cactus)", True),
    ],
)
def test_prolog_and_e_agree_on_tweety_example(query: str, expected: bool) -> None:
    bs = animals()
    assert fol_prolog.entails(bs, q(bs, query)).entailed is expected
    assert fol_eprover.entails(bs, q(bs, query)).entailed is expected
    try:
        assert oracle.entails(bs, q(bs, query)) is expected
    except oracle.OracleRefuses:
        pass  # too many ground atoms for brute force (Eats over 4 elements)


def test_prolog_proof_tree_shows_rule_and_fact() -> None:
    bs = animals()
    ans = fol_prolog.entails(bs, q(bs, "Eats(rabbit,eagle)"))
    [rule] = ans.proof.children
    assert rule.kind is NodeKind.RULE and rule.rule_id == "fol:3"
    assert rule.children[0].atom == "Eats(eagle,rabbit)" and rule.children[0].kind is NodeKind.FACT


def test_repaired_fact_appears_as_repair_in_proof() -> None:
    bs = parse_belief_set((FIX / "socrate.fologic").read_text())
    bs.add(parse_formula("forall X: (EstMortel(X) => EstMortel(X))", bs.signature)[0])
    ans = fol_prolog.entails(bs, q(bs, "EstMortel(socrate)"))
    kinds = {n.kind for n in ans.proof.walk()}
    assert ans.entailed and (NodeKind.REPAIR in kinds or NodeKind.RULE in kinds)
    # the stored repaired fact is the only direct support when asked through E
    e = fol_eprover.entails(bs, q(bs, "EstMortel(socrate)")) if fol_eprover.binary() else None
    if e is not None:
        assert any(n.kind is NodeKind.REPAIR for n in e.proof.walk())


def test_subsort_quantifier_semantics() -> None:
    text = (
        "Personne = {socrate}\nEtreVivant = {rex}\n\ntype(EstPhilosophe(Personne))\n"
        "type(EstMortel(EtreVivant))\n\nEstPhilosophe(socrate)\nforall X: (EstPhilosophe(X) => EstMortel(X))\n"
    )
    bs = parse_belief_set(text)
    for query, expected in [("exists X: (EstMortel(X))", True), ("EstMortel(rex)", False)]:
        assert fol_prolog.entails(bs, q(bs, query)).entailed is expected
        assert oracle.entails(bs, q(bs, query)) is expected
        if fol_eprover.binary():
            assert fol_eprover.entails(bs, q(bs, query)).entailed is expected
            low = lower(bs)
            assert fol_eprover.entails(low, lower_query(bs, q(bs, query))).entailed is expected


def test_inconsistency_reported_with_formulas() -> None:
    bs = animals()
    bs.add(q(bs, "Flies(penguin)"))
    c = fol_prolog.consistent(bs)
    assert c.consistent is False
    assert set(c.involved) == {"!Flies(penguin)", "Flies(penguin)"}
    ans = fol_prolog.entails(bs, q(bs, "HasWings(eagle)"))
    assert ans.entailed and ans.inconsistent_kb


def test_prolog_calls_from_many_threads_are_serialised() -> None:
    bs = animals()
    results: list[bool | None] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                results.append(fol_prolog.entails(bs, q(bs, "Eats(rabbit,eagle)"), proof=True).entailed)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [True] * 30


def test_auto_backend_choice() -> None:
    bs = animals()
    assert fol_reasoner.entails(bs, q(bs, "HasWings(penguin)")).backend == "prolog"
    nonhorn = animals()
    nonhorn.add(q(nonhorn, "Flies(eagle) || Flies(rabbit)"))
    assert not is_horn(nonhorn)
    if fol_eprover.binary():
        ans = fol_reasoner.entails(nonhorn, q(nonhorn, "exists X: (Flies(X))"))
        assert ans.backend == "eprover" and ans.entailed is True


# ------------------------------------------------------------------------------ differential tests
SIG = Signature(
    {"Alpha": ["a", "b"], "Beta": ["c"]},
    {"P": ("Alpha",), "Q": ("Alpha",), "R": ("Beta",), "T": ("Alpha", "Beta"), "W": ("Alpha",)},
)
X, Y = Var("X", "Alpha"), Var("Y", "Beta")
HORN_RULES = [
    Forall(X, Implies(Atom("P", (X,)), Atom("Q", (X,)))),
    Forall(X, Forall(Y, Implies(Atom("T", (X, Y)), Atom("R", (Y,))))),
    Forall(X, Forall(Y, Implies(And((Atom("Q", (X,)), Atom("R", (Y,)))), Atom("T", (X, Y))))),
    Forall(X, Implies(And((Atom("P", (X,)), Atom("W", (X,)))), Not(Atom("Q", (X,))))),
    Forall(X, Implies(Atom("Q", (X,)), Atom("W", (X,)))),
    Exists(X, And((Atom("P", (X,)), Atom("W", (X,))))),
    Forall(X, Implies(Atom("W", (X,)), Atom("P", (X,)))),
]
NONHORN_RULES = [
    Forall(X, Or((Atom("P", (X,)), Atom("W", (X,))))),
    Or((Atom("Q", (Const("a"),)), Atom("Q", (Const("b"),)))),
    Forall(X, Implies(Atom("Q", (X,)), Or((Atom("P", (X,)), Not(Atom("W", (X,))))))),
]
GROUND = [
    Atom("P", (Const("a"),)),
    Atom("P", (Const("b"),)),
    Atom("Q", (Const("b"),)),
    Atom("R", (Const("c"),)),
    Atom("T", (Const("a"), Const("c"))),
    Atom("W", (Const("a"),)),
    Atom("W", (Const("b"),)),
]
literals = st.sampled_from(GROUND).flatmap(lambda a: st.sampled_from([a, Not(a)]))
QUERIES = (
    GROUND
    + [Not(g) for g in GROUND]
    + [
        Exists(X, Atom("Q", (X,))),
        Exists(X, And((Atom("P", (X,)), Atom("Q", (X,))))),
        Forall(X, Implies(Atom("P", (X,)), Atom("W", (X,)))),
        Forall(Y, Atom("R", (Y,))),
    ]
)


def make(rules: list, facts: list) -> BeliefSet:  # type: ignore[type-arg]
    bs = BeliefSet(signature=SIG.copy())
    for f in list(rules) + list(facts):
        bs.add(f)
    return bs


@needs_e
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(HORN_RULES), max_size=4, unique=True),
    st.lists(literals, max_size=4),
    st.sampled_from(QUERIES),
)
def test_differential_horn_prolog_e_oracle(rules, facts, query) -> None:  # type: ignore[no-untyped-def]
    bs = make(rules, facts)
    assert is_horn(bs)
    expected = oracle.entails(bs, query)
    assert fol_prolog.entails(bs, query, proof=False).entailed is expected
    assert fol_eprover.entails(bs, query, proof=False).entailed is expected
    assert fol_prolog.consistent(bs).consistent is oracle.consistent(bs)


@needs_e
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(HORN_RULES + NONHORN_RULES), min_size=1, max_size=4, unique=True),
    st.lists(literals, max_size=3),
    st.sampled_from(QUERIES),
)
def test_differential_full_fol_e_oracle_and_lowering(rules, facts, query) -> None:  # type: ignore[no-untyped-def]
    bs = make(rules, facts)
    expected = oracle.entails(bs, query)
    assert fol_eprover.entails(bs, query, proof=False).entailed is expected
    assert fol_reasoner.entails(bs, query, proof=False).entailed is expected
