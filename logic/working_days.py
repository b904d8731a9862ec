"""Working days of French law: weekday, the next working day, N working days after a date.

A *working day* here is a day that is neither a Saturday, a Sunday nor a French public holiday (jour férié,
art. L.3133-1 C. trav.): the days on which a deadline may expire (art. 642 CPC: a period ending on a
Saturday, Sunday or public holiday « est prorogé jusqu'au premier jour ouvrable suivant »; art. L.221-19 C.
consom. says the same). Public holidays come from the maintained ``holidays`` library (pinned in
pyproject.toml; its French calendar is dated: each holiday from the year the law made it one), by default
for metropolitan France; ``region`` selects one of its French subdivisions ("57", and "67"/"68" read as its
"6AE": Alsace-Moselle adds Good Friday and 26 December; "971"… overseas departments add their own). Dated
as the library dates it: e.g. Pentecost Monday 2005–2007, worked as the « journée de solidarité » (loi
n° 2004-626), is not a holiday those years.

Counting follows art. 641 CPC as ``calendar`` does: the starting day does not count (*dies a quo*).
Pure functions over dates (the holiday table is data the library computes, cached per region).
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from lexlogic.logic.calendar import CalendarError, to_date

MAX_WORKING_DAYS = 3660  # ten years of working days: a larger count is a mistake in a rule, not law


@lru_cache(maxsize=32)
def _calendar(region: str | None) -> Any:
    import holidays  # ~0.1 s to import: only when a rule counts working days (no shipped pack does at start)

    regions = holidays.France.subdivisions
    if region is not None and region not in regions:
        raise CalendarError(f"unknown French region for public holidays: {region!r} (known: {', '.join(regions)})")
    return holidays.France(subdiv=region)  # type: ignore[no-untyped-call]


_DEPARTMENTS = {"67": "6AE", "68": "6AE"}  # Bas-Rhin, Haut-Rhin: the library's « Alsace » (6AE)


def _region(region: object) -> str | None:
    if region is None or region == "":
        return None
    if not isinstance(region, str | int) or isinstance(region, bool):
        raise CalendarError(f"region: expected a subdivision code such as '57', got {type(region).__name__}")
    return _DEPARTMENTS.get(str(region), str(region))


def weekday(day: object) -> int:
    """ISO weekday: 1 Monday … 7 Sunday."""
    return to_date(day).isoweekday()


def is_public_holiday(day: object, region: object = None) -> bool:
    return to_date(day) in _calendar(_region(region))


def is_working_day(day: object, region: object = None) -> bool:
    """Neither Saturday, Sunday nor a public holiday."""
    d = to_date(day)
    return d.isoweekday() < 6 and d not in _calendar(_region(region))


def next_working_day(day: object, region: object = None) -> date:
    """The first working day strictly after ``day``."""
    return add_working_days(day, 1, region)


def working_day_on_or_after(day: object, region: object = None) -> date:
    """``day`` itself if it is a working day, else the next one (the extension of art. 642 CPC)."""
    d = to_date(day)
    return d if is_working_day(d, region) else next_working_day(d, region)


def add_working_days(day: object, count: object, region: object = None) -> date:
    """The ``count``-th working day after ``day`` (``day`` itself not counted); backward when negative;
    ``count`` 0 is ``day``."""
    if isinstance(count, bool) or not isinstance(count, int | float) or float(count) != int(count):
        raise CalendarError(f"add_working_days: expected a whole number of days, got {count!r}")
    n = int(count)
    if abs(n) > MAX_WORKING_DAYS:
        raise CalendarError(f"add_working_days: {n} working days is beyond {MAX_WORKING_DAYS}")
    d = to_date(day)
    step = timedelta(days=1 if n >= 0 else -1)
    left = abs(n)
    try:
        while left:
            d += step
            if is_working_day(d, region):
                left -= 1
    except OverflowError:
        raise CalendarError("add_working_days: beyond the calendar (years 1 to 9999)") from None
    return d
