"""The one calendar (lexlogic.logic.calendar): its laws, checked by hypothesis, and the worked examples of
its docstring (art. 641 CPC; "N jours fin de mois")."""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.calendar import (
    CalendarError,
    add_days,
    add_months,
    days_between,
    days_end_of_month,
    end_of_month,
    end_of_month_days,
    months_between,
    to_date,
    whole_months_between,
    whole_years_between,
)
from lexlogic.logic.errors import LexlogicError

DATES = st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31))
SPANS = st.integers(min_value=0, max_value=40 * 366)
MONTHS = st.integers(min_value=-600, max_value=600)


# ------------------------------------------------------------------------------ worked examples


def test_the_issue_example_has_one_answer_everywhere() -> None:
    """15 January → 14 April: 2.97 (JSON-Logic), 2 (sandbox) and 3.0 (perception) used to disagree."""
    from lexlogic.engine.perception import french
    from lexlogic.sandbox import helpers

    expected = 2 + 30 / 31
    assert months_between("2024-01-15", "2024-04-14") == round(expected, 4) == 2.9677
    assert jsonlogic_policy.evaluate({"months_between": ["2024-01-15", "2024-04-14"]}, {}) == 2.9677
    assert helpers.months_between("2024-01-15", "2024-04-14") == 2.9677
    assert french.months_between(date(2024, 1, 15), date(2024, 4, 14)) == 2.9677
    assert whole_months_between("2024-01-15", "2024-04-14") == 2


def test_a_month_runs_from_date_to_same_date_art_641_cpc() -> None:
    assert add_months("2024-01-15", 3) == date(2024, 4, 15)
    assert months_between("2024-01-15", "2024-04-15") == 3
    # no same date in the last month: its last day
    assert add_months("2023-01-31", 1) == date(2023, 2, 28)
    assert add_months("2024-01-31", 1) == date(2024, 2, 29)
    # counted from the starting date, never month by month
    assert add_months("2024-01-31", 2) == date(2024, 3, 31)
    assert add_months("2024-03-31", -1) == date(2024, 2, 29)
    # the fraction is over the length of the month that follows the last whole month
    assert months_between("2024-01-31", "2024-02-15") == round(15 / 29, 4)
    assert months_between("2023-03-31", "2023-07-01") == round(3 + 1 / 31, 4)


def test_days_do_not_count_the_starting_day() -> None:
    assert add_days("2024-01-15", 10) == date(2024, 1, 25)
    assert add_days("2020-12-31", 1) == date(2021, 1, 1)
    assert days_between("2020-01-01", "2021-01-01") == 366


def test_n_jours_fin_de_mois_both_readings() -> None:
    # invoice of 15 January 2009, "45 jours fin de mois": 45 days (1 March), then the end of that month
    assert days_end_of_month("2009-01-15", 45) == date(2009, 3, 31)
    # "fin de mois 45 jours": end of January first, then 45 days
    assert end_of_month_days("2009-01-15", 45) == date(2009, 3, 17)
    assert end_of_month("2024-02-10") == date(2024, 2, 29)


def test_json_logic_operators_return_iso_dates() -> None:
    ev = jsonlogic_policy.evaluate
    assert ev({"add_months": ["2024-01-31", 1]}, {}) == "2024-02-29"
    assert ev({"add_days": ["2024-01-31", 1]}, {}) == "2024-02-01"
    assert ev({"end_of_month": ["2024-02-01"]}, {}) == "2024-02-29"
    assert ev({"days_end_of_month": ["2009-01-15", 45]}, {}) == "2009-03-31"
    assert ev({"end_of_month_days": ["2009-01-15", 45]}, {}) == "2009-03-17"


def test_years_and_iso_datetimes() -> None:
    assert whole_years_between("2012-03-01", "2021-02-28") == 8
    assert whole_years_between("2021-02-28", "2012-03-01") == -8
    assert to_date("2021-06-15T10:00:00+02:00") == date(2021, 6, 15)


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: add_months("9999-12-31", 1), "beyond the calendar"),
        (lambda: add_months("0001-01-01", -1), "beyond the calendar"),
        (lambda: add_days("9999-12-31", 1), "beyond the calendar"),
        (lambda: add_days("0001-01-01", -1), "beyond the calendar"),
        (lambda: days_end_of_month("9999-12-31", 1), "beyond the calendar"),
        (lambda: add_months("2024-01-15", 1.5), "not a whole number"),
        (lambda: add_months("2024-01-15", True), "expected a whole number"),
        (lambda: add_months("15/01/2024", 1), "not an ISO date: '15/01/2024'"),
        (lambda: months_between(20240115, "2024-01-15"), "got int"),
        (lambda: to_date("2024-01-15" * 10), "too long"),
    ],
)
def test_errors_are_calendar_errors_never_overflow(call, message: str) -> None:
    with pytest.raises(CalendarError, match=message) as info:
        call()
    assert isinstance(info.value, LexlogicError) and isinstance(info.value, ValueError)
    assert info.value.exit_code == 2 and info.value.status == 422


def test_whole_floats_are_months() -> None:
    assert add_months("2024-01-15", 3.0) == date(2024, 4, 15)


def test_months_between_works_up_to_the_last_date() -> None:
    assert months_between("9999-12-01", "9999-12-31") == round(30 / 31, 4)
    assert months_between("0001-01-01", "9999-12-31") == whole_months_between("0001-01-01", "9999-12-31") + round(
        30 / 31, 4
    )


# ------------------------------------------------------------------------------ laws (hypothesis)


@settings(max_examples=300, deadline=None)
@given(DATES, SPANS)
def test_floor_of_months_between_lands_on_or_before_the_end(start: date, days: int) -> None:
    end = start + timedelta(days=days)
    m = months_between(start, end)
    n = math.floor(m)
    assert n == whole_months_between(start, end)
    assert add_months(start, n) <= end < add_months(start, n + 1)


@settings(max_examples=300, deadline=None)
@given(DATES, st.integers(min_value=-40 * 366, max_value=40 * 366), st.integers(min_value=1, max_value=400))
def test_months_between_is_monotone_in_the_end(start: date, days: int, more: int) -> None:
    end = start + timedelta(days=days)
    later = end + timedelta(days=more)
    assert months_between(start, end) < months_between(start, later)
    assert months_between(end, later) > 0


@settings(max_examples=300, deadline=None)
@given(DATES, SPANS)
def test_counting_backward_brackets_the_earlier_date(start: date, days: int) -> None:
    earlier = start - timedelta(days=days)
    m = months_between(start, earlier)
    assert add_months(start, math.floor(m)) <= earlier <= add_months(start, math.ceil(m))


@settings(max_examples=300, deadline=None)
@given(DATES, MONTHS)
def test_adding_n_months_is_exactly_n_months(start: date, n: int) -> None:
    assert months_between(start, add_months(start, n)) == n


@settings(max_examples=300, deadline=None)
@given(DATES, DATES)
def test_months_between_is_antisymmetric_and_close_to_days(a: date, b: date) -> None:
    if a.day <= 28 and b.day <= 28:  # no end-of-month clamping: whole months agree from either end
        assert whole_months_between(a, b) == -whole_months_between(b, a)
    # the fraction's denominator is the month next to the starting date: 28 to 31 days, from either end
    assert abs(months_between(a, b) + months_between(b, a)) <= 30 / 28 - 30 / 31 + 1e-4
    assert (months_between(a, b) < 0) == (b < a)
    # a month is 28 to 31 days: the fractional count never strays from days / 30.44 by more than ~3 %
    days = abs(days_between(a, b))
    assert days / 31 - 1 <= abs(months_between(a, b)) <= days / 28 + 1


@settings(max_examples=300, deadline=None)
@given(DATES, MONTHS)
def test_end_of_month_behaviour(start: date, n: int) -> None:
    shifted = add_months(start, n)
    # same date when the target month has it, its last day otherwise
    assert shifted.day == min(start.day, end_of_month(shifted).day)
    assert (shifted.year * 12 + shifted.month) - (start.year * 12 + start.month) == n
    # a 31st always lands on the last day of the target month (and a 30th, unless it is a 31-day month)
    if start.day == 31 or (start.day >= end_of_month(shifted).day):
        assert shifted == end_of_month(shifted)
    eom = end_of_month(start)
    assert eom.month == start.month and eom >= start and add_days(eom, 1).day == 1


@settings(max_examples=300, deadline=None)
@given(DATES, st.integers(min_value=0, max_value=120))
def test_n_jours_fin_de_mois_laws(start: date, n: int) -> None:
    first = days_end_of_month(start, n)  # N jours, fin de mois
    second = end_of_month_days(start, n)  # fin de mois, N jours
    assert first == end_of_month(first) and first >= add_days(start, n)
    assert days_between(add_days(start, n), first) < 31
    assert days_between(end_of_month(start), second) == n
    assert second >= add_days(start, n)


# ------------------------------------------------------------------------------ one definition


def test_the_calendar_is_stdlib_only() -> None:
    """The sandbox worker imports it: it must pull in nothing beyond the standard library and lexlogic."""
    code = (
        "import sys; before = set(sys.modules); import lexlogic.logic.calendar; "
        "new = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "print(sorted(m for m in new if m != 'lexlogic' and m not in sys.stdlib_module_names))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
