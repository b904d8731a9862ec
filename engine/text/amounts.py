"""Amounts of money: a number and its scale word (« 1,5 million », « 420 k€ », « 2 Md€ »)."""

from __future__ import annotations

from lexlogic.engine.text.numbers import parse_number


def scale(word: str | None) -> float:
    """The factor a scale word stands for: million(s)/M, milliard(s)/Md, millier(s)/k; 1 for none."""
    w = (word or "").strip().lower()
    if w.startswith("milliard") or w == "md":
        return 1e9
    if w.startswith("million") or w == "m":
        return 1e6
    if w.startswith("millier") or w == "k":
        return 1e3
    return 1.0


def amount(number: str, scale_word: str | None = None) -> float | None:
    """« 1,5 » + « millions » → 1500000.0; None when ``number`` is not a number."""
    value = parse_number(number)
    return None if value is None else value * scale(scale_word)
