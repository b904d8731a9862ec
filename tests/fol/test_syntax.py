from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.logic.fol import (
    And,
    Atom,
    BeliefSet,
    Const,
    Exists,
    FolSyntaxError,
    Forall,
    Iff,
    Implies,
    Not,
    Or,
    Signature,
    Var,
    Xor,
    parse_belief_set,
    parse_formula,
    print_belief_set,
    print_formula,
)
from lexlogic.logic.fol.syntax import parse_report

SHARED = Path("/work/shared/tweety/examples")
FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = sorted(SHARED.glob("*.fologic")) if SHARED.is_dir() else []


@pytest.mark.parametrize("path", EXAMPLES or [pytest.param(None, marks=pytest.mark.skip("shared examples absent"))])
def test_shared_tweety_examples_parse_and_round_trip(path: Path) -> None:
    bs = parse_belief_set(path.read_text(), source=str(path))
    assert bs.formulas
    text = print_belief_set(bs)
    again = parse_belief_set(text)
    assert again.formulas == bs.formulas
    assert again.signature.sorts == bs.signature.sorts
    assert print_belief_set(again) == text


def test_fixture_example_content() -> None:
    bs = parse_belief_set((FIXTURES / "examplebeliefbase.fologic").read_text(), strict=True)
    assert bs.signature.sorts == {"Animal": ["penguin", "eagle", "rabbit"], "Plant": ["cactus"]}
    assert bs.signature.predicates["Eats"] == ("Animal", "Animal")
    sym = bs.formulas[2]
    assert isinstance(sym, Forall) and isinstance(sym.body, Forall)
    assert sym.var == Var("X", "Animal")
    assert bs.formulas[3] == Not(Atom("Flies", (Const("penguin"),)))
    bs2 = parse_belief_set((FIXTURES / "examplebeliefbase2.fologic").read_text(), strict=True)
    # `exists Z:(hasID(X,Z) && Z/==Y)`: Z takes its sort from its first use as an argument
    last = bs2.formulas[-1]
    assert isinstance(last, Forall) and last.var.sort == "Person"
    assert "exists Z: (hasID(X,Z))" in print_formula(last)


@pytest.mark.parametrize(
    "text,line,col,fragment",
    [
        ("A = {a}\ntype(P(A))\nP(b)", 3, 3, "Constant 'b' has not been declared"),
        ("A = {a}\ntype(P(A))\nWild(a)", 3, 1, "Predicate 'Wild' has not been declared"),
        ("A = {a}\ntype(P(A))\nforall X: P(X)", 3, 11, "must be in parentheses"),
        ("A = {a}\ntype(P(A))\nforall X,Y: (P(X))", 3, 9, "one variable per quantifier"),
        ("A = {a}\ntype(P(A))\nforall X:A (P(X))", 3, 10, "typed quantifiers"),
        ("A = {a}\n% comment\ntype(P(A))", 2, 1, "sort declaration"),
        ("A = {a}\ntype(P(A))\nP(a) % c", 3, 6, "comments are not part"),
        ("A = {a}\ntype(P(A))\nB = {b}", 3, 1, "before the first type"),
        ("A = {a}\nB = {a}", 2, 6, "already been defined to be of sort 'A'"),
        ("A = {a}\ntype(est_vrai(A))", 2, 6, "Illegal characters in predicate definition 'est_vrai'"),
        ("A = {a}\ntype(P(A))\nP(a,a)", 3, 1, "has arity '1'"),
        ("A = {a}\ntype(P(A))\nforall X: (P(a))", 3, 8, "Variable(s) 'X' not found in quantification."),
        ("A = {a}\ntype(P(A))\nP(a) => P(a) => P(a)", 3, 14, "chained"),
        ("A = {a}\ntype(P(A))\nP(é)", 3, 3, "illegal character"),
        ("A = {a}\ntype(P(B))", 2, 8, "Sort 'B' has not been declared before."),
        ("A = {a}\ntype(P(A))\n(P(a) && P(a)", 3, 14, "expected ')'"),
    ],
)
def test_errors_have_line_and_column(text: str, line: int, col: int, fragment: str) -> None:
    with pytest.raises(FolSyntaxError) as info:
        parse_belief_set(text, strict=True, source="t.fologic")
    err = info.value
    assert (err.line, err.column) == (line, col), err.located()
    assert fragment in err.message
    assert err.located().startswith(f"t.fologic:{line}:{col}: ")


def test_strict_mode_rejects_wrong_sort_with_position() -> None:
    text = "A = {a}\nB = {b}\ntype(P(A))\nP(b)"
    with pytest.raises(FolSyntaxError) as info:
        parse_belief_set(text, strict=True)
    assert (info.value.line, info.value.column) == (4, 3)
    assert "wrong sort" in info.value.message


def test_uppercase_undeclared_constant_is_a_free_variable_with_warning() -> None:
    rep = parse_report("Humain = {socrate}\ntype(Man(Humain))\nMan(Socrate)")
    f = rep.belief_set.formulas[0]
    assert f == Atom("Man", (Var("Socrate", "Humain"),))
    assert any("free variable" in w and ":3:" in w for w in rep.warnings)


def test_zero_arity_and_constants_true_false() -> None:
    bs = parse_belief_set("A = {a}\ntype(Rain)\ntype(P(A))\nRain => P(a)\n+ && !-")
    assert bs.formulas[0] == Implies(Atom("Rain"), Atom("P", (Const("a"),)))
    assert print_formula(bs.formulas[1]) == "+ && (!-)"


def test_equality_and_precedence() -> None:
    sig = Signature({"A": ["a", "b"]}, {"P": ("A",)}, equality=True)
    f, _ = parse_formula("P(a) || P(b) && !P(a) <=> a == b", sig)
    assert isinstance(f, Iff)
    assert isinstance(f.left, Or) and isinstance(f.left.parts[1], And)
    sig.equality = False
    with pytest.raises(FolSyntaxError, match="Equality/Inequality predicate == is not part"):
        parse_formula("a == b", sig)


# ------------------------------------------------------------------ print∘parse identity (hypothesis)
SORTS = ["Alpha", "Beta"]
CONSTS = {"Alpha": ["a1", "a_2"], "Beta": ["b1"]}
PREDS = {"P": ("Alpha",), "Q": ("Beta",), "R": ("Alpha", "Beta"), "Z": ()}


def formulas(bound: dict[str, str], depth: int):  # type: ignore[no-untyped-def]
    def atom_for(pred: str):  # type: ignore[no-untyped-def]
        choices = []
        for s in PREDS[pred]:
            opts = [st.just(Const(c)) for c in CONSTS[s]] + [st.just(Var(v, s)) for v, vs in bound.items() if vs == s]
            choices.append(st.one_of(*opts))
        return st.tuples(*choices).map(lambda args, p=pred: Atom(p, args))

    base = st.one_of(*[atom_for(p) for p in PREDS])
    if depth == 0:
        return base
    sub = formulas(bound, depth - 1)
    fresh = f"X{len(bound)}"
    quant = st.sampled_from(SORTS).flatmap(
        lambda s: (
            formulas({**bound, fresh: s}, depth - 1)
            .filter(lambda f: _first_use(f, fresh) == s)
            .flatmap(lambda body: st.sampled_from([Forall, Exists]).map(lambda q: q(Var(fresh, s), body)))
        )
    )
    return st.one_of(
        base,
        sub.map(Not),
        st.lists(sub, min_size=2, max_size=3).map(lambda ps: And(tuple(ps))),
        st.lists(sub, min_size=2, max_size=3).map(lambda ps: Or(tuple(ps))),
        st.lists(sub, min_size=2, max_size=2).map(lambda ps: Xor(tuple(ps))),
        st.tuples(sub, sub).map(lambda t: Implies(*t)),
        st.tuples(sub, sub).map(lambda t: Iff(*t)),
        quant,
    )


def _first_use(f, name):  # type: ignore[no-untyped-def]
    from lexlogic.logic.fol.syntax import _first_sort

    return _first_sort(f, name, Signature(dict(CONSTS), dict(PREDS)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(formulas({}, 3), min_size=1, max_size=5))
def test_print_parse_identity(fs) -> None:  # type: ignore[no-untyped-def]
    bs = BeliefSet(signature=Signature({k: list(v) for k, v in CONSTS.items()}, dict(PREDS), equality=True))
    for f in fs:
        bs.add(f)
    text = print_belief_set(bs)
    again = parse_belief_set(text, strict=True)
    assert again.formulas == bs.formulas, text
    assert print_belief_set(again) == text


def test_empty_sort_extension_round_trips() -> None:
    bs = parse_belief_set("Vide = {}\nA = {a}\ntype(P(A))\nP(a)")
    assert bs.signature.sorts["Vide"] == []
    assert "Vide = {}" in print_belief_set(bs)


def test_shared_examples_env_note() -> None:
    assert FIXTURES.joinpath("examplebeliefbase2.fologic").exists()
    assert os.path.getsize(FIXTURES / "examplebeliefbase2.fologic") > 0
