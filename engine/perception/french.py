"""French text primitives for the offline extractor: dates, number words, durations, amounts.

Regexes tolerate line breaks inside a phrase (PDF and OCR wrap lines anywhere).
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date

MONTHS = {"janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6,
          "juillet": 7, "août": 8, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11,
          "décembre": 12, "decembre": 12}
NUMBERS = {"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
           "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14,
           "quinze": 15, "seize": 16, "dix-sept": 17, "dix-huit": 18, "dix-neuf": 19, "vingt": 20,
           "vingt-quatre": 24, "trente": 30, "trente-six": 36}
NUMBER_WORD = "|".join(sorted(NUMBERS, key=len, reverse=True))

DATE_RE = re.compile(
    r"\b(?P<d>[0-3]?\d)(?:er)?\s+(?P<m>" + "|".join(MONTHS) + r")\s+(?P<y>(?:19|20)\d\d)\b"
    r"|\b(?P<d2>[0-3]?\d)/(?P<m2>[01]?\d)/(?P<y2>(?:19|20)\d\d)\b", re.IGNORECASE)

DATE_TEXT = re.sub(r"\(\?P<\w+>", "(?:", DATE_RE.pattern)  # same pattern, no groups (to embed)

DURATION_RE = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)?|" + NUMBER_WORD + r"|d'un|d'une)\s+(?P<unit>mois|ans?|années?|semaines?)\b",
    re.IGNORECASE)

NOTICE_RE = re.compile(
    r"préavis\s+(?:écrit\s+)?(?:de|d'une\s+durée\s+de)\s+(?P<dur>(?:\d+(?:[.,]\d+)?|" + NUMBER_WORD +
    r")\s+(?:mois|ans?|années?|semaines?))|préavis\s+d'(?P<one>un\s+(?:mois|an)|une\s+année)", re.IGNORECASE)


def ws(pattern: str) -> str:
    """A literal phrase as a regex where any whitespace run matches spaces or line breaks."""
    return r"\s+".join(re.escape(part) for part in pattern.split())


def fold(s: str) -> str:
    """Lower-case, accents removed, only letters and digits: for matching names across documents."""
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "", s)


def parse_date(m: re.Match[str]) -> date | None:
    try:
        if m.group("d"):
            return date(int(m.group("y")), MONTHS[m.group("m").lower()], int(m.group("d")))
        return date(int(m.group("y2")), int(m.group("m2")), int(m.group("d2")))
    except ValueError:
        return None


def number(word: str) -> float | None:
    word = word.lower().strip()
    if word in ("d'un", "d'une"):
        return 1.0
    if word in NUMBERS:
        return float(NUMBERS[word])
    try:
        return float(word.replace(",", "."))
    except ValueError:
        return None


def duration_months(text: str) -> float | None:
    """« trois mois » → 3, « un an » → 12, « six semaines » → 1.4 (weeks are rounded to 0.1 month)."""
    text = " ".join(text.split())
    m = DURATION_RE.search(text)
    if m is None:
        one = re.search(r"\bun\s+(mois|an)\b|\bune\s+année\b", text, re.IGNORECASE)
        if not one:
            return None
        return 1.0 if (one.group(1) or "").lower() == "mois" else 12.0
    n = number(m.group("num"))
    if n is None:
        return None
    unit = m.group("unit").lower()
    if unit.startswith("mois"):
        return n
    if unit.startswith("semaine"):
        return round(n * 7 / 30.4, 1)
    return n * 12


def parse_amount(s: str) -> float | None:
    """« 1 480 000,00 € » or « 1480000.00 » → 1480000.0."""
    s = s.replace("\u202f", " ").replace("\xa0", " ").replace("€", "").strip()
    s = s.replace(" ", "")
    if re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?", s):
        s = s.replace(".", "")
    s = s.replace(",", ".")
    try:
        return float(s)
    except ValueError:
        return None
