"""Working-day operators: weekday, next working day, N working days after, French public holidays.

Oracle: the list of art. L.3133-1 C. trav. (eleven holidays), Easter by the anonymous Gregorian computus
(Meeus/Jones/Butcher), written here without the `holidays` library.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from lexlogic.logic import working_days as wd
from lexlogic.logic.calendar import CalendarError
from lexlogic.logic.jsonlogic_policy import evaluate


def _easter(year: int) -> date:
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month = (h + l_ - 7 * m + 114) // 31
    day = (h + l_ - 7 * m + 114) % 31 + 1
    return date(year, month, day)


def _french_holidays(year: int) -> set[date]:
    easter = _easter(year)
    fixed = [(1, 1), (5, 1), (5, 8), (7, 14), (8, 15), (11, 1), (11, 11), (12, 25)]
    movable = [easter + timedelta(days=n) for n in (1, 39, 50)]  # Easter Monday, Ascension, Pentecost Monday
    if 2005 <= year <= 2007:  # loi n° 2004-626: Pentecost Monday worked as the « journée de solidarité »,
        movable.pop()  # the `holidays` calendar (dated) does not count it those years; loi n° 2008-351 ends it
    return {date(year, m, d) for m, d in fixed} | set(movable)


def test_public_holidays_match_the_labour_code_list_2000_2035() -> None:
    day = date(2000, 1, 1)
    while day.year <= 2035:
        expected = day in _french_holidays(day.year)
        assert wd.is_public_holiday(day) is expected, day
        assert wd.is_working_day(day) is (not expected and day.isoweekday() < 6), day
        day += timedelta(days=1)


def test_add_working_days_against_a_day_by_day_count() -> None:
    def oracle(start: date, n: int) -> date:
        d, left = start, n
        while left:
            d += timedelta(days=1)
            if d.isoweekday() < 6 and d not in _french_holidays(d.year):
                left -= 1
        return d

    start = date(2023, 12, 20)
    for offset in range(0, 400, 3):
        s = start + timedelta(days=offset)
        for n in (0, 1, 2, 5, 10, 23):
            assert wd.add_working_days(s, n) == oracle(s, n), (s, n)


def test_known_dates() -> None:
    assert wd.weekday("2024-07-14") == 7  # a Sunday
    assert wd.next_working_day("2024-12-27") == date(2024, 12, 30)  # Friday → Monday
    assert wd.next_working_day("2024-12-31") == date(2025, 1, 2)  # over New Year's Day
    assert wd.add_working_days("2024-04-26", 3) == date(2024, 5, 2)  # over the weekend and 1 May
    assert wd.add_working_days("2024-05-02", -3) == date(2024, 4, 26)  # backward
    assert wd.working_day_on_or_after("2024-07-14") == date(2024, 7, 15)  # art. 642 CPC extension
    assert wd.working_day_on_or_after("2024-07-16") == date(2024, 7, 16)
    # Alsace-Moselle: Good Friday and 26 December are public holidays there, not elsewhere
    assert wd.is_working_day("2025-04-18") and not wd.is_working_day("2025-04-18", "57")
    assert wd.next_working_day("2025-12-24", "67") == date(2025, 12, 29)
    assert wd.next_working_day("2025-12-24") == date(2025, 12, 26)


def test_json_logic_operators() -> None:
    data = {"notified": "2024-04-26", "region": "57"}
    assert evaluate({"weekday": [{"var": "notified"}]}, data) == 5
    assert evaluate({"add_working_days": [{"var": "notified"}, 3]}, data) == "2024-05-02"
    assert evaluate({"next_working_day": ["2024-12-31"]}, data) == "2025-01-02"
    assert evaluate({"working_day_on_or_after": ["2025-04-18", {"var": "region"}]}, data) == "2025-04-22"
    assert evaluate({"is_working_day": ["2024-05-08"]}, data) is False
    assert evaluate({"is_public_holiday": ["2024-05-20"]}, data) is True  # Pentecost Monday


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wd.add_working_days("2024-01-01", 1.5), "whole number"),
        (lambda: wd.add_working_days("2024-01-01", 10**6), "beyond"),
        (lambda: wd.is_working_day("2024-01-01", "99"), "unknown French region"),
        (lambda: wd.weekday("not a date"), "not an ISO date"),
    ],
)
def test_bad_input_is_a_calendar_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CalendarError, match=message):
        call()
