"""French dates read in a text: their exact span, the interval they cover and its precision.

The regular expression finds where a date is written; dateparser (``bridges.dates``, the one place it is
called) reads what it means, relative expressions anchored on the document's date, month/year precision kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from lexlogic.bridges.dates import read_french_date
from lexlogic.engine.text.numbers import MONTHS as MONTH_TABLE
from lexlogic.logic.calendar import add_months, end_of_month
from lexlogic.logic.facts import DateInterval, DatePrecision

MONTHS = "|".join(MONTH_TABLE)  # with and without accents
DATE_SPAN_RE = re.compile(
    r"\b(?P<day>(?:1er|[0-3]?\d))\s+(?P<m1>" + MONTHS + r")\s+(?P<y1>(?:19|20)\d\d)\b"
    r"|\b(?P<num>[0-3]?\d[/.-][01]?\d[/.-](?:19|20)\d\d)\b"
    r"|\b(?P<m2>" + MONTHS + r")\s+(?P<y2>(?:19|20)\d\d)\b"
    r"|\b(?P<y3>(?:19|20)\d\d)\b"
    r"|\b(?P<day4>(?:1er|[0-3]?\d))\s+(?P<m4>" + MONTHS + r")\b(?!\s+(?:19|20)\d\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateFound:
    """A date read in the text: its span, the interval it covers and its precision."""

    start: int
    end: int
    interval: DateInterval

    @property
    def precision(self) -> DatePrecision:
        return self.interval.precision

    @property
    def value(self) -> date:
        """The ISO value the logic reads: the day, or the middle of a month/year (shown with its interval)."""
        iv = self.interval
        return iv.start + (iv.end - iv.start) / 2


def interval_of(day: date, precision: DatePrecision) -> DateInterval:
    if precision is DatePrecision.YEAR:
        return DateInterval(start=date(day.year, 1, 1), end=date(day.year, 12, 31), precision=precision)
    if precision is DatePrecision.MONTH:
        first = date(day.year, day.month, 1)
        return DateInterval(start=first, end=end_of_month(first), precision=precision)
    return DateInterval(start=day, end=day, precision=precision)


def read_date(text: str, anchor: date | None = None) -> DateInterval | None:
    """One French date expression → its interval (dateparser; the period it reports is the precision)."""
    read = read_french_date(text.replace("1er", "1"), anchor)
    if read is None:
        return None
    day, period_name = read
    period = {"year": DatePrecision.YEAR, "month": DatePrecision.MONTH}.get(period_name, DatePrecision.DAY)
    if re.fullmatch(r"\s*(?:19|20)\d\d\s*", text):
        period = DatePrecision.YEAR
    return interval_of(day, period)


def dates_in(text: str, start: int, end: int, anchor: date | None = None) -> list[DateFound]:
    """Every date expression in ``text[start:end]`` with its exact span. A day without a year takes the
    anchor's year (the document's date)."""
    out: list[DateFound] = []
    for m in DATE_SPAN_RE.finditer(text, start, end):
        expr = m.group(0)
        if m.group("y3") and _not_a_year(text, m.start(), m.end()):
            continue
        if m.group("day4"):
            if anchor is None:
                continue
            expr = f"{expr} {anchor.year}"
        iv = read_date(expr, anchor)
        if iv is not None and 1900 <= iv.start.year <= 2100:
            out.append(DateFound(m.start(), m.end(), iv))
    return out


def _not_a_year(text: str, s: int, e: int) -> bool:
    """« 2 000 unités », « 2019 € », an article number: digits that are not a year."""
    before, after = text[max(0, s - 12) : s], text[e : e + 6]
    if re.search(r"\d[\s  ]?$", before) or re.match(r"[\s  ]?(?:\d|€|euros|%|unités|pièces|tonnes|k)", after):
        return True
    return bool(re.search(r"(?:article|art\.|n°|l\.|d\.)\s*$", before, re.IGNORECASE))


def years_ago(anchor: date, years: int) -> DateInterval:
    return interval_of(add_months(anchor, -12 * years), DatePrecision.YEAR)
