"""Date helpers offered to dynamic rules (the only date API a rule sees).

Rules receive dates as ISO strings (facts are JSON); these helpers accept a `date` or an ISO string so
a rule can write ``months_between(facts["relation_start"], facts["notification_date"])`` directly.
There is deliberately no ``today()``: a rule must take its reference date from the facts, so that a
run can be replayed and gives the same answer.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta


def parse_date(value: object) -> date:
    """An ISO date ('2021-03-31', or the date part of an ISO datetime) or a date → a date."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 40:
            raise ValueError("parse_date: not an ISO date (too long)")
        try:
            if len(text) > 10 and text[10] in "T ":
                return datetime.fromisoformat(text).date()
            return date.fromisoformat(text)
        except ValueError:
            raise ValueError(f"parse_date: not an ISO date: {text!r}") from None
    raise TypeError(f"parse_date: expected an ISO date string or a date, got {type(value).__name__}")


def add_days(day: object, days: int) -> date:
    return parse_date(day) + timedelta(days=int(days))


def add_months(day: object, months: int) -> date:
    """Calendar months later (or earlier); the day is clamped to the end of a shorter month."""
    d = parse_date(day)
    index = d.year * 12 + (d.month - 1) + int(months)
    year, month0 = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise ValueError("add_months: date out of range")
    last = calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(d.day, last))


def months_between(start: object, end: object) -> int:
    """Whole calendar months elapsed from `start` to `end` (negative if `end` is earlier).

    A month counts once its anniversary day is reached (31 Jan → 28 Feb is one month, as
    `add_months` clamps), which is how notice periods are counted in practice.
    """
    a, b = parse_date(start), parse_date(end)
    if b < a:
        return -months_between(b, a)
    n = (b.year - a.year) * 12 + (b.month - a.month)
    if add_months(a, n) > b:
        n -= 1
    return n


def years_between(start: object, end: object) -> int:
    """Whole years elapsed (a relation's seniority)."""
    m = months_between(start, end)
    return m // 12 if m >= 0 else -((-m) // 12)


def days_between(start: object, end: object) -> int:
    return (parse_date(end) - parse_date(start)).days


DATE_HELPERS = {
    "date": date,
    "timedelta": timedelta,
    "parse_date": parse_date,
    "add_days": add_days,
    "add_months": add_months,
    "months_between": months_between,
    "years_between": years_between,
    "days_between": days_between,
}
