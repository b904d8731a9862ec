"""French text primitives for the offline extractor: dates, number words, durations, amounts.

Regexes tolerate line breaks inside a phrase (PDF and OCR wrap lines anywhere).
"""

from __future__ import annotations

import re
from datetime import date

from lexlogic.engine.text.numbers import MONTHS, NUMBER_WORDS, parse_number

# Distances between two dates read in a letter (« du 31 mars au 1er juillet ») use the one calendar
# convention (art. 641 CPC, lexlogic.logic.calendar), not days/30.4: the extractor's month counts are
# then the number the pack's own computations would give.
from lexlogic.logic.calendar import months_between as months_between

NUMBERS = {**NUMBER_WORDS, **{"dix-sept": 17, "dix-huit": 18, "dix-neuf": 19, "vingt-quatre": 24, "trente-six": 36}}
NUMBER_WORD = "|".join(sorted(NUMBERS, key=len, reverse=True))

DATE_RE = re.compile(
    r"\b(?P<d>[0-3]?\d)(?:er)?\s+(?P<m>" + "|".join(MONTHS) + r")\s+(?P<y>(?:19|20)\d\d)\b"
    r"|\b(?P<d2>[0-3]?\d)/(?P<m2>[01]?\d)/(?P<y2>(?:19|20)\d\d)\b",
    re.IGNORECASE,
)

DATE_TEXT = re.sub(r"\(\?P<\w+>", "(?:", DATE_RE.pattern)  # same pattern, no groups (to embed)

UNIT = r"(?:mois|ans?|années?|semaines?|jours?)"
NUM = r"(?:\d+(?:[.,]\d+)?|" + NUMBER_WORD + r")(?:\s*\(\d+\))?"  # « six (6) mois »

DURATION_RE = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)?|" + NUMBER_WORD + r"|d'un|d'une)(?:\s*\(\d+\))?\s+(?P<unit>mois|ans?|années?|"
    r"semaines?|jours?)\b",
    re.IGNORECASE,
)


def duration_after(lead: str) -> re.Pattern[str]:
    """A length written after a phrase (``lead``, a regex: « préavis ») — « préavis écrit de trois mois »,
    « préavis d'un an », « délai d'une durée d'au moins six (6) mois »."""
    return re.compile(
        r"(?:" + lead + r")\s+(?:(?:écrit|contractuel|minimum|minimal|raisonnable)\s+)?"
        r"(?:de|d'une\s+durée\s+(?:de|d'au\s+moins)|d'au\s+moins|minimum\s+de)\s+(?P<dur>"
        + NUM
        + r"\s+"
        + UNIT
        + r")|(?:"
        + lead
        + r")\s+d'(?P<one>un\s+(?:mois|an)|une\s+année)",
        re.IGNORECASE,
    )


def expand(pattern: str) -> str:
    """A pack's pattern with the shared placeholders filled: ``{DATE}`` a French date (« 4 mars 2013 »)."""
    return pattern.replace("{DATE}", DATE_TEXT)


def ws(pattern: str) -> str:
    """A literal phrase as a regex where any whitespace run matches spaces or line breaks."""
    return r"\s+".join(re.escape(part) for part in pattern.split())


def parse_date(m: re.Match[str] | None) -> date | None:
    """The date a DATE_RE match spells (« 3 février 2022 », « 03/02/2022 »); None if no match or no such day."""
    if m is None:
        return None
    try:
        if m.group("d"):
            return date(int(m.group("y")), MONTHS[m.group("m").lower()], int(m.group("d")))
        return date(int(m.group("y2")), int(m.group("m2")), int(m.group("d2")))
    except ValueError:
        return None


def number(word: str) -> float | None:
    """The count of a duration: « d'un » / « d'une » are one, else the toolkit's number (digits or words)."""
    word = word.lower().strip()
    return 1.0 if word in ("d'un", "d'une") else parse_number(word)


def duration_months(text: str) -> float | None:
    """« trois mois » → 3, « un an » → 12, « six semaines » → 1.4 (weeks are rounded to 0.1 month).

    A length without dates: days and weeks become months at an average 30.4 days a month. When both ends
    are dated, measure with ``months_between`` (lexlogic.logic.calendar) instead.
    """
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
    if unit.startswith("jour"):
        return round(n / 30.4, 1)
    return n * 12


# --- sentences, negation, hypotheticals ---------------------------------------------------------------
_ABBREV = re.compile(r"(?:\b[A-Z]|\bart|\bcf|\bMe|\bMM|\bn°|\bp|\bal|\bcom|\bciv)\.$", re.IGNORECASE)
_BLOCK_START = re.compile(r"\s*(?:#+\s|Article\s|ARTICLE\s|\d+(?:\.\d+)+\.?\s|[-*•]\s|>)")
_HEADING = re.compile(r"\s*(?:#+\s|Article\s+\S+\s+[–—-]|ARTICLE\s)")


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans of ``text[start:end]``: split at . ! ? before a capital, at blank lines, and at line
    starts that open a block (heading, clause number, bullet). Offsets are those of ``text``."""
    end = len(text) if end is None else end
    cuts = {start, end}
    for m in re.finditer(r"[.!?](?=\s+[«\"(A-ZÀ-Ý0-9])", text[start:end]):
        if not _ABBREV.search(text[max(start, start + m.start() - 4) : start + m.end()]):
            cuts.add(start + m.end())
    for m in re.finditer(r"\n[ \t]*\n", text[start:end]):
        cuts.add(start + m.end())
    pos = start
    for line in text[start:end].split("\n"):
        if _BLOCK_START.match(line):
            cuts.add(pos)
        if _HEADING.match(line) and not line.rstrip().endswith((".", ",", ";", ":")):
            cuts.add(pos + len(line) + 1)
        pos += len(line) + 1
    bounds = sorted(c for c in cuts if start <= c <= end)
    out = []
    for s, e in zip(bounds, bounds[1:]):
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


_CLAUSE_CUT = re.compile(
    r";|\s:\s|,\s+(?=(?:alors\s+que|mais|car|tandis\s+que|bien\s+que|puisque)\b)|\s—\s", re.IGNORECASE
)
_NE = re.compile(r"\b(?:ne|n')(?=\s|\w|')", re.IGNORECASE)
_NEG2 = re.compile(r"\b(?:pas|jamais|plus|aucun|aucune|point|nullement|guère|rien|ni)\b", re.IGNORECASE)
_NEG_BEFORE = re.compile(
    r"(?:\b(?:aucun|aucune|sans|nul|nulle|non|ni)|\babsence\s+d[e']|\bpas\s+d[e'])\s*"
    r"(?:[\w'’-]+\s+){0,3}$",
    re.IGNORECASE,
)  # no punctuation in between
# After a subject cue, only a denial of its existence or effect bears on it (« la clause … n'est pas
# applicable »), not one on the object (« le contrat-cadre ne comporte aucune exclusivité »).
_SUBJECT_DENIED = re.compile(
    r"^\W*(?:[\w'’-]+\s+){0,4}?(?:ne\s+|n')(?:est|sont|sera|seront|serait|était|étaient|a\s+"
    r"(?:pas\s+|jamais\s+)?été|existe|existent|figure|figurent|s'applique|s'appliquent|"
    r"lie|vaut|fut)\b",
    re.IGNORECASE,
)


def clause_of(text: str, s: int, e: int, cue_s: int, cue_e: int) -> tuple[int, int]:
    """The clause (cut at ; « : » and « , alors que / mais / car … ») of sentence [s, e) holding the cue."""
    cs, ce = s, e
    for m in _CLAUSE_CUT.finditer(text, s, e):
        if m.end() <= cue_s:
            cs = m.end()
        elif m.start() >= cue_e:
            ce = min(ce, m.start())
            break
    return cs, ce


def negated(text: str, s: int, e: int, cue_s: int, cue_e: int) -> bool:
    """Is the cue [cue_s, cue_e) denied in its clause? (« ne … pas / jamais / aucun », « aucun(e) X »,
    « sans X », « absence de X », « pas de X »). Negation words inside the cue itself are ignored, so a cue
    such as « ne pas renouveler » is not read as its own denial."""
    cs, ce = clause_of(text, s, e, cue_s, cue_e)
    before, after = text[cs:cue_s], text[cue_e:ce]
    if _NE.search(before) and _NEG2.search(before + " " + after):
        return True
    if _NE.search(after) and _NEG2.search(after) and _SUBJECT_DENIED.match(after):
        return True
    return bool(_NEG_BEFORE.search(text[max(cs, cue_s - 40) : cue_s]))


_NOT_CONDITIONAL = {"trait", "portrait", "retrait", "extrait", "attrait", "abstrait", "distrait", "frais", "vrais"}
HYPOTHETICAL_RE = re.compile(
    r"\b(?:si|s'ils?|à\s+défaut|en\s+cas\s+d[e']|au\s+cas\s+où|le\s+cas\s+échéant|éventuel\w*|envisag\w*|"
    r"pourr\w+|susceptibles?)\b|\b\w{2,}(?:rais|rait|rions|riez|raient)\b",
    re.IGNORECASE,
)


def hypothetical(sentence: str) -> bool:
    """A conditional, a threat or a mere plan (« si … », « nous pourrions », « accorderions »), not an act."""
    return any(m.group(0).lower() not in _NOT_CONDITIONAL for m in HYPOTHETICAL_RE.finditer(sentence))
