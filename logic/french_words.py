"""French words for months and numbers, and the reading of a number written in words.

One table for every reader (perception, claim verification, benchmarks): the month names with and without
their accents (« février » / « fevrier »: folded text has none), and the number words from which any number
a lawyer writes in words is composed (« quatre-vingt-dix », « deux cent mille »).
"""

from __future__ import annotations

import re

MONTH_NAMES = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
_UNACCENTED = {"février": "fevrier", "août": "aout", "décembre": "decembre"}
MONTHS: dict[str, int] = {}
for _i, _name in enumerate(MONTH_NAMES, start=1):
    MONTHS[_name] = _i
    if _name in _UNACCENTED:
        MONTHS[_UNACCENTED[_name]] = _i

_UNITS = ("zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize").split()
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)}
NUMBER_WORDS.update(
    {
        "une": 1,
        "vingt": 20,
        "vingts": 20,
        "trente": 30,
        "quarante": 40,
        "cinquante": 50,
        "soixante": 60,
        "cent": 100,
        "cents": 100,
        "mille": 1000,
    }
)


def number_from_words(raw: str) -> float | None:
    """« quatre-vingt-dix » → 90, « deux cent mille » → 200000; None when a word is not a number word."""
    words = [w for w in re.split(r"[- ]", raw.strip().lower()) if w and w != "et"]
    if not words or any(w not in NUMBER_WORDS for w in words):
        return None
    total, current = 0, 0
    for w in words:
        v = NUMBER_WORDS[w]
        if v == 100:
            current = (current or 1) * 100
        elif v == 1000:
            total += (current or 1) * 1000
            current = 0
        elif v == 20 and current % 100 == 4:  # quatre-vingt(s)
            current = current - 4 + 80
        else:
            current += v
    return float(total + current)
