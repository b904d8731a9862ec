"""What a French legal claim turns on, read from one sentence: dates, durations, amounts, percentages,
counts, parties, negation, modality, and the content words (crudely stemmed) that say what it is about.

Why hand-written and small: the offline judge must compare a claim with a memory on exactly these
points (a similar-looking sentence with another date or amount is NOT evidence), deterministically and
fast (hundreds of verifications per second), with no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from lexlogic.engine.text.amounts import amount
from lexlogic.engine.text.fold import fold
from lexlogic.engine.text.numbers import MONTHS as ALL_MONTHS
from lexlogic.engine.text.numbers import NUMBER_WORDS, parse_number
from lexlogic.engine.text.stopwords import CLAIM_STOPWORDS

MONTHS = {m: n for m, n in ALL_MONTHS.items() if m.isascii()}  # the text is folded (no accents)
_NUMWORDS = NUMBER_WORDS
_NW = "|".join(sorted(_NUMWORDS, key=len, reverse=True))
_WORDNUM = rf"(?:(?:{_NW})(?:[- ](?:et[- ])?(?:{_NW}))*)"
_DIGITNUM = r"\d{1,3}(?:[ .]\d{3})+(?:,\d+)?|\d+(?:,\d+)?"
NUM = rf"(?:{_DIGITNUM}|\b{_WORDNUM}\b)"
_MON = "|".join(MONTHS)

# Duration units in months.
_UNITS = {
    "jour": 1 / 30,
    "jours": 1 / 30,
    "semaine": 12 / 52,
    "semaines": 12 / 52,
    "mois": 1.0,
    "an": 12.0,
    "ans": 12.0,
    "annee": 12.0,
    "annees": 12.0,
    "trimestre": 3.0,
    "trimestres": 3.0,
}

# Words that mean the same thing in a dossier, mapped to one key (so "a rompu" meets "la rupture").
_CANON = [
    (("rompr", "rompu", "rompt", "ruptur", "resili", "resilie", "mettre fin", "mis fin", "met fin"), "ruptur"),
    (("notifi", "inform", "annonc", "signifi", "avise", "averti"), "notifi"),
    (("preavi", "delai de prevenance"), "preavi"),
    (("envoy", "adress", "expedi", "transmi"), "envoy"),
    (("recu", "recev", "recoi", "recept"), "recev"),
    (("factur",), "factur"),
    (("command",), "command"),
    (("contrat", "convention"), "contrat"),
    # « nouer », not « nouveau »; an agreement's taking effect is its start (« prend effet », « entré en vigueur »)
    (
        ("demarr", "commenc", "debut", "debute", "noue", "noua", "prend effet", "pris effet", "prise d'effet")
        + ("entre en vigueur", "entree en vigueur"),
        "debut",
    ),
    (("chiffr",), "chiffr"),  # « CA » (the abbreviation) is read as a whole word in stem()
    (("relanc", "rappel"), "relanc"),
    (("exclusiv", "exclusi"), "exclusi"),
    (("livr",), "livr"),
]
# Opposite senses, as stem prefixes (stems are cut at six letters, verb endings off).
ANTONYMS = [
    ({"ecrit", "lettr", "courri", "recomm"}, {"oral", "verbal", "teleph"}),
    ({"accep"}, {"refus"}),
    ({"determ"}, {"indete"}),
    ({"paye", "regl"}, {"impay"}),
    ({"hauss", "augme"}, {"baiss", "dimin", "reduc", "redui"}),
]

_SCOPE_BREAK = {",", ";", ":", "(", ")", "et", "mais", "puis", "car", "donc", "or"}
_NEG_PARTICLES = {"pas", "plus", "jamais", "point", "aucun", "aucune", "nullement", "guere", "rien"}
_PARTY_STOP = set(
    """
Article Articles Le La Les Un Une Des Par Dans En Au Aux Ce Cette Ces Il Elle Ils Elles Chaque Aucun
Aucune Depuis Selon Lors Apres Après Avant Pour Sur Si Facture Compte Monsieur Madame Objet Nous Vous Je
Code Cour Tribunal Cass HT TTC TVA Page Annexe Conformément Conformement Toutefois Cependant Ainsi De Du
Entre Suite Mme Mr Messieurs Dear Durée Duree Résiliation Resiliation Préavis Preavis Prix Commandes
Commande Mise Lettre Courriel Email Re Fwd Date From To Subject Sujet Sans Non Ni Or Mais Et Ou Ses Son
Sa Leur Leurs Société Societe SAS SARL SA SNC EURL Groupe Contrat Compte-rendu Réunion Reunion Relevé
Releve Bon Avenant Conditions Rapport Attestation Total Montant Exercice Client Fournisseur Distributeur
Demanderesse Défenderesse Cher Chère Bonjour Cordialement Veuillez France Paris Lyon Marseille
""".split()
)
_COMPANY = r"(?:[Ss]oci[ée]t[ée]|SAS|SARL|SA|SNC|EURL|[Gg]roupe|[ÉEée]tablissements?|Ets)"


@dataclass(frozen=True)
class DateValue:
    year: int | None
    month: int | None
    day: int | None
    role: str = "event"  # event | start | end | of:<stem> (the date of a letter, an invoice...)

    def comparable(self, other: DateValue) -> bool:
        """Two dates speak of the same thing only with the same role (a start date may date an event)."""
        return self.role == other.role or {self.role, other.role} == {"event", "start"}

    def compatible(self, other: DateValue) -> bool:
        """Equal on every component both sides state ("mars 2021" is compatible with "12 mars 2021")."""
        pairs = [(self.year, other.year), (self.month, other.month), (self.day, other.day)]
        stated = [(a, b) for a, b in pairs if a is not None and b is not None]
        return bool(stated) and all(a == b for a, b in stated)

    def __str__(self) -> str:
        return "/".join(str(x) for x in (self.day, self.month, self.year) if x is not None)


@dataclass
class Facets:
    text: str
    dates: list[DateValue] = field(default_factory=list)
    amounts: list[tuple[float, str]] = field(default_factory=list)  # (euros, "ht"|"ttc"|"")
    durations: list[float] = field(default_factory=list)  # months
    percents: list[float] = field(default_factory=list)
    counts: dict[str, float] = field(default_factory=dict)  # noun key -> number
    parties: set[str] = field(default_factory=set)
    agent: str | None = None
    negated: set[str] = field(default_factory=set)  # content keys under a negation
    sentence_negated: bool = False
    modality: frozenset[str] = frozenset()  # obligation | permission | hypothesis
    content: set[str] = field(default_factory=set)  # content keys (stems), without numbers
    identifiers: set[str] = field(default_factory=set)  # "n458" for "n° 458"
    verbs: set[str] = field(default_factory=set)  # stems of past participles after an auxiliary ("a livré")


_SUFFIXES = ("aient", "ait", "ant", "ent", "ees", "ee", "es", "er", "ez", "e")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude French stem: plural and common verb endings off, then six letters (enough to match
    "s'élève" with "s'élevait", "réalisé" with "réalisait")."""
    w = word.strip("'")
    if w == "ca":  # chiffre d'affaires; not every word starting with « ca » (cadre, capital, cas)
        return "chiffr"
    if len(w) > 4 and w.endswith(("s", "x")):
        w = w[:-1]
    for variants, key in _CANON:
        if any(w.startswith(v) for v in variants if " " not in v):
            return key
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            w = w[: -len(suf)]
            break
    for variants, key in _CANON:
        if any(w.startswith(v) for v in variants if " " not in v):
            return key
    return w[:6]


def _mask(text: str, span: tuple[int, int]) -> str:
    return text[: span[0]] + " " * (span[1] - span[0]) + text[span[1] :]


_ROLE_END = re.compile(r"(?:jusqu'(?:au|a|en)|au plus tard le|avant le|d'ici)\s*(?:le\s+)?$")
_ROLE_START = re.compile(
    r"(?:a compter du|a compter de|a partir du|a partir de|des le|des|depuis|depuis le|"
    r"a effet du|applicable au|applicable le|a dater du)\s*(?:le\s+)?$"
)
_ROLE_OF = re.compile(r"([a-z]+)(?:\s+n°\s*\w+)?\s+(?:du|en date du)\s*$")


def _role(f: str, start: int) -> str:
    before = f[max(0, start - 40) : start]
    if _ROLE_END.search(before):
        return "end"
    if _ROLE_START.search(before):
        return "start"
    m = _ROLE_OF.search(before)
    if m and m.group(1) not in CLAIM_STOPWORDS:
        return "of:" + stem(m.group(1))
    return "event"


_RX_DATE_DMY = re.compile(rf"\b(\d{{1,2}}|1er|premier)\s+({_MON})(?:\s+(\d{{4}}))?\b")
_RX_DATE_NUM = re.compile(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})\b")
_RX_DATE_MY = re.compile(rf"\b({_MON})\s+(\d{{4}})\b")
_RX_AMOUNT = re.compile(rf"({NUM})\s*(millions?|milliards?|k)?\s*(?:d')?\s*(€|euros?|eur\b)(?:\s*(ht|ttc)\b)?")
_RX_PERCENT = re.compile(rf"({NUM})\s*(%|pour ?cent)")
_RX_DURATION = re.compile(rf"({NUM})\s+({'|'.join(_UNITS)})\b")
_RX_COUNT = re.compile(
    rf"({NUM})\s+(?:(?:lettres?|courriers?|courriels?|e-mails?|mails?|mises?)\s+(?:de\s+|en\s+)?)?([a-z]+)"
)
_RX_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_HAS_DIGIT_OR_NUMWORD = re.compile(rf"\d|\b(?:{_NW})\b")


def _extract_numbers(f: str, out: Facets) -> str:
    """Dates, amounts, percents, durations, counts, bare years — each span masked once read."""
    for m in re.finditer(r"\bn°\s*(\w+)", f):  # identifiers (invoice n° 458) are content, not numbers
        out.identifiers.add("n" + m.group(1))
        f = _mask(f, m.span())
    if not _HAS_DIGIT_OR_NUMWORD.search(f):
        return f
    for m in _RX_DATE_DMY.finditer(f):
        day = 1 if m.group(1) in ("1er", "premier") else int(m.group(1))
        out.dates.append(
            DateValue(int(m.group(3)) if m.group(3) else None, MONTHS[m.group(2)], day, _role(f, m.start()))
        )
        f = _mask(f, m.span())
    for m in _RX_DATE_NUM.finditer(f):
        y = int(m.group(3))
        out.dates.append(DateValue(y + 2000 if y < 100 else y, int(m.group(2)), int(m.group(1)), _role(f, m.start())))
        f = _mask(f, m.span())
    for m in _RX_DATE_MY.finditer(f):
        out.dates.append(DateValue(int(m.group(2)), MONTHS[m.group(1)], None, _role(f, m.start())))
        f = _mask(f, m.span())
    for m in _RX_AMOUNT.finditer(f):
        v = amount(m.group(1), m.group(2))
        if v is not None:
            out.amounts.append((v, m.group(4) or ""))
            f = _mask(f, m.span())
    for m in _RX_PERCENT.finditer(f):
        v = parse_number(m.group(1))
        if v is not None:
            out.percents.append(v)
            f = _mask(f, m.span())
    for m in _RX_DURATION.finditer(f):
        v = parse_number(m.group(1))
        if v is not None:
            out.durations.append(round(v * _UNITS[m.group(2)], 3))
            f = _mask(f, m.span())
    for m in _RX_COUNT.finditer(f):
        raw, noun = m.group(1), m.group(2)
        if raw.strip() in ("un", "une") or noun in CLAIM_STOPWORDS:
            continue
        v = parse_number(raw)
        if v is None or re.fullmatch(r"(19|20)\d\d", raw.strip()):
            continue
        key = "fois" if noun in ("fois", "reprise", "reprises") else stem(noun)
        out.counts[key] = v
        f = _mask(f, m.span())
    for m in _RX_YEAR.finditer(f):
        out.dates.append(DateValue(int(m.group(1)), None, None, _role(f, m.start())))
        f = _mask(f, m.span())
    return f


def _tokens(f: str) -> list[str]:
    return re.findall(r"[a-z]+'|[a-z]+(?:-[a-z]+)*|[,;:()]", f)


def _negation(tokens: list[str]) -> tuple[set[str], bool]:
    scope: set[str] = set()
    negated = False

    def take(ws: list[str], n: int) -> None:
        got = 0
        for w in ws:
            if w in _SCOPE_BREAK:
                break
            if w in CLAIM_STOPWORDS or w.endswith("'"):
                continue
            scope.add(stem(w))
            got += 1
            if got == n:
                break

    for i, t in enumerate(tokens):
        if t in ("ne", "n'"):
            for j in range(i + 1, min(i + 6, len(tokens))):
                if tokens[j] in _NEG_PARTICLES:
                    negated = True
                    take(tokens[i + 1 : j], 3)
                    take(tokens[j + 1 :], 3)
                    break
        elif (
            t in ("sans", "aucun", "aucune", "jamais")
            or (t == "absence" or t == "defaut")
            and i + 1 < len(tokens)
            and tokens[i + 1] in ("de", "d'")
        ):
            negated = True
            take(tokens[i + 1 :], 3)
        elif t == "non" or t.startswith("non-"):
            negated = True
            take([t[4:]] if t.startswith("non-") else tokens[i + 1 :], 1)
    return scope, negated


_MODALITY = {
    "obligation": r"\b(doit|doivent|devra|devront|devait|devaient|(?:est|sont|etait) tenue?s? de|oblig\w*|impos\w*)\b",
    "permission": r"\b(peut|peuvent|pouvait|pouvaient|pourra|pourront|faculte|possibilite|autoris\w*|libre de)\b",
    "hypothesis": r"\b(envisag\w*|aurai(?:en)?t|pourrai(?:en)?t|serai(?:en)?t|menac\w*|projet de|intention de|"
    r"souhait\w*|semble\w*|probabl\w*|eventuel\w*|susceptible|propos(?:e|ons|ez|ait|aient|ee|ees|es)|(?:notre|votre|une) proposition)\b",
}


_RX_CAP_RUN = re.compile(r"(?<![\w-])([A-Z][\w&-]*(?: [A-Z][\w&-]*)*)")
_RX_COMPANY = re.compile(rf"\b{_COMPANY}\s+([A-Z][\w&-]*(?: [A-Z][\w&-]*)*)")
_RX_PASSIVE = re.compile(
    r"\b(?:a|ont|est|sont|avait|fut|été)\s+(?:été\s+)?\w+é(?:e|s|es)?\s+par\s+"
    r"(?:la\s+soci[ée]t[ée]\s+)?([A-Z][\w&-]*(?: [A-Z][\w&-]*)*)"
)
_RX_PREP_BEFORE = re.compile(
    r"(?:\b(?:a|au|aux|avec|aupres de|de|du|des|par|pour|entre|contre|chez|vers|selon|et|ou)|"
    r"d'|l')\s*(?:(?:la |le )?(?:societe|sas|sarl|sa|snc|eurl|groupe)\s+)?$"
)


def _is_stop(word: str) -> bool:
    return word in _PARTY_STOP or fold(word) in CLAIM_STOPWORDS or fold(word) in MONTHS or len(word) < 2


def _parties(text: str, known: frozenset[str]) -> tuple[set[str], str | None]:
    """Party names (runs of capitalised words: "Mu Bois", "Gamma Distribution") and the acting party."""
    found: dict[int, str] = {}
    for m in _RX_COMPANY.finditer(text):
        found[m.start(1)] = m.group(1)
    for m in _RX_CAP_RUN.finditer(text):
        words, start = m.group(1).split(" "), m.start(1)
        dropped = 0
        while words and _is_stop(words[0]):
            start += len(words[0]) + 1
            words = words[1:]
            dropped += 1
        while words and _is_stop(words[-1]):
            words = words[:-1]
        if not words:
            continue
        name = " ".join(words)
        sentence_initial = not dropped and (
            m.start(1) == 0 or re.search(r"[.:;!?«\"(\n]\s*$", text[: m.start(1)]) is not None
        )
        if sentence_initial and name not in known and words[0] not in known:
            continue
        if not any(start <= s < start + len(name) for s in found):
            found[start] = name
    ordered = sorted(found.items())
    names = {w for _, w in ordered}
    agent = None
    passive = _RX_PASSIVE.search(text)
    if passive and passive.group(1) in names:
        agent = passive.group(1)
    else:  # the first party not introduced by a preposition ("à Gamma", "avec Beta", "d'Alpha")
        for start, word in ordered:
            if not _RX_PREP_BEFORE.search(fold(text[max(0, start - 25) : start])):
                agent = word
                break
    return names, agent


def read(text: str, known_parties: set[str] | frozenset[str] | None = None) -> Facets:
    """All facets of one sentence (or short passage). Cached: memories are read again for every claim
    that retrieves them (treat the result as read-only)."""
    return _read(text, frozenset(known_parties or ()))


@lru_cache(maxsize=32768)
def _read(text: str, known_parties: frozenset[str]) -> Facets:
    out = Facets(text=text)
    f = fold(text)
    rest = _extract_numbers(f, out)
    tokens = _tokens(rest)
    out.negated, out.sentence_negated = _negation(tokens)
    out.modality = frozenset(k for k, rx in _MODALITY.items() if re.search(rx, f))
    out.parties, out.agent = _parties(text, known_parties)
    party_keys = {fold(w) for p in out.parties for w in p.split()}
    out.content = {
        stem(t)
        for t in tokens
        if t not in CLAIM_STOPWORDS
        and not t.endswith("'")
        and len(t) > 1
        and t not in party_keys
        and t not in _NEG_PARTICLES
        and t not in MONTHS
    }
    out.content |= {key for variants, key in _CANON for v in variants if " " in v and v in f}
    out.content |= out.identifiers | set(out.counts) - {"fois"}  # "40 palettes": palettes is a topic
    out.verbs = {
        stem(tokens[i + 1])
        for i, t in enumerate(tokens[:-1])
        if t in ("a", "ont", "avait", "avaient", "est", "sont", "ete", "fut", "etait", "etaient", "sera", "seront")
        and tokens[i + 1] not in CLAIM_STOPWORDS
    }
    return out


@lru_cache(maxsize=16384)
def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of a passage (French punctuation; keeps abbreviations like "art." together)."""
    spans, start = [], 0
    for m in re.finditer(
        r"(?<!\bart)(?<!\bn°)(?<!\bM)(?<!\bMme)[.!?;]+(?=\s+[A-ZÀ-Ý«\"(]|\s*$)|\n\s*\n|\n(?=\s*[-•*]\s)", text
    ):
        end = m.end()
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    out = []
    for s, e in spans:  # trim whitespace
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out
