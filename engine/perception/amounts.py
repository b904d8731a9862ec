"""Which sum of a sentence a fact of money takes, by the marks written beside each sum (issue 29).

A fact such as an invoice's amount due is counted on one basis (TTC): a sum marked so is preferred, a sum
marked on the other basis (HT) is never the value by itself, and only when the text gives both the HT sum and
the tax (« TVA … : 850 € ») is their sum the value. The marks are the pack's data (``extraction.yaml``:
``amount_marks``, ``amount_excluded_marks``, ``amount_added``); the engine knows no tax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_RATE = r"(?:\s*(?:de|à)?\s*\d+(?:[,.]\d+)?\s*%)?"


@dataclass(frozen=True)
class Sum:
    """One sum of money written in the text: where, and its value in euros."""

    start: int
    end: int
    value: float


def _word(mark: str) -> str:
    body = re.escape(mark.lower()).replace(r"\ ", r"\s+")
    return (r"(?<!\w)" if mark[:1].isalnum() else "") + body + (r"(?!\w)" if mark[-1:].isalnum() else "")


def marked(text: str, s: Sum, marks: list[str]) -> bool:
    """The sum is written with one of ``marks``: inside its own match or just after it (« 5 100 € TTC »), or
    just before it, a rate and a colon allowed between (« total TTC : », « TVA 20 % : »)."""
    if not marks:
        return False
    low = text.lower()
    words = "|".join(_word(m) for m in marks)
    if re.search(rf"(?:{words})\s*$", low[s.start : s.end]) or re.match(rf"\s*\(?(?:{words})", low[s.end :]):
        return True
    before = low[max(0, s.start - 40) : s.start]
    return bool(re.search(rf"(?:{words}){_RATE}\s*(?::|=|de|d'un\s+montant\s+de|soit)?\s*$", before))


def on_basis(text: str, sums: list[Sum], marks: list[str], excluded: list[str], added: list[str]) -> list[Sum]:
    """The sums that can be the fact's value: those marked on its basis when there are any; else, when the
    text gives a sum on the other basis AND the tax beside it, their sum (one per pair, in order); else the
    unmarked sums. Never a sum on the other basis alone, nor the tax alone."""
    if not (marks or excluded or added):
        return sums
    good = [s for s in sums if marked(text, s, marks)]
    if good:
        return good
    other = [s for s in sums if marked(text, s, excluded)]
    tax = [s for s in sums if marked(text, s, added) and s not in other]
    if other and tax:
        pairs = [(o, min(tax, key=lambda t: abs(t.start - o.end))) for o in other]
        return [Sum(o.start, max(o.end, t.end), round(o.value + t.value, 2)) for o, t in pairs[:1]]
    return [s for s in sums if s not in other and s not in tax]


def _word_amount_rx() -> re.Pattern[str]:
    from lexlogic.engine.text.numbers import NUMBER_WORDS

    word = "|".join(
        sorted((re.escape(w) for w in NUMBER_WORDS if w not in ("zero", "un", "une")), key=len, reverse=True)
    )
    word = rf"(?:{word}|un|une)"
    return re.compile(rf"(?<!\w)((?:{word})(?:[- ](?:et[- ])?(?:{word}))*)\s+(?:d')?euros?\b", re.IGNORECASE)


_WORDS_RX: list[re.Pattern[str]] = []


def in_words(text: str, start: int, end: int) -> list[Sum]:
    """Sums written in words (« huit mille quatre cents euros »): a lawyer writes the figure out in full."""
    from lexlogic.engine.text.numbers import number_from_words

    if not _WORDS_RX:
        _WORDS_RX.append(_word_amount_rx())
    out = []
    for m in _WORDS_RX[0].finditer(text, start, end):
        value = number_from_words(m.group(1))
        if value is not None and value >= 2:
            out.append(Sum(m.start(), m.end(), value))
    return out
