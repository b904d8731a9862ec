"""Issue 19, third session: three ways a false claim was judged VERIFIED on a blind transfer set (a place in a
slot when the claim's date agrees, a date that only names a piece, « n'atteint pas » read as a denial). The
claims below are written for these tests, in other words than the transfer set's."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.normalise import normalise
from lexlogic.engine.claims.quantities import comparator, role_of
from lexlogic.engine.text.fold import fold


def _status(shipped, claim: str) -> str:  # type: ignore[no-untyped-def]
    from lexlogic.engine.claims.judge_reading import ReadingJudge
    from lexlogic.engine.claims.verify import verify_all

    (result,) = verify_all(shipped, [claim], k=10, judge=ReadingJudge())
    return str(result.judged.value)


def test_the_date_agrees_but_the_court_is_another(shipped) -> None:  # type: ignore[no-untyped-def]
    claim = (
        "Le 12 septembre 2024, la biscuiterie a fait assigner l'enseigne devant le tribunal de commerce de Marseille."
    )
    assert _status(shipped, claim) == "CONTRADICTED"


@pytest.mark.parametrize(
    "claim",
    [
        "La lettre recommandée du 18 mars 2024 comporte en annexe l'historique des commandes.",  # VERIFIED before
        "Le courriel du 15 mars 2024 a été envoyé en copie au médiateur des relations commerciales.",
    ],
)
def test_a_date_that_names_the_piece_verifies_nothing_about_it(shipped, claim: str) -> None:  # type: ignore[no-untyped-def]
    assert _status(shipped, claim) != "VERIFIED"


def test_a_negated_threshold_is_a_comparator_not_a_denial(shipped) -> None:  # type: ignore[no-untyped-def]
    # 2023: margin 450 800 € (the order history)
    assert _status(
        shipped, "En 2023, la marge brute réalisée sur les ventes à l'enseigne n'a pas atteint 400 000 euros."
    ) == ("CONTRADICTED")
    assert _status(
        shipped, "En 2023, la marge brute réalisée sur les ventes à l'enseigne n'a pas atteint 500 000 euros."
    ) != ("CONTRADICTED")


@pytest.mark.parametrize(
    "text,sym",
    [
        ("la marge n'atteint pas 800000 euros", "<"),
        ("les ventes n'ont pas depasse 500000 euros", "<"),
        ("le chiffre est reste sous la barre des 100000 euros", "<"),
        ("un preavis de plus de 3 mois", ">"),
        ("un preavis de 3 mois", "="),
    ],
)
def test_comparators(text: str, sym: str) -> None:
    start = next(i for i, ch in enumerate(text) if ch.isdigit())
    got, at = comparator(text, start)
    assert got == sym and at <= start


def test_the_margin_drawn_from_sales_is_a_margin() -> None:
    f = fold(normalise("la marge brute tirée des ventes à l'enseigne n'atteint pas 800 000 euros"))
    start = next(i for i, ch in enumerate(f) if ch.isdigit())
    assert role_of("amount", f, start, start + 6) == "margin"
    g = fold(normalise("les ventes à l'enseigne ont atteint 800 000 euros"))
    s2 = next(i for i, ch in enumerate(g) if ch.isdigit())
    assert role_of("amount", g, s2, s2 + 6) == "revenue"
