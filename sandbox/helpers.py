"""Date helpers offered to dynamic rules (the only date API a rule sees).

They are lexlogic.logic.calendar's functions (one convention for JSON-Logic, rules and perception: art.
641 CPC, documented there), under the names rules use. Rules receive dates as ISO strings (facts are
JSON); the helpers accept a `date` or an ISO string so a rule can write
``months_between(facts["relation_start"], facts["notification_date"])`` directly: fractional calendar
months (2.9677 from 15 January to 14 April), while ``whole_months_between`` and ``years_between`` count
completed months and years. There is deliberately no ``today()``: a rule must take its reference date from
the facts, so that a run can be replayed and gives the same answer.

The sandbox worker imports this module; lexlogic.logic.calendar is stdlib-only, so the worker still loads
nothing outside the standard library, RestrictedPython and lexlogic.
"""

from __future__ import annotations

from datetime import date, timedelta

from lexlogic.logic.calendar import (
    add_days,
    add_months,
    days_between,
    days_end_of_month,
    end_of_month,
    end_of_month_days,
    months_between,
    whole_months_between,
    whole_years_between,
)
from lexlogic.logic.calendar import to_date as parse_date
from lexlogic.logic.calendar import whole_years_between as years_between

__all__ = [
    "DATE_HELPERS",
    "add_days",
    "add_months",
    "days_between",
    "days_end_of_month",
    "end_of_month",
    "end_of_month_days",
    "months_between",
    "parse_date",
    "whole_months_between",
    "years_between",
]

DATE_HELPERS = {
    "date": date,
    "timedelta": timedelta,
    "parse_date": parse_date,
    "add_days": add_days,
    "add_months": add_months,
    "end_of_month": end_of_month,
    "days_end_of_month": days_end_of_month,
    "end_of_month_days": end_of_month_days,
    "months_between": months_between,
    "whole_months_between": whole_months_between,
    "years_between": whole_years_between,
    "days_between": days_between,
}
