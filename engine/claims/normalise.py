"""One spelling for numbers and dates, applied to claims AND passages before indexing and judging.

A lawyer writes "trois cent quatre-vingt mille euros", the note "380 000 € HT"; an e-mail header says
"Fri, 15 Mar 2024", a letter "15 mars 2024", a claim "le quinze mars 2024". Lexical search and the
judge only meet if both sides are rewritten the same way: numbers in words become digits (text2num),
digit groups lose their separators, "pour cent" becomes "%", and dates in other formats become
"<day> <mois> <year>" (the RFC 2822 headers of e-mails included). Numbers in words are the text toolkit's
(``engine.text.numbers.digits``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from lexlogic.engine.text.numbers import MONTH_NAMES, digits

MONTHS_FR = list(MONTH_NAMES)
_ABBR = {
    "janv": 1,
    "févr": 2,
    "fevr": 2,
    "avr": 4,
    "juil": 7,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "déc": 12,
    "dec": 12,
}
_RX_RFC = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s+(\d{1,2})\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+(\d{4})"
    r"(?:\s+(\d{2}):(\d{2})(?::\d{2})?(?:\s+[+-]\d{4})?)?"
)
_EN = {m: i + 1 for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
_RX_NUMDATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")
_RX_ABBR = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_ABBR) + r")\.?\s+(\d{4})\b", re.IGNORECASE)
_RX_GROUPS = re.compile(r"(?<![\d,.])(\d{1,3})(?:[  .](\d{3}))+(?![\d])")
_RX_DECIMAL_ZERO = re.compile(r"\b(\d+)[.,]00\b")
_RX_PERCENT = re.compile(r"\b(\d+(?:[.,]\d+)?)\s*(?:pour\s*(?:cent|100)|%)")
_RX_SCALE = re.compile(r"\b(\d+(?:[.,]\d+)?)\s+(million|milliard)s?\b")
_RX_HALF = re.compile(r"\b(\d*000000)\s+et\s+demi\b")
_APPROX = {"dizaine": 10, "douzaine": 12, "quinzaine": 15, "vingtaine": 20, "trentaine": 30, "quarantaine": 40}
_APPROX |= {"cinquantaine": 50, "soixantaine": 60, "centaine": 100}
_RX_APPROX = re.compile(r"\b(?:une|1)\s+(" + "|".join(_APPROX) + r")\b(?:\s+de\s+|\s+d'|\s*)", re.IGNORECASE)
_RX_WRAP = re.compile(r"[ \t]*\n[ \t]*")
_RX_TABLE = re.compile(r"^[^\n]*;[^\n]*;", re.M)  # CSV rows keep their lines
# a lawyer's double spelling: "onze (11) ans", "quinze juin 2024 (15/06/2024)", "28 % (vingt-huit pour cent)"
_RX_ECHO = re.compile(r"\s*\(([\d\s.,/%€]*(?:[a-zéû]+\s*)?(?:\d{4})?|\d[^()]{0,40})\)")


def _date(day: int, month: int, year: int) -> str:
    return f"{day} {MONTHS_FR[month - 1]} {year}" if 1 <= month <= 12 else f"{day}/{month}/{year}"


def _rfc(m: re.Match[str]) -> str:
    out = _date(int(m.group(1)), _EN[m.group(2)], int(m.group(3)))
    return out + (f" à {m.group(4)}h{m.group(5)}" if m.group(4) else "")


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The canonical spelling of ``text`` (same length is NOT kept: use it for matching, not for spans)."""
    t = unicodedata.normalize("NFC", text).replace("’", "'").replace("\u202f", " ").replace("\xa0", " ")
    if "\n" in t and not _RX_TABLE.search(t):  # a line wrapped by a PDF or OCR: « mise en\ndemeure »
        t = _RX_WRAP.sub(" ", t)
    t = _RX_RFC.sub(_rfc, t)
    t = _RX_NUMDATE.sub(lambda m: _date(int(m.group(1)), int(m.group(2)), int(m.group(3))), t)
    t = _RX_ABBR.sub(lambda m: _date(int(m.group(1)), _ABBR[m.group(2).lower()], int(m.group(3))), t)
    # text2num reads "un" as 1 everywhere; keep the article in "l'un", "d'un" fixed phrases readable
    t = _RX_APPROX.sub(lambda m: f"environ {_APPROX[m.group(1).lower()]} ", t)  # « une vingtaine de » ≈ 20
    t = _RX_SCALE.sub(_scaled, t)  # « 1,54 million » (text2num would write « 1,54 1000000 »)
    t = digits(t, threshold=0)
    t = _RX_SCALE.sub(_scaled, t)
    t = _RX_HALF.sub(lambda m: str(int(m.group(1)) * 3 // 2), t)  # « un million et demi »
    t = re.sub(r"\b1 er\b", "1er", t)
    t = _RX_GROUPS.sub(lambda m: m.group(0).replace(" ", "").replace(" ", "").replace(".", ""), t)
    t = _RX_DECIMAL_ZERO.sub(r"\1", t)
    t = _RX_PERCENT.sub(lambda m: f"{m.group(1)} %", t)
    return _RX_ECHO.sub(_echo, t) if "(" in t else t


def _scaled(m: re.Match[str]) -> str:
    value = float(m.group(1).replace(",", ".")) * (1e6 if m.group(2).lower().startswith("million") else 1e9)
    return str(round(value))


def _echo(m: re.Match[str]) -> str:
    """Drop a parenthesis that only repeats the number(s) just before it (kept otherwise: "(article 7.1)")."""
    inside = re.findall(r"\d+(?:[.,]\d+)?", m.group(1))
    before = set(re.findall(r"\d+(?:[.,]\d+)?", m.string[max(0, m.start() - 40) : m.start()]))
    return "" if inside and all(n.lstrip("0") in {b.lstrip("0") for b in before} for n in inside) else m.group(0)
