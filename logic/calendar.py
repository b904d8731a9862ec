"""Calendar arithmetic of the law: the one place where dates become months and months become dates.

JSON-Logic operators (``logic/jsonlogic_policy.py``), the helpers offered to sandboxed dynamic rules
(``sandbox/helpers.py``) and the offline French extractor (``engine/perception/french.py``) all count
here, so the months of notice that decide a case are the same number whichever layer computes them.

The convention is French civil procedure's (art. 640 to 642 of the Code de procédure civile), which
courts also apply to contractual and legal periods expressed in days or months:

* **Days** (art. 641 al. 1): the day of the act, event or notification that starts a period does not
  count (*dies a quo non computatur*); the last day does. A period of ``n`` days from ``d`` therefore
  ends on ``add_days(d, n) = d + n`` (notification on 15 January, 10 days: last day 25 January).
* **Months** (art. 641 al. 2): a period in months runs from a date to the *same date* ("le même
  quantième") of the last month: notification on 15 January, 3 months: last day 15 April. When that
  month has no such day, the period ends on its last day: 31 January + 1 month = 28 (or 29) February.
  ``add_months`` does exactly this (end-of-month clamping), always counted from the starting date, never
  month by month (31 January + 2 months = 31 March, not 28 March).
* **Months and days** (art. 641 al. 3): months first, then days.
* Art. 642 (a period ends on its last day at midnight; one ending on a Saturday, Sunday or public holiday
  is extended to the next working day) is *not* applied: it needs a holiday calendar and sets procedural
  deadlines, while these functions measure durations (a relation's length, a notice's length).

**Fractional months** (``months_between``): the whole months ``n`` such that
``add_months(d, n) <= e < add_months(d, n + 1)``, plus the days left after ``add_months(d, n)`` over the
length in days of that next month, ``add_months(d, n + 1) - add_months(d, n)``. So 15 January → 15 April
is exactly 3, 15 January → 14 April is 2 + 30/31 = 2.9677 (not the 3.0 of days/30.4, nor the 2 of whole
months: both used to coexist here). The result is rounded to 4 decimals; a fraction is k/28 to k/31, so
rounding never reaches the next whole month and ``floor(months_between(d, e))`` is still the number of
whole months (``whole_months_between``). An earlier ``e`` is counted backward from ``d`` ("à rebours", same
rule): ``months_between(d, add_months(d, n)) == n`` for every whole ``n``. Whole months are antisymmetric
when no end-of-month clamping is involved (days up to the 28th); the fraction is not quite, since its
whole months and the denominator are counted from the starting date (15 January → 4 March 2024 is
1 + 18/29 = 1.6207; 4 March → 15 January is -(1 + 20/31) = -1.6452), a difference below 0.11 month.

**"N jours fin de mois"** (payment terms, art. L.441-10 C. com.: "45 jours fin de mois"): practice admits
two readings (DGCCRF and CEPC answers; see e.g. solon.law, "Délais de paiement : comment calculer la
« fin de mois »", 2023): ``days_end_of_month`` counts N days from the date, then goes to the end of that
month (invoice 15 January 2009, 45 days → 1 March → 31 March); ``end_of_month_days`` ("fin de mois N
jours", the reading of the parliamentary debates) goes to the end of the month first, then counts N days
(31 January + 45 days → 17 March). A contract or a pack says which one it means.

Stdlib only: the sandbox worker imports this module and nothing else outside the standard library.
"""

from __future__ import annotations

import calendar as _stdlib_calendar
from datetime import date, datetime, timedelta

from lexlogic.logic.errors import LexlogicError

__all__ = [
    "CalendarError",
    "add_days",
    "add_months",
    "days_between",
    "days_end_of_month",
    "end_of_month",
    "end_of_month_days",
    "months_between",
    "to_date",
    "whole_months_between",
    "whole_years_between",
]

_MAX_DATE_TEXT = 40  # an ISO datetime with offset is 32 characters; refuse anything much longer


class CalendarError(LexlogicError, ValueError):
    """A value that is not a date, a count that is not whole, or a date beyond the calendar (years 1–9999).

    A ``ValueError`` too, so callers that already treat bad values as ``ValueError`` keep working.
    """


def to_date(value: object) -> date:
    """A ``date``, a ``datetime`` (its date) or an ISO string ('2021-03-31', or an ISO datetime) → a date."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        text = value.strip()
        if len(text) > _MAX_DATE_TEXT:
            raise CalendarError("not an ISO date (too long)")
        try:
            if len(text) > 10 and text[10] in "T ":
                return datetime.fromisoformat(text).date()
            return date.fromisoformat(text)
        except ValueError:
            raise CalendarError(f"not an ISO date: {text!r}") from None
    raise CalendarError(f"expected an ISO date string or a date, got {type(value).__name__}")


def _whole(count: object, what: str) -> int:
    """A whole count (an int, or a float with no fraction such as JSON's 3.0); bools are refused."""
    if isinstance(count, bool) or not isinstance(count, int | float):
        raise CalendarError(f"{what}: expected a whole number, got {type(count).__name__}")
    if isinstance(count, float) and not count.is_integer():
        raise CalendarError(f"{what}: {count} is not a whole number")
    return int(count)


def add_days(day: object, days: object) -> date:
    """The last day of a period of ``days`` days starting on ``day`` (the starting day does not count)."""
    d, n = to_date(day), _whole(days, "add_days")
    try:
        return d + timedelta(days=n)
    except OverflowError:
        raise CalendarError(f"add_days: {d.isoformat()} + {n} days is beyond the calendar (years 1 to 9999)") from None


def add_months(day: object, months: object) -> date:
    """Same day ``months`` later (or earlier), clamped to the end of a shorter month (art. 641 al. 2 CPC)."""
    d, n = to_date(day), _whole(months, "add_months")
    year, month0 = divmod(d.year * 12 + (d.month - 1) + n, 12)
    if not 1 <= year <= 9999:
        raise CalendarError(f"add_months: {d.isoformat()} + {n} months is beyond the calendar (years 1 to 9999)")
    last = _stdlib_calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(d.day, last))


def end_of_month(day: object) -> date:
    """The last day of the month of ``day``."""
    d = to_date(day)
    return date(d.year, d.month, _stdlib_calendar.monthrange(d.year, d.month)[1])


def days_end_of_month(day: object, days: object) -> date:
    """« N jours fin de mois »: ``days`` days from ``day``, then the end of that month."""
    return end_of_month(add_days(day, days))


def end_of_month_days(day: object, days: object) -> date:
    """« fin de mois N jours »: the end of the month of ``day``, then ``days`` days more."""
    return add_days(end_of_month(day), days)


def days_between(start: object, end: object) -> int:
    """Days from ``start`` to ``end`` (negative if ``end`` is earlier)."""
    return (to_date(end) - to_date(start)).days


def _split(a: date, b: date) -> tuple[int, int, int]:
    """Counting from ``a`` towards ``b``: (n whole months, days past the n-th month, length of the next one).

    Forward when ``a <= b``, backward ("à rebours") otherwise; lengths are computed by arithmetic because
    the next anniversary may fall outside ``date`` (year 0 or 10000).
    """
    monthrange = _stdlib_calendar.monthrange
    if a <= b:
        n = (b.year - a.year) * 12 + (b.month - a.month)
        if add_months(a, n) > b:
            n -= 1
        anchor = add_months(a, n)
        next_year, next_month0 = divmod(anchor.year * 12 + anchor.month, 12)
        length = (
            monthrange(anchor.year, anchor.month)[1]
            - anchor.day
            + min(a.day, monthrange(next_year, next_month0 + 1)[1])
        )
        return n, (b - anchor).days, length
    n = (a.year - b.year) * 12 + (a.month - b.month)
    if add_months(a, -n) < b:
        n -= 1
    anchor = add_months(a, -n)
    prev_year, prev_month0 = divmod(anchor.year * 12 + anchor.month - 2, 12)
    prev_days = monthrange(prev_year, prev_month0 + 1)[1]
    return n, (anchor - b).days, anchor.day + prev_days - min(a.day, prev_days)


def whole_months_between(start: object, end: object) -> int:
    """Whole calendar months from ``start`` to ``end``: a month counts once its same-date day is reached.

    Counted from ``start`` in either direction (negative when ``end`` is earlier), so it truncates toward
    zero: ``floor(months_between(d, e)) == whole_months_between(d, e)`` when ``d <= e``.
    """
    a, b = to_date(start), to_date(end)
    n = _split(a, b)[0]
    return n if a <= b else -n


def whole_years_between(start: object, end: object) -> int:
    """Whole years from ``start`` to ``end`` (a relation's seniority)."""
    m = whole_months_between(start, end)
    return m // 12 if m >= 0 else -((-m) // 12)


def months_between(start: object, end: object) -> float:
    """Calendar months from ``start`` to ``end``: whole months, then the days left over the next month's length.

    Always counted from ``start`` (backward when ``end`` is earlier), so that
    ``months_between(d, add_months(d, n)) == n`` for every n. See the module docstring for the convention
    (art. 641 CPC) and why rounding to 4 decimals is safe.
    """
    a, b = to_date(start), to_date(end)
    n, past, length = _split(a, b)
    value = round(n + past / length, 4)
    return value if a <= b else -value
