"""Quantities with a kind and a role, read from normalised text (see ``normalise``).

A quantity is only comparable with another of the same kind (date, duration, amount, percent, count)
AND the same role (``data/roles.yaml``): "cinq jours de retard" is a lateness, "trois mois" of notice a
notice. The comparator ("plus de", "moins de", "environ") travels with the claim's value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path

from lexlogic.engine.claims.normalise import MONTHS_FR, normalise
from lexlogic.engine.text.amounts import scale
from lexlogic.engine.text.fold import fold
from lexlogic.logic import yaml_load

ROLES_FILE = Path(__file__).parent / "data" / "roles.yaml"
_MON = "|".join(fold(m) for m in MONTHS_FR)
_MONTH_NUM = {fold(m): i + 1 for i, m in enumerate(MONTHS_FR)}
_UNIT_DAYS = {
    "heure": 1 / 24,
    "jour": 1.0,
    "semaine": 7.0,
    "mois": 30.4375,
    "an": 365.25,
    "annee": 365.25,
    "exercice": 365.25,
}
_NUM = r"(\d+(?:[.,]\d+)?|un|une|d'un|d'une)"
RX_DATE = re.compile(
    rf"\b(1er|\d{{1,2}})\s+({_MON})(?:\s+(\d{{4}}))?(?:\s+a\s+(\d{{1,2}})h(\d{{2}}))?|\b({_MON})\s+(\d{{4}})\b"
)
RX_DURATION = re.compile(rf"{_NUM}\s+(heures?|jours?|semaines?|mois|ans|an|annees?|exercices?)\b(?!\s+\d{{4}})")
RX_AMOUNT = re.compile(r"(\d+(?:[.,]\d+)?)\s*(k|millions?|milliards?)?\s*(?:d')?\s*(€|euros?|eur\b)(?:\s*(ht|ttc)\b)?")
RX_PERCENT = re.compile(r"(\d+(?:[.,]\d+)?)\s*%")
RX_COUNT = re.compile(r"\b(\d+)\s+(?:de\s+|des\s+)?([a-z][a-z-]{3,})")
RX_BARE = re.compile(
    r"(?:s'eleve\w*|atteint|atteignent|totalis\w*|est de|sont de|etait de|a ete de|se monte\w*|inferieur\w*|"
    r"superieur\w*|depass\w*|s'etablit|s'etablissent|au nombre de)\s+(?:a\s+|de\s+)?(\d+)\b(?!\s*(?:%|€|euros?|eur\b|ans?\b|"
    r"annees?|mois|jours?|heures?|semaines?|\d))"
)
RX_YEAR = re.compile(r"\b(?:en|depuis|annee|exercice|de)\s+(19[5-9]\d|20[0-4]\d)\b")
_CMP = [  # « pas plus de », « n'a pas dépassé »: the « < » phrases are tried first
    (
        "<",
        re.compile(
            r"(moins de|inferieur\w* a|pas plus de|au plus|a peine|en deca de|n'excede\w* pas|en dessous de"
            r"|sous la barre (?:de|des)|n'(?:atteint|atteign\w*) pas|n'(?:a|ont|avait|avaient) pas atteint"
            r"|ne depass\w* pas|n'(?:a|ont|avait|avaient) pas depasse)\s*$"
        ),
    ),
    (">", re.compile(r"(plus de|au moins|depass\w*|superieur\w* a|excede\w*|plus que|au-dela de|passe de)\s*$")),
    ("~", re.compile(r"(environ|quelque|pres de|avoisin\w*|de l'ordre de|approximativement|autour de|en gros)\s*$")),
]
NOT_COUNT_NOUNS = {"jour", "mois", "an", "ans", "annee", "heure", "semaine", "euro", "exercice", "dernier", "premier"}


@lru_cache(maxsize=1)
def lexicon() -> dict[str, dict[str, list[str]]]:
    return yaml_load.safe_load(ROLES_FILE.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Quantity:
    kind: str  # date | duration | amount | percent | count
    value: float  # date: ordinal day (+ fraction for a time); duration: days; others: the number
    role: str  # from roles.yaml, "" when no cue is near
    cmp: str = "="  # = > < ~
    precision: str = ""  # date: day | month | year ; amount: ht | ttc | ""
    noun: str = ""  # count: the counted noun
    year: int | None = None  # the year the quantity is about (amounts, counts: "en 2019")
    start: int = 0

    def describe(self) -> str:
        v = self.value
        if self.kind == "date":
            d = date.fromordinal(int(v))
            if self.precision == "year":
                return str(d.year)
            return d.isoformat() if self.precision == "day" else f"{d.year}-{d.month:02d}"
        if self.kind == "duration":
            return f"{v:.0f} j" if v < 60 else f"{v / 30.4375:.1f} mois"
        sym = {"amount": " €", "percent": " %"}.get(self.kind, "")
        return f"{v:g}{sym}"


def _num(raw: str) -> float:
    return 1.0 if raw in ("un", "une", "d'un", "d'une") else float(raw.replace(",", "."))


def role_of(kind: str, f: str, start: int, end: int, window: int = 70, right_weight: float = 1.0) -> str:
    """Nearest cue of ``kind`` around [start, end) in folded text ``f`` (cues after it count ``right_weight``×);
    when none is that near, the nearest in the whole sentence."""
    best = _role_near(kind, f, start, end, window, right_weight)
    if not best and kind != "event":
        best = _role_near(kind, f, start, end, max(len(f), 1), right_weight)
    if kind == "amount" and best == "revenue" and _MARGIN_OF_SALES.search(re.split(r"[;:]|\bet\b", f[:start])[-1]):
        best = "margin"  # « la marge brute tirée des ventes … 800 000 € »: the sales are the margin's complement
    return best


_MARGIN_OF_SALES = re.compile(r"\bmarges?\b[^;:]{0,30}\b(?:tire|realise|degage|genere|issu)e?s? (?:des|de|sur|par)\b")


def _role_near(kind: str, f: str, start: int, end: int, window: int, right_weight: float) -> str:
    best, dist = "", float(10**9)
    left, right = f[max(0, start - window) : start], f[end : end + window // 2]
    for role, cues in lexicon().get(kind, {}).items():
        for cue in cues:
            i = left.rfind(cue)
            if i >= 0 and len(left) - i < dist:
                best, dist = role, len(left) - i
            j = right.find(cue)
            if j >= 0 and j * right_weight + 3 < dist:  # a following cue ("12 commandes ... de retard")
                best, dist = role, j * right_weight + 3
    return best


_END_OF = re.compile(r"(jusqu'(?:au|a|en)|au plus tard le|soit le|d'ici (?:le|au)|avant le|a l'issue)\s*(le\s+)?$")


_OF_DOCUMENT = re.compile(
    r"\b(lettre|courrier|courriel|e-mail|mail|message|ecrit|acte|telecopie)\s+(?:\w+\s+){0,2}(du|en date du)\s*$"
)


# « à compter du 1er janvier 2015 » starts what the sentence's subject is: an agreement (a contract, a
# relation) when the clause names one and no price or notice, which « à compter du » also starts.
_FROM_DATE = re.compile(r"\ba compter d(?:u|e la date du|e)\s*(?:le\s+)?$")
_AGREEMENT = re.compile(r"\b(contrat|convention|accord|relation|partenariat|collaboration|referencement)")
_NOT_AGREEMENT = re.compile(r"\b(prix|tarif|remise|baisse|hausse|preavis|prevenance|delai|resili|ruptur|penalit)")


def starts_agreement(f: str, start: int) -> bool:
    """The date at ``start`` follows « à compter du » in a clause whose subject is an agreement."""
    if not _FROM_DATE.search(f[max(0, start - 30) : start]):
        return False
    clause = re.split(r"[.;:]\s", f[:start])[-1]
    return bool(_AGREEMENT.search(clause)) and not _NOT_AGREEMENT.search(clause)


def event_of_date(f: str, q: Quantity) -> str:
    """The event a date dates, in folded text ``f``: the nearest event cue; "depuis" a start, and « à compter
    du » when it starts an agreement; "jusqu'au", "soit le", "au plus tard le" the end of a notice."""
    before = f[max(0, q.start - 20) : q.start]
    if re.search(r"depuis\s*(le\s+)?(mois de\s+)?(l'annee\s+)?$", before) or starts_agreement(f, q.start):
        return "contract_start"
    if _END_OF.search(before):
        return "notice_end"
    if _OF_DOCUMENT.search(f[max(0, q.start - 40) : q.start]) or re.search(r"\bdatee?s? (du|le)\s*$", before):
        # "par lettre du 12 mars", "la lettre est datée du": the date of a document, which does an act
        return "doc:" + role_of("event", f, q.start, q.start + 4, window=max(len(f), 1), right_weight=1.0)
    return role_of("event", f, q.start, q.start + 4, window=80, right_weight=2.0)


def _cmp(f: str, start: int) -> str:
    return comparator(f, start)[0]


def comparator(f: str, start: int) -> tuple[str, int]:
    """The comparator written just before a quantity at ``start`` of folded text ``f``, and where its phrase
    starts (a negation inside it, « n'atteint pas », is its meaning, not a denial of the claim)."""
    before = f[max(0, start - 25) : start]
    for sym, rx in _CMP:
        m = rx.search(before)
        if m:
            return sym, max(0, start - 25) + m.start()
    return "=", start


def _year_near(f: str, start: int, end: int) -> int | None:
    ys = [(abs(m.start() - start), int(m.group(1))) for m in RX_YEAR.finditer(f)]
    return min(ys)[1] if ys else None


# A year alone dates only a start (« a débuté en 2013 », « depuis 2013 »): elsewhere it is the year a figure
# is about (« en 2016, cinquante et une commandes »), not a date.
RX_START_YEAR = re.compile(
    r"\b(?:en|depuis|des|courant|a partir de|au cours de)\s+(?:l'annee\s+)?(19[5-9]\d|20[0-4]\d)\b"
)


_START_WORDS = re.compile(
    r"\b(?:debut\w*|commenc\w*|demarr\w*|depuis|(?:prend|pris|prise d') ?effet|entree?s? en vigueur|noue\w*)"
)


def _start_years(f: str, free: Callable[[int, int], bool], taken: list[tuple[int, int]]) -> list[Quantity]:
    """Year-precision dates (1 January of the year, compared at year precision) of a start the sentence
    words (« a débuté », « depuis », « pris effet »), not of any act near a start-like word."""
    out = []
    for m in RX_START_YEAR.finditer(f):
        sentence = re.split(r"[.;:]\s", f[: m.start()])[-1] + f[m.start() :].split(". ")[0]
        if not free(*m.span(1)) or not _START_WORDS.search(sentence):
            continue
        q = Quantity("date", datetime(int(m.group(1)), 1, 1).toordinal(), "", precision="year", start=m.start(1))
        if event_of_date(f, q) == "contract_start":
            out.append(q)
            taken.append(m.span(1))
    return out


@lru_cache(maxsize=65536)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity of ``text`` (any spelling: it is normalised first)."""
    f = fold(normalise(text))
    out: list[Quantity] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    for m in RX_DATE.finditer(f):
        if m.group(2):
            day = 1 if m.group(1) == "1er" else int(m.group(1))
            month, year = _MONTH_NUM[m.group(2)], m.group(3)
            if year is None:
                continue  # "15 juin" without a year: not comparable
            try:
                d = datetime(int(year), month, day)
            except ValueError:
                continue
            frac = (int(m.group(4)) * 60 + int(m.group(5))) / 1440 if m.group(4) else 0.0
            out.append(Quantity("date", d.toordinal() + frac, "", precision="day", start=m.start()))
        else:
            d = datetime(int(m.group(7)), _MONTH_NUM[m.group(6)], 1)
            out.append(Quantity("date", d.toordinal(), "", precision="month", start=m.start()))
        taken.append(m.span())
    out += _start_years(f, free, taken)
    for m in RX_AMOUNT.finditer(f):
        if not free(*m.span()):
            continue
        v = _num(m.group(1)) * scale(m.group(2))
        out.append(
            Quantity(
                "amount",
                v,
                role_of("amount", f, m.start(), m.end()),
                _cmp(f, m.start()),
                precision=m.group(4) or "",
                year=_year_near(f, m.start(), m.end()),
                start=m.start(),
            )
        )
        taken.append(m.span())
    for m in RX_PERCENT.finditer(f):
        if not free(*m.span()):
            continue
        out.append(
            Quantity(
                "percent",
                _num(m.group(1)),
                role_of("percent", f, m.start(), m.end()),
                _cmp(f, m.start()),
                year=_year_near(f, m.start(), m.end()),
                start=m.start(),
            )
        )
        taken.append(m.span())
    for m in RX_DURATION.finditer(f):
        if not free(*m.span()):
            continue
        unit = m.group(2).rstrip("s") if m.group(2) != "mois" else "mois"
        unit = "an" if unit in ("an", "ans") else unit
        days = _num(m.group(1)) * _UNIT_DAYS.get(unit, 1.0)
        out.append(
            Quantity("duration", days, role_of("duration", f, m.start(), m.end()), _cmp(f, m.start()), start=m.start())
        )
        taken.append(m.span())
    for m in RX_COUNT.finditer(f):
        if not free(*m.span()):
            continue
        noun = m.group(2)
        n = noun.rstrip("s")
        if n in NOT_COUNT_NOUNS or n in _MONTH_NUM or noun in ("heures", "jours"):
            continue
        if 1900 <= int(m.group(1)) <= 2100:
            continue  # a year
        if int(m.group(1)) == 1:
            continue  # mostly the article "un"/"une" read as a number
        role = role_of("count", f, m.start(), m.end())
        own = next((r for r, cues in lexicon()["count"].items() if any(noun.startswith(c) for c in cues)), "")
        late = re.search(r"retard|tardi", f[m.end() : m.end() + 60])
        role = "late_orders" if late and own == "orders" else (own or f"n:{n[:5]}")
        out.append(
            Quantity(
                "count",
                float(m.group(1)),
                role,
                _cmp(f, m.start()),
                noun=n[:7],
                year=_year_near(f, m.start(), m.end()),
                start=m.start(),
            )
        )
    for m in RX_BARE.finditer(f):  # "le cumul des commandes s'élève à 104": the noun comes before
        if not free(*m.span(1)) or 1900 <= int(m.group(1)) <= 2100:
            continue
        role = role_of("count", f, m.start(1), m.end(1), window=max(len(f), 1))
        if role:
            out.append(
                Quantity(
                    "count",
                    float(m.group(1)),
                    role,
                    _cmp(f, m.start(1)),
                    year=_year_near(f, m.start(1), m.end(1)),
                    start=m.start(1),
                )
            )
    return tuple(sorted(out, key=lambda q: q.start))


def agrees(claim: Quantity, doc_value: float, kind: str) -> bool:
    """Does a document's exact value satisfy the claim's (value, comparator)? A comparator prefixed with
    "!" is the claim's own under a negation (« n'était pas de trois mois », « n'a jamais dépassé 52 »)."""
    if claim.cmp.startswith("!"):
        return not agrees(replace(claim, cmp=claim.cmp[1:] or "="), doc_value, kind)
    c = claim.value
    if claim.cmp == ">":
        return doc_value > c * (1 - 1e-9)
    if claim.cmp == "<":
        return doc_value < c * (1 + 1e-9)
    if kind == "date":
        a, b = date.fromordinal(int(c)), date.fromordinal(int(doc_value))
        if claim.precision == "year":
            return a.year == b.year
        if claim.precision == "month":
            return (a.year, a.month) == (b.year, b.month)
        return a == b
    if kind == "duration":
        tol = 0.1 if claim.cmp == "~" else 0.04
        return abs(doc_value - c) <= max(tol * max(c, 1), 0.5)
    tol = 0.03 if claim.cmp == "~" else 0.005
    return abs(doc_value - c) <= tol * max(abs(c), 1e-9) + 1e-9
