"""dateparser, reading one French date expression (« 3 février 2022 », « mars 2021 », « il y a deux ans »).

One parser per anchor (the document's date, which relative expressions count from), built lazily; calls are
serialised by a lock (dateparser keeps mutable caches and is not documented as thread-safe).
"""

from __future__ import annotations

import threading
from datetime import date, datetime
from functools import lru_cache
from typing import Any

_lock = threading.Lock()


@lru_cache(maxsize=4)
def _parser(anchor: date | None) -> Any:
    from dateparser.date import DateDataParser

    settings: dict[str, Any] = {"PREFER_DAY_OF_MONTH": "first", "PREFER_DATES_FROM": "past"}
    if anchor is not None:
        settings["RELATIVE_BASE"] = datetime(anchor.year, anchor.month, anchor.day)
    return DateDataParser(languages=["fr"], settings=settings)


def read_french_date(text: str, anchor: date | None = None) -> tuple[date, str] | None:
    """The day ``text`` names and the period dateparser reports ("day", "month" or "year"); None if none."""
    with _lock:
        data = _parser(anchor).get_date_data(text)
    if data is None or data.date_obj is None:
        return None
    day: date = data.date_obj.date()
    return day, str(data.period or "day")
