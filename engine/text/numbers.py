"""French words for months and numbers, and the reading of a number written in words.

One table for every reader (perception, claim verification, benchmarks): the month names with and without
their accents (« février » / « fevrier »: folded text has none), and the number words from which any number
a lawyer writes in words is composed (« quatre-vingt-dix », « deux cent mille »).
"""

from __future__ import annotations

import re
from functools import lru_cache

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


_DOTTED_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?")
_PLAIN = re.compile(r"[-+]?\d+(?:\.\d*)?")  # « 2010. » closes a sentence


def parse_number(raw: str) -> float | None:
    """A number as a French document writes it: « 1 480 000,00 », « 1.480.000 », « 1480000.00 », « 12,5 »,
    « quatre-vingt-dix »; a euro sign is ignored. None when ``raw`` is not one number."""
    text = raw.replace("\u202f", " ").replace("\xa0", " ").replace("€", "").strip()
    compact = text.replace(" ", "")
    if _DOTTED_THOUSANDS.fullmatch(compact):
        compact = compact.replace(".", "")
    compact = compact.replace(",", ".")
    if _PLAIN.fullmatch(compact):
        return float(compact)
    return number_from_words(text)


@lru_cache(maxsize=2048)
def digits(text: str, threshold: float = 3) -> str:
    """Numbers written in words become digits, same meaning (« trois mois » → « 3 mois »; text2num). Numbers
    below ``threshold`` stay words (« un » is an article more often than a count); 0 rewrites them all."""
    from text_to_num import alpha2digit

    return str(alpha2digit(text, "fr", threshold=threshold))


def number_word(word: str) -> float | None:
    """One number, in digits or in (unfolded) words (text2num: « vingt-cinq », « dix-huit »); None otherwise."""
    w = word.lower().replace("\u202f", "").replace("\xa0", "").replace(" ", "")
    if re.fullmatch(r"\d+(?:[.,]\d+)?", w):
        return float(w.replace(",", "."))
    special = {"un": 1, "une": 1, "deux": 2, "demi": 0.5, "quinze": 15, "dix-huit": 18, "douze": 12}
    if w in special:
        return float(special[w])
    try:
        from text_to_num import text2num

        return float(text2num(w, "fr"))
    except ValueError:
        return None
