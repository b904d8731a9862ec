"""Per-semester rates of the late-payment pack against an independent oracle.

The oracle walks the delay day by day with its own table of rates (typed again here from the ECB's and the
arrêtés' published values, not read from parameters.yaml) and adds each day's interest; the pack splits the
delay with ``period_sum`` over its dated parameters. They share no code: a wrong semester boundary, an
off-by-one on the first day of delay or a missing period shows as a difference of more than a cent.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.engine.text import formatting
from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.facts import parse_case
from tests.support.packs import pack_by_name

# ECB main refinancing rate in force on 1 January / 1 July, (year, semester) → %
ECB = {
    (2013, 1): 0.75, (2013, 2): 0.50, (2014, 1): 0.25, (2014, 2): 0.15, (2015, 1): 0.05, (2015, 2): 0.05,
    (2016, 1): 0.05, **{(y, s): 0.0 for y in range(2016, 2023) for s in (1, 2) if (y, s) != (2016, 1)},
    (2023, 1): 2.50, (2023, 2): 4.00, (2024, 1): 4.50, (2024, 2): 4.25, (2025, 1): 3.15, (2025, 2): 2.15,
    (2026, 1): 2.15,
}  # fmt: skip
# legal interest rate, professional creditors, from 2015 (per semester)
TIL = dict(zip(
    [(y, s) for y in range(2015, 2027) for s in (1, 2)][:23],
    [0.93, 0.99, 1.01, 0.93, 0.90, 0.90, 0.89, 0.88, 0.86, 0.87, 0.87, 0.84, 0.79, 0.76, 0.76, 0.77,
     2.06, 4.22, 5.07, 4.92, 3.71, 2.76, 2.62],
    strict=True,
))  # fmt: skip


def _semester(d: date) -> tuple[int, int]:
    return (d.year, 1 if d.month <= 6 else 2)


def oracle(due: date, paid: date, amount: float, contractual: float | None) -> float:
    """Σ over each day of delay (day after the due date to the payment day) of amount × rate / 365."""
    total, day = 0.0, due + timedelta(days=1)
    while day <= paid:
        key = _semester(day)
        rate = ECB[key] + 10 if contractual is None else max(contractual, 3 * TIL[key])
        total += amount * rate / 100 / 365
        day += timedelta(days=1)
    return round(total, 2)


@pytest.fixture(scope="module")
def pack():  # type: ignore[no-untyped-def]
    return pack_by_name("late_payment")


def _penalties(pack, invoice: date, term: int, paid: date, amount: float, contractual: float | None) -> float:  # type: ignore[no-untyped-def]
    facts = {
        "professional_parties": True, "invoice_date": invoice.isoformat(), "delivery_date": invoice.isoformat(),
        "amount_outstanding": amount, "agreed_term_kind": "days_from_invoice", "agreed_term_days": term,
        "paid": True, "payment_date": paid.isoformat(),
    }  # fmt: skip
    if contractual is not None:
        facts |= {"penalty_clause": True, "contractual_penalty_rate_pct": contractual}
    rp, program = pack
    values = analyse(rp, program, parse_case({"pack": "late_payment", "case_id": "o", "facts": facts}, rp)).values
    assert values["penalties"].known, values["penalties"]
    return float(values["penalties"].value)


def test_random_delays_match_the_day_by_day_oracle(pack) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(31)
    crossing = 0
    for _ in range(40):
        invoice = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 4000))
        term = rng.choice([0, 30, 45, 60])
        due = invoice + timedelta(days=term)
        paid = due + timedelta(days=rng.randrange(1, 700))
        if paid > date(2026, 6, 30):
            continue
        amount = rng.choice([1000.0, 12_345.67, 250_000.0])
        contractual = rng.choice([None, None, 5.0, 12.0])
        crossing += _semester(due + timedelta(days=1)) != _semester(paid)
        assert _penalties(pack, invoice, term, paid, amount, contractual) == pytest.approx(
            oracle(due, paid, amount, contractual), abs=0.011
        ), (invoice, term, paid, amount, contractual)
    assert crossing >= 10  # the draw does exercise delays across 1 January / 1 July


def test_one_rate_for_the_whole_delay_would_differ(pack) -> None:  # type: ignore[no-untyped-def]
    """The case of the issue: 30 days across 1 July 2024 — split 118,22 €, single first-semester rate 119,18 €."""
    got = _penalties(pack, date(2024, 5, 15), 30, date(2024, 7, 14), 10_000.0, None)
    assert got == 118.22 == oracle(date(2024, 6, 14), date(2024, 7, 14), 10_000.0, None)
    assert got != round(10_000 * 14.5 * 30 / 36_500, 2)


def test_period_sum_refuses_uncovered_days() -> None:
    table = [["2024-01-01", "2024-06-30", 4.5], ["2024-07-01", "2024-12-31", 4.25]]
    assert jsonlogic_policy.period_sum(table, "2024-06-30", "2024-07-01") == 8.75
    assert jsonlogic_policy.period_sum(table, "2024-12-31", "2025-01-01") is None  # no value in force
    assert jsonlogic_policy.period_sum(table, "2024-03-02", "2024-03-01") == 0.0
    assert jsonlogic_policy.period_sum(table, "2024-06-30", "2024-07-01", 4.4) == 4.5 + 4.4


def test_percentages_keep_two_decimals() -> None:
    assert formatting.percent(14.25).replace("\u202f", " ").replace("\xa0", " ") == "14,25 %"
    assert formatting.percent(14.5).replace("\u202f", " ").replace("\xa0", " ") == "14,5 %"
    assert formatting.prose(14.25) == "14,25"  # the penalties' sentence (was « 14,2 »)


def test_years_preceding_a_date() -> None:
    by_year = {"2017": 100.0, "2018": 200.0, "2019": 300.0, "2020": 5.0, "2021": 5.0, "2022": 5.0}
    assert jsonlogic_policy.last_years_mean(by_year, 3) == 5.0
    assert jsonlogic_policy.last_years_mean(by_year, 3, "2020-06-15") == 200.0
    assert jsonlogic_policy.last_years_mean(by_year, 3, "2017-03-01") is None
