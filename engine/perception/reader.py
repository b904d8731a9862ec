"""The generic, pack-driven reader: per-fact retrieval, then a typed reading with the exact span.

For every fact of the pack's ``extraction.yaml``: the sentences that carry one of its cue lemmas (spaCy
lemmas or the words themselves) are the candidates; a typed reader (date, months, percent, amounts by year,
count, bool, enum, party) takes the value out, with the span it was read from. A cue under a negation
(dependency parse) gives the negative value or nothing; a cue in a conditional, a threat or an intention
gives nothing. What a party's own document asserts (``alleged_in``), or what a decision reports a party
« soutient », is recorded as alleged by that party: never a proven fact. Conflicting values found in
different documents become one finding each; ``model.merge_findings`` turns them into ambiguity readings.

This module knows no fact name: everything it looks for comes from the pack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lexlogic.engine.documents.model import Document, DocumentKind
from lexlogic.engine.perception import amounts
from lexlogic.engine.perception import nlp as fr
from lexlogic.engine.perception.model import Finding
from lexlogic.engine.text import dates
from lexlogic.engine.text.amounts import amount
from lexlogic.engine.text.fold import word_key
from lexlogic.engine.text.numbers import number_word
from lexlogic.logic.calendar import months_between
from lexlogic.logic.extraction import ExtractionSpec, FactExtraction
from lexlogic.logic.facts import Allegation, DatePrecision, World

PARTIES = ("claimant", "defence")
LEGAL_FORMS = r"(?:SASU|SAS|SARL|SA|SNC|EURL|SCA|SCOP|SELARL|SCEA|GAEC|SCI)"
NAME_WORD = r"[A-ZÀ-Ý][\w'’&-]*"
NAME = NAME_WORD + r"(?:[ \t]+(?:(?:de|des|du|d'|&|la|le|les|l')[ \t]*)*" + NAME_WORD + r")*"
NAME_NL = (  # a name wrapped once in running prose (never across a blank line)
    NAME_WORD
    + r"(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:(?:de|des|du|d'|&|la|le|les|l')(?:[ \t]+|[ \t]*\n[ \t]*)?)*"
    + NAME_WORD
    + r")*"
)
COMPANY_RE = re.compile(
    r"(?:\b[Ll]es\s+)?\b[Ss]ociétés\s+(?P<n3>" + NAME + r")\s+et\s+(?:la\s+société\s+)?(?P<n4>" + NAME + r")|"
    r"(?:\b(?:[Ll]a|[Ll]es|[Ll]eur|[Nn]otre|[Vv]otre|[Ss]a)\s+)?(?:société|sociétés|entreprise|SARL|SAS|SA|EURL|"
    r"groupe|cabinet|établissements|Ets|enseigne|centrale|coopérative|agence|maison|laboratoires?|"
    r"transports|ateliers|menuiseries?|imprimerie|brasserie|fromagerie|boulangerie|distillerie|"
    r"conserverie|scierie|cartonnerie|laiterie)\s+(?P<n1>" + NAME_NL + r")"
    r"|(?P<n2>" + NAME + r")[ \t]+(?P<form>" + LEGAL_FORMS + r")\b"
)
ROLE_NOUNS = (
    "fournisseur",
    "distributeur",
    "grossiste",
    "fabricant",
    "client",
    "cliente",
    "transporteur",
    "prestataire",
    "sous-traitant",
    "enseigne",
    "centrale",
    "franchiseur",
    "partenaire",
    "producteur",
    "façonnier",
    "imprimeur",
    "éditeur",
    "négociant",
    "revendeur",
    "détaillant",
    "concessionnaire",
    "importateur",
    "donneur d'ordre",
    "constructeur",
    "équipementier",
    "industriel",
    "groupe",
    "chaîne",
    "plateforme",
    "coopérative",
    "laboratoire",
)
NOT_A_NAME = {
    "monsieur",
    "madame",
    "maître",
    "objet",
    "tribunal",
    "cour",
    "le",
    "la",
    "les",
    "nous",
    "vous",
    "article",
    "lettre",
    "contrat",
    "france",
    "paris",
    "lyon",
    "notre",
    "votre",
    "elle",
    "il",
    "ils",
    "elles",
    "code",
    "cass",
    "chambre",
    "considérant",
    "attendu",
    "par",
    "depuis",
    "en",
    "au",
    "aux",
    "dès",
    "après",
    "suite",
    "selon",
    "conformément",
    "note",
    "cher",
    "chère",
    "bonjour",
    "cordialement",
    "mme",
    "m",
    "me",
    "direction",
    "service",
    "ce",
    "cette",
    "ces",
    "dans",
    "pour",
    "sur",
    "une",
    "un",
    "si",
    "enfin",
    "ainsi",
    "toutefois",
    "celle",
    "celui",
    "ceux",
    "celles",
    "cto",
    "ceo",
    "daf",
    "dsi",
    "messieurs",
    "lrar",
    "ar",
    "ttc",
    "ht",
    "tva",
    "ca",
    "cgv",
    "cga",
    "rcs",
    "siret",
    "egalim",
}
NUM_UNIT_RE = re.compile(
    r"(?P<n>\d+(?:[.,]\d+)?|(?:[a-zéèêû]+(?:[ -](?:et[ -])?[a-zéèêû]+)?))\s+(?P<u>mois|semaines?|jours?|ans?|années?)\b",
    re.IGNORECASE,
)
PCT_RE = re.compile(r"(?P<n>\d+(?:[.,]\d+)?)\s*(?:%|pour\s*cent|points?\b)", re.IGNORECASE)
AMOUNT_RE = re.compile(
    r"(?P<n>\d{1,3}(?:[   .]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)?)\s*(?P<mult>millions?|M|k|K|milliers?|Md)?\s*"
    r"(?:d')?\s*(?:€|euros?|EUR)(?:\s*HT)?",
)
YEAR_NEAR_RE = re.compile(
    r"(?:en|pour|au\s+titre\s+de|sur|de|exercice|année)\s+(?:l'(?:année|exercice)\s+)?((?:19|20)\d\d)\b"
)
COUNT_RE = re.compile(r"(?P<n>\d{1,3}(?:[   ]\d{3})+|\d+)\s+commandes", re.IGNORECASE)


def _cue_rx(cue: str) -> re.Pattern[str]:
    body = re.escape(cue.lower()).replace(r"\ ", r"\s+")  # a phrase cut by a wrapped, indented line
    left = r"(?<!\w)" if cue[:1].isalnum() else ""
    right = r"(?!\w)" if cue[-1:].isalnum() else ""
    return re.compile(left + body + right)


_RX: dict[str, re.Pattern[str]] = {}


def _rx(cue: str) -> re.Pattern[str]:
    if cue not in _RX:
        _RX[cue] = _cue_rx(cue)
    return _RX[cue]


VERB_ENDINGS = (
    r"(?:e|es|ent|ons|ez|ais|ait|aient|ions|iez|erai|eras|era|erons|erez|eront|erais|erait|erions|eriez|eraient|"
    r"é|ée|és|ées|ant|a|as|èrent|er)"
)
_VRX: dict[str, re.Pattern[str] | None] = {}


def _verb_rx(cue: str) -> re.Pattern[str] | None:
    """A first-group verb cue (« cesser ») as its conjugated forms (« cesseriez », « cessons »)."""
    if cue not in _VRX:
        ok = " " not in cue and cue.endswith("er") and len(cue) > 4
        _VRX[cue] = re.compile(r"(?<!\w)" + re.escape(cue[:-2].lower()) + VERB_ENDINGS + r"(?!\w)") if ok else None
    return _VRX[cue]


@dataclass
class Sentence:
    """One sentence of a document: its span, its words and lemmas, its tokens."""

    start: int
    end: int
    text: str
    low: str
    lemmas: str
    span: Any

    def find(self, cues: list[str]) -> tuple[str, int, int] | None:
        """The first cue met (on words, then on lemmas, then a verb cue's conjugated forms the tagger did not
        lemmatise: « résilions », « cesseriez »): the cue and its span in the document."""
        for cue in cues:
            if m := _rx(cue).search(self.low):
                return cue, self.start + m.start(), self.start + m.end()
        found = self._find_lemma(cues)
        if found is not None:
            return found
        for cue in cues:
            if (rx := _verb_rx(cue)) is not None and (m := rx.search(self.low)):
                return cue, self.start + m.start(), self.start + m.end()
        return None

    def _find_lemma(self, cues: list[str]) -> tuple[str, int, int] | None:
        for cue in cues:
            if " " not in cue and _rx(cue).search(self.lemmas):
                for tok in self.span:
                    if tok.lemma_.lower() == cue.lower():
                        return cue, tok.idx, tok.idx + len(tok.text)
            elif " " in cue and (m := _rx(cue).search(self.lemmas)):
                first = self.lemmas[: m.start()].count(" ")  # lemmas are joined by one space per token
                toks = list(self.span)
                n = cue.count(" ")
                if first + n < len(toks):
                    return cue, toks[first].idx, toks[first + n].idx + len(toks[first + n].text)
        return None

    def token_at(self, pos: int) -> Any:
        for tok in self.span:
            if tok.idx <= pos < tok.idx + len(tok.text) + 1:
                return tok
        return self.span.root


@dataclass
class DocView:
    doc: Document
    live: str
    author: str | None
    anchor: date | None
    sentences: list[Sentence]
    names: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # party name → spans
    roles: dict[str, str] = field(default_factory=dict)  # claimant|defence → name
    cache: dict[str, object] = field(default_factory=dict)


def _live(doc: Document) -> str:
    """Headers of an e-mail and quoted lines blanked (same length: offsets stay valid)."""
    text = doc.text
    if doc.kind is DocumentKind.EMAIL or re.match(r"\s*(?:De|From)\s*:", text):
        head = text.find("\n\n")
        if head > 0:
            text = re.sub(r"[^\n]", " ", text[:head]) + text[head:]
    return re.sub(r"(?m)^>.*$", lambda m: " " * len(m.group(0)), text)


def _anchor(doc: Document) -> date | None:
    for key in ("document_date", "date_iso"):
        raw = doc.metadata.get(key)
        if raw:
            try:
                return date.fromisoformat(raw[:10])
            except ValueError:
                pass
    head = doc.text[:400]
    m = re.search(r"(?:,\s*le|^Date\s*:|^Le)\s+(\d{1,2}(?:er)?\s+\w+\s+(?:19|20)\d\d)", head, re.MULTILINE)
    if m and (iv := dates.read_date(m.group(1))):
        return iv.start
    return None


def _author(doc: Document, live: str) -> str | None:
    """The party whose own document this is (metadata, else the lawyer's note « en défense » / « en demande »)."""
    party = doc.metadata.get("author_party")
    if party in PARTIES:
        return party
    head = word_key(live[:300])
    if re.search(
        r"\b(note|conclusions?|memoire)\s+(en|pour la|pour le)\s+(defense|defenderesse|defendeur|intimee)", head
    ):
        return "defence"
    if re.search(
        r"\b(note|conclusions?|memoire)\s+(en|pour la|pour le)\s+(demande|demanderesse|demandeur|appelante)", head
    ):
        return "claimant"
    return None


def _unwrap(text: str) -> str:
    """Lines wrapped in running prose joined (a newline after a long line becomes a space; same length, so
    offsets hold): the sentence splitter must not cut « Pharma\nSud »; short lines (letterheads) stay."""
    out = list(text)
    start = 0
    for i, ch in enumerate(text):
        if ch == "\n":
            if i - start >= 50 and i + 1 < len(text) and text[i + 1] != "\n":
                out[i] = " "
            start = i + 1
    return "".join(out)


SENT_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý«\"(]|\d{1,2}\.\s)|\n\s*\n|(?<=:)\s*\n")
ABBREV_RE = re.compile(
    r"(?:\b(?:M|MM|Mme|Mlle|Me|art|arts|Cass|com|civ|soc|n°|cf|al|p|ch|réf|St|Ste|etc|av|bd|S\.A|Ets|[A-Z])\.)$"
)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentences by punctuation and blank lines (the parser's own boundaries cut proper names: « Pharma | Sud
    »); an abbreviation (« M. », « art. ») does not end one; a short line (letterhead, address) is its own."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in SENT_END_RE.finditer(text):
        if ABBREV_RE.search(text[max(0, m.start() - 6) : m.start()]):
            continue
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    final: list[tuple[int, int]] = []
    for s0, e0 in out:
        pos = s0
        for line in re.finditer(r"[^\n]*\n", text[s0:e0]):
            full = text[text.rfind("\n", 0, s0 + line.start()) + 1 : s0 + line.end()]
            if len(full.strip()) < 50 and line.end() + s0 < e0:
                final.append((pos, s0 + line.end()))
                pos = s0 + line.end()
            else:
                break
        final.append((pos, e0))
    return final


def view(doc: Document) -> DocView:
    live = _live(doc)
    parsed = fr.parse(_unwrap(live))
    sents = []
    for s0, e0 in _sentence_spans(live):
        piece = live[s0:e0]
        if not piece.strip():
            continue
        st = s0 + len(piece) - len(piece.lstrip())
        en = s0 + len(piece.rstrip())
        span = parsed.char_span(st, en, alignment_mode="expand")
        if span is not None and len(span):
            lem = " ".join(t.lemma_.lower() for t in span)
            low = live[st:en].lower().replace("\n", " ")
            sents.append(Sentence(st, en, live[st:en], low, lem, span))
    return DocView(doc=doc, live=live, author=_author(doc, live), anchor=_anchor(doc), sentences=sents)


# --- parties ---------------------------------------------------------------------------------------------
def _clean_name(name: str) -> str:
    words = name.replace("’", "'").split()
    while words and (
        re.fullmatch(LEGAL_FORMS, words[0])
        or words[0] in ("société", "Société", "la", "les", "l'")
        or (words[0] in ("La", "Les", "L'") and len(words) > 1 and words[1].lower() == "société")
    ):  # « Les Vergers de Saintonge » keeps its article; « La société X » does not
        words.pop(0)
    while words and re.fullmatch(LEGAL_FORMS, words[-1]):
        words.pop()
    while words and (words[-1].lower() in ("de", "du", "des", "et", "la", "le", "les", "l'") or words[-1] in ("SA",)):
        words.pop()
    return " ".join(words).strip(' ,.;:()«»"')


def _names(v: DocView) -> None:
    """Company names written in the document: « la société X », « X SAS », spaCy organisations, and the
    parties of « X c/ Y »."""
    v.names = {}
    _written_names(v)
    _aliases(v)
    v.cache["places"] = {e.text.strip() for e in fr.parse(_unwrap(v.live)).ents if e.label_ == "LOC"}
    for key, found in (("heading", _heading_name(v)), ("signature", _signature_name(v)), ("addressee", _addressee(v))):
        if found:
            _add_name(v, *found)
            v.cache[key] = found[0]
    parsed = fr.parse(_unwrap(v.live))
    for ent in parsed.ents:
        if ent.label_ in ("ORG",) or (ent.label_ in ("MISC", "PER") and re.search(LEGAL_FORMS + r"\b", ent.text)):
            text = ent.text.strip()
            if text.lower().startswith(("tribunal", "cour", "cass", "code")):
                continue
            _add_name(v, text, ent.start_char)
    if ENTITY_NAMES:
        _entity_names(v, parsed)


def _written_names(v: DocView) -> None:
    """The names the text's own patterns give: « la société X », a role noun and its name (« le fournisseur
    X »), a letter's name-only lines, « X c/ Y », « votre société, X, », « Fournisseur : X »."""
    roles = "|".join(re.escape(w) for w in ROLE_NOUNS)
    for m in COMPANY_RE.finditer(v.live):
        for g in ("n1", "n2", "n3", "n4"):
            if m.group(g):
                _add_name(v, m.group(g), m.start(g))
    for m in re.finditer(
        r"\b(?:" + roles + r")s?(?:\s+(?:de|d'|des|du|en)\s+[a-zéèêàç' -]+?)?\s*,?\s+(" + NAME + r")", v.live
    ):
        if not re.match(r"(?:M|Mme|Me|Maître)\b", m.group(1)):
            _add_name(v, m.group(1), m.start(1))
    if v.doc.kind is DocumentKind.LETTER:  # letterhead and addressee: a line that is only a name
        for m in re.finditer(r"(?m)^[ \t]*(" + NAME + r")(?:[ \t]+" + LEGAL_FORMS + r")?[ \t]*$", v.live[:500]):
            if len(m.group(1).split()) >= 2 or m.group(0).strip().isupper():
                _add_name(v, m.group(1), m.start(1))
    for m in re.finditer(
        r"(?P<a>" + NAME + r")(?:\s*\([^)\n]{1,40}\))?\s+(?:c/|contre)\s+(?:la\s+société\s+)?(?P<b>" + NAME + ")",
        v.live,
    ):
        _add_name(v, m.group("a"), m.start("a"))
        _add_name(v, m.group("b"), m.start("b"))
    for m in re.finditer(r"\b[Ss]ociété\s*,\s+(" + NAME + r")\s*,", v.live):  # « votre société, X, qui … »
        _add_name(v, m.group(1), m.start(1))
    # « Donneur d'ordre : X », « Fournisseur : X »
    for m in re.finditer(r"(?im)^[ \t]*(?:" + roles + r")[ \t]*:[ \t]*(?:la\s+société\s+)?(" + NAME + ")", v.live):
        _add_name(v, m.group(1), m.start(1))


ENTITY_NAMES = True  # the parser's entities as (weak) party names; False gives the round-3 roles without them
PERSON_TITLE = re.compile(r"(?:\b(?:M|Mme|Mlle|Dr|Me|MM)\.?|\b(?:Monsieur|Madame|Maître|Docteur|Professeur))\s*$")
SALUTATION = re.compile(
    r"(?im)^[ \t]*(?:bonjour|cher|chère|madame|monsieur)[ \t]+(?:(?:monsieur|madame|maître)[ \t]+)?("
    + NAME
    + r")[ \t]*,"
)
SIGNATORY_AFTER = re.compile(r"^[ \t]*(?:[—–-]|,)[ \t]*\S")


def _aliases(v: DocView) -> None:
    """« Évènements Majeurs (EVM) »: the short form in brackets right after a name is that name (every mention)."""
    for name, spans in list(v.names.items()):
        for _s0, e0 in list(spans):
            m = re.match(r"\s*\((?:ci-après\s+)?[«\"]?\s*([A-ZÀ-Ý][\w&'’-]{1,12})\s*[»\"]?\)", v.live[e0 : e0 + 30])
            if m and m.group(1).lower() not in NOT_A_NAME and word_key(m.group(1)) not in word_key(name):
                alias = m.group(1)
                for a in re.finditer(r"\b" + re.escape(alias) + r"\b", v.live):
                    if (a.start(), a.end()) not in spans:
                        spans.append((a.start(), a.end()))
                v.cache.setdefault("alias", {})[word_key(alias)] = name  # type: ignore[index]


def _entity_names(v: DocView, parsed: Any) -> None:
    """The parser's named entities (organisations, persons, misc.: its labels are unreliable on company names,
    « Meubles Cordier » comes out as a person, « Logis-Hainaut » as a place) as candidate party names, cut to
    their first line and to capitalised words; never a court, a place after « de / à / en », a word that opens a
    sentence and is a common noun (« Préavis »), a person who signs for a company (« Thomas Vial — Directeur
    marketing, X ») or whom the letter greets (« Bonjour Claire »). Recorded as weak names: they take a role only
    on evidence (the syntax of the rupture, an apposition), never by elimination."""
    weak: set[str] = v.cache.setdefault("weak", set())  # type: ignore[assignment]
    body = v.live.rstrip()
    tail = max(body.rfind("\n\n"), len(body) - 200) if "\n\n" in body else len(body)  # the signature block
    for ent in parsed.ents:
        if ent.label_ not in ("ORG", "PER", "MISC", "LOC"):
            continue
        for piece in re.finditer(r"[^\n]+", ent.text):
            _entity_piece(v, parsed, ent.label_, piece.group(0), ent.start_char + piece.start(), weak, tail)


def _entity_piece(v: DocView, parsed: Any, label: str, text: str, start: int, weak: set[str], tail: int) -> None:
    start += len(text) - len(text.lstrip())
    text = text.strip(' ,.;:()«»"')
    m = re.match(r"(?i)(?:bonjour|cher|chère|client|dossier|objet)\s*:?\s*", text)
    if m:
        text, start = text[m.end() :], start + m.end()
    if (m := re.match(r"(?:M|Mme|Mlle|Me|Dr|MM)\.?\s+|(?:Monsieur|Madame|Maître|Docteur)\s+", text)) and label == "PER":
        return  # « M. Lenoir », « Dr Anne Perrin »: a person is a party only by evidence (learnt there)
    words = text.split()
    if not words or not all(
        w[:1].isupper() or w[:1].isdigit() or w.lower() in ("de", "des", "du", "d'", "&", "et", "la", "le", "l'")
        for w in words
    ):
        return
    if text.lower().startswith(("tribunal", "cour", "cass", "code", "conseil", "chambre", "pôle")):
        return
    if words[-1].isdigit() and label != "ORG":
        return  # « Egalim 3 », « article 21 »: a law or a clause, not a party
    if label == "LOC" and (
        len(words) == 1 or re.search(r"(?i)\b(?:de|d'|à|en|au|aux|sur)\s*$", v.live[max(0, start - 5) : start])
    ):
        return  # a place: « en Alsace », « tribunal de commerce de Nantes »
    if label == "LOC" and not re.search(
        r"(?i)(?:société|enseigne|groupe|maison|à)\s+$|^\s*$", v.live[max(0, start - 12) : start].split("\n")[-1]
    ):
        return  # a company the parser took for a place follows « la société », « l'enseigne », or opens a line
    if label == "LOC" and not re.search(
        r"(?:^|\W)(?:[Ll]a\s+société|[Ll]a|[Ll]e|[Ll]es)\s*$|^\s*$", v.live[max(0, start - 12) : start].split("\n")[-1]
    ):
        return  # a place name in running prose; a company the parser took for a place follows « la »
    first = v.live[start : start + len(words[0])]
    tok = next((t for t in parsed if t.idx == start), None)
    if len(words) == 1 and tok is not None and tok.is_sent_start and tok.pos_ != "PROPN":
        return  # « Préavis : 90 jours »
    if tok is not None and len(words) == 1 and tok.pos_ not in ("PROPN", "NOUN", "X"):
        return
    if PERSON_TITLE.search(v.live[max(0, start - 12) : start]) and label == "PER":
        return  # « M. Dupont », « Dr Anne Perrin »: a person is a party only by evidence (learnt there)
    if (
        label == "PER"
        and start >= tail
        and not v.live[v.live.rfind("\n", 0, start) + 1 : start].strip(" \t—–-")  # it opens its line
        and (
            v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL, DocumentKind.SUBMISSION)
            or SIGNATORY_AFTER.match(v.live[start + len(text) : start + len(text) + 6])
        )
    ):
        return  # the person who signs (for the company named after the dash or on the next line)
    if label == "PER" and SALUTATION.match(v.live[v.live.rfind("\n", 0, start) + 1 : start + len(text) + 2]):
        v.cache.setdefault("salutation", text)
        return
    if first.lower() in NOT_A_NAME:
        return
    before = set(v.names)
    _add_name(v, text, start)
    weak |= set(v.names) - before


COMPANY_WORD = re.compile(
    r"(?i)(?:groupe|société|ets|établissements|transports|laboratoires?|cabinet|maison|ateliers?|éditions|"
    r"imprimerie|brasserie|fromagerie|scierie|coopérative|centrale|agence|hôtels?|clinique|garage)\b"
)
NOT_A_SIGNATURE = re.compile(
    r"(?i)^(?:service|direction|exploitation|dsi|pôle|responsable|directeur|directrice|président|présidente|gérant|"
    r"gérante|juriste|avocat|maître|me|cabinet|le |la |les |pour |bien |cordialement|salutations|bonne)"
)


DOC_TYPES = re.compile(
    r"(?i)^(?:note|notes|conclusions?|mémoire|observations|synthèse|lettre|courrier|objet|consultation|"
    r"dossier|exposé|faits|résumé|fiche|compte[- ]rendu|rapport|assignation|jugement|arrêt|cour|tribunal)\b"
)


def _heading_name(v: DocView) -> tuple[str, int] | None:
    """The party named in the first line of a party's own document: « CONCLUSIONS DE LA SOCIÉTÉ X », « Mémoire
    de la société X », « Note interne — Direction juridique, X », « Note au client — SAS X », a letterhead
    « X — 44000 Nantes »."""
    line = re.match(r"\s*([^\n]*)", v.live)
    if line is None or v.doc.kind is DocumentKind.EMAIL or re.match(r"(?i)(?:de|from|objet)\s*:", line.group(1)):
        return None
    text, start = line.group(1), line.start(1)
    if re.search(r"\s(?:c/|contre)\s", text):  # « X c/ Y » names both sides, claimant first
        return None
    if re.match(r"(?i)[^,]{0,40},\s*le\s+\d|le\s+\d", text):  # « Bordeaux, le 30 novembre 2022 »: place and date
        return None
    m = re.search(r"(?i)\bsoci[ée]t[ée]\s+([^\n(,—–]+)", text) if DOC_TYPES.match(text) else None
    if m is None and re.search(r"(?i)\bsoci[ée]t[ée]\b", text):
        return None  # « Réponse à la mise en demeure de la société X »: X is not the writer
    pieces = [(m.group(1), m.start(1))] if m else [(p.group(0), p.start()) for p in re.finditer(r"[^—–,()]+", text)]
    for piece, off in pieces:
        name = re.sub(r"\s+(?:c/|contre)\s.*$", "", piece).strip(" .:")
        words = name.split()
        if not words or DOC_TYPES.match(name) or NOT_A_SIGNATURE.match(name) or not name[0].isupper():
            continue
        if not all(w[:1].isupper() or w.lower() in ("de", "des", "du", "d'", "&", "et") for w in words):
            continue
        if len(words) == 1 and len(name) < 4:
            continue
        return (name.title() if name.isupper() else name), start + off + piece.index(name)
    return None


def _signature_name(v: DocView) -> tuple[str, int] | None:
    """The company in a letter's or e-mail's signature: « Hélène Garnier — Verrerie Garnier & Fils », « Service
    achats — Agrimeca », « Transports Lefèvre — affrètement … » (a person's name is not a company)."""
    if v.doc.kind not in (DocumentKind.LETTER, DocumentKind.EMAIL, DocumentKind.SUBMISSION):
        return None
    lines = [(m.group(0), m.start()) for m in re.finditer(r"[^\n]+", v.live) if m.group(0).strip()]
    for text, start in reversed(lines[-3:]):
        if len(text) > 90 or "@" in text:
            continue
        parts = [(p.group(0), p.start()) for p in re.finditer(r"[^—–,()]+", text)]
        if len(parts) < 2:
            continue
        for part, off in reversed(parts):
            name = part.strip(" .-")
            if not name or not name[0].isupper() or NOT_A_SIGNATURE.match(name) or len(name) < 3:
                continue
            words = name.split()
            if not all(w[:1].isupper() or w.lower() in ("de", "des", "du", "d'", "&", "et", "la", "le") for w in words):
                continue
            ents = [e for e in fr.parse(name).ents if e.label_ == "PER" and e.text == name]
            company = re.search(r"&|\b(?:et\s+Fils|Frères)\b", name) or COMPANY_WORD.match(name) or off > 0
            if ents and not company:
                continue  # a person signs; the company is elsewhere on the line
            return name, start + off + part.index(name)
    return None


def _addressee(v: DocView) -> tuple[str, int] | None:
    """« à X » / « À l'attention de X » on its own line at the top of a letter."""
    if v.doc.kind is not DocumentKind.LETTER:
        return None
    m = re.search(
        r"(?m)^[ \t]*[àÀ][ \t]+(?:l'(?:enseigne|attention\s+de)\s+|la\s+société\s+)?(" + NAME + r")[ \t]*(?:[—–,]|$)",
        v.live[:400],
    )
    return (m.group(1), m.start(1)) if m else None


def _add_name(v: DocView, name: str, s: int) -> None:
    """Record a company name (merged with a longer or shorter spelling already seen) and its span."""
    found = v.names
    if "\n" in name:  # a name wrapped in running prose, not a letterhead's next line
        line_start = v.live.rfind("\n", 0, s) + 1
        if v.live.find("\n", s) - line_start < 60:
            name = name.split("\n")[0]
    name = " ".join(_clean_name(name).split())
    if len(name) < 3 or name.split()[0].lower() in NOT_A_NAME or name.isdigit() or not name[0].isupper():
        return
    places = v.cache.get("places")
    if (
        " " not in name
        and isinstance(places, set)
        and name in places
        and re.search(r"(?i)\b(?:de|d'|à|en|au)\s*$", v.live[max(0, s - 4) : s])
    ):
        return  # « tribunal de commerce de Bordeaux », « en Alsace »: a place, not a party
    org_head = name.split()[0].lower() in ("groupe", "coopérative", "laboratoire", "laboratoires", "centrale")
    if name.lower() in ROLE_NOUNS or (name.split()[0].lower() in ROLE_NOUNS and not (org_head and " " in name)):
        return
    if dates.DATE_SPAN_RE.fullmatch(name) or re.fullmatch(dates.MONTHS, name.lower()):
        return
    if re.search(r"\bmarques?\s+(?:[\w'’-]+\s+){0,2}«?\s*$", v.live[max(0, s - 40) : s]):
        return  # a brand (« sous notre marque « Terroir & Co » »), not a party
    if name.isupper() and 2 <= len(name) <= 6:  # initials of a name already read (« Gardiennage Sécurité Azur (GSA) »)
        full = next(
            (
                k
                for k in found
                if word_key("".join(w[0] for w in re.split(r"[\s-]+", k) if w[:1].isupper())) == word_key(name)
            ),
            None,
        )
        if full is not None:
            found[full].append((s, s + len(name)))
            return
    alias = v.cache.get("alias", {})
    if word_key(name) in alias:  # type: ignore[operator]
        key0 = alias[word_key(name)]  # type: ignore[index]
        if key0 in found:
            if (s, s + len(name)) not in found[key0]:
                found[key0].append((s, s + len(name)))
            return
    key = next(
        (k for k in found if word_key(k) == word_key(name) or word_key(name).startswith(word_key(k) + " ")), None
    )
    if key is None:
        key = next(
            (
                k
                for k in found
                if word_key(k).startswith(word_key(name) + " ") or word_key(k).endswith(" " + word_key(name))
            ),
            None,
        )
    m = re.compile(r"\s+".join(re.escape(w) for w in name.split())).search(v.live, max(0, s - 1))
    span = m.span() if m else (s, s + len(name))
    found.setdefault(key or name, []).append(span)


def _party_of_phrase(v: DocView, text: str, learn: bool = False) -> str | None:
    """The party a phrase names: a known company name; with ``learn``, a capitalised name found in a phrase
    that plays a party's part (subject of a rupture, « X c/ Y »), recorded as a new name."""
    t = word_key(text)
    known = [
        (m.start(), -len(name), name)
        for name in v.names
        if word_key(name) and (m := re.search(r"\b" + re.escape(word_key(name)) + r"\b", t))
    ]
    if known:  # the first named, the longest spelling (« Hyper Centre Distribution », not « Centre »)
        return min(known)[2]
    if learn:
        for m in re.finditer(NAME + r"(?:\s+" + LEGAL_FORMS + r")?", text):
            words = m.group(0).split()
            if words[0].lower() in NOT_A_NAME or words[0] in ("M", "Mme", "Me", "Maître"):
                continue
            if re.search(r"(?:\bM\.|Mme|Maître|Me)\s*$", text[: m.start()]):
                continue
            if re.search(
                r"(?i)(?:tribunal|cour|commerce|judiciaire|appel|économiques)\s+(?:\w+\s+)?d[e']\s*$", text[: m.start()]
            ):
                continue  # « tribunal de commerce de Bordeaux »: a court's seat
            before = len(v.names)
            i = v.live.find(m.group(0))
            _add_name(v, m.group(0), max(i, 0))
            if len(v.names) > before or _party_of_phrase(v, m.group(0)):
                return _party_of_phrase(v, m.group(0))
    return None


def _name_at(v: DocView, pos: int) -> str | None:
    """The known name whose mention covers this offset (the parser may cut « Provence | Primeurs »)."""
    for name, spans in v.names.items():
        if any(s0 <= pos < e0 for s0, e0 in spans):
            return name
    return None


def _role_word(text: str, spec: ExtractionSpec) -> str | None:
    t = text.lower()
    for party in PARTIES:
        for w in spec.party_words.get(party, []):  # type: ignore[call-overload]
            if _rx(w).search(t):
                return party
    return None


SELF, OTHER = "\x00self", "\x00other"  # the writer's party and the addressee's, resolved to names at the end
CLAUSE_DEPS = ("acl", "acl:relcl", "advcl", "ccomp", "parataxis", "conj", "punct")


class _Votes:
    """Evidence for each role: a weight per (role, name), summed over the document; the pair of distinct names
    with the most weight wins (no first clue met decides alone)."""

    def __init__(self) -> None:
        self.w: dict[str, dict[str, float]] = {p: {} for p in PARTIES}

    def add(self, party: str, name: str | None, weight: float) -> None:
        if name and party in PARTIES:
            self.w[party][name] = self.w[party].get(name, 0.0) + weight

    def resolve(self, writer: str | None, addressee: str | None) -> None:
        for party in PARTIES:
            for key, name in ((SELF, writer), (OTHER, addressee)):
                if key in self.w[party]:
                    weight = self.w[party].pop(key)
                    if name:
                        self.add(party, name, weight)

    def decide(self) -> dict[str, str]:
        c, d = self.w["claimant"], self.w["defence"]
        best: tuple[tuple[float, int], str | None, str | None] | None = None
        for cn in [None, *c]:
            for dn in [None, *d]:
                if cn is not None and cn == dn:
                    continue
                score = (c[cn] if cn else 0.0) + (d[dn] if dn else 0.0)
                key = (score, int(cn is not None) + int(dn is not None))
                if best is None or key > best[0]:
                    best = (key, cn, dn)
        out: dict[str, str] = {}
        if best is not None:
            if best[1]:
                out["claimant"] = best[1]
            if best[2]:
                out["defence"] = best[2]
        return out


def _who(v: DocView, tok: Any, learn: bool = True) -> str | None:
    """The party a token names: « nous » / « je » the writer (SELF), « vous » the addressee (OTHER), a known name
    its mention covers, else the name its phrase carries (learnt from the noun phrase itself, never from a
    clause hanging on it: « la TMA confiée à X » names X, not « TMA »)."""
    low = tok.lower_
    if low in ("nous", "je", "j'", "moi"):
        return SELF
    if low == "qui" and tok.head.dep_ == "acl:relcl":  # « X, qui a rompu »: the antecedent
        return _who(v, tok.head.head, learn)
    if low in ("celle-ci", "celui-ci") or (
        low in ("dernière", "dernier") and any(c.lower_ in ("cette", "ce") for c in tok.children)
    ):  # « cette dernière », « celle-ci »: the name mentioned last before it
        prior = [(sp[0], n) for n, sps in v.names.items() for sp in sps if sp[1] <= tok.idx]
        return max(prior)[1] if prior else None
    if low == "vous":
        return OTHER
    if tok.pos_ == "PRON" or low in ("qui", "que", "elle", "il", "ils", "elles", "lui", "leur"):
        return None
    if name := _name_at(v, tok.idx):
        return name
    sub = list(tok.subtree)
    end = sub[-1].i + 1  # the parser may cut a name after its first word (« la société Biscuits | Perrot »)
    doc = tok.doc
    while end < len(doc) and doc[end].text[:1].isupper() and doc[end].pos_ == "PROPN":
        end += 1
    for t in [*sub, *doc[sub[-1].i + 1 : end]]:
        if t.pos_ == "PROPN" and (name := _name_at(v, t.idx)):
            return name
    if name := _party_of_phrase(v, " ".join(t.text for t in sub)):
        return name
    if not learn:
        return None
    drop = {t.i for c in tok.children if c.dep_ in CLAUSE_DEPS for t in c.subtree}
    core = " ".join(t.text for t in sub if t.i not in drop)
    return _party_of_phrase(v, core, learn=True)


NOUN_CASES = (None, "de", "d'", "à", "au", "du")  # « informé X de la fin », not « selon l'arrêt attaqué »


def _case_word(tok: Any) -> str | None:
    marks = [k.lower_ for k in tok.children if k.dep_ in ("case", "mark")]
    return marks[0] if marks else None


def _rupture_votes(v: DocView, spec: ExtractionSpec, votes: _Votes) -> None:
    """Roles from the syntax of every sentence telling the rupture: the subject of a rupture verb (or the agent
    of its passive, « par Y ») is its author; its passive subject, its object when a party, or the party after
    « à / avec / auprès de » is the other side (« X a été déréférencé par Y », « Y a mis fin à la relation avec
    X », « la rupture notifiée à X »). Each clue is a vote; a threat or an intention counts half."""
    singles = {c.lower() for c in spec.termination_cues if " " not in c}
    told = 0  # the first sentences telling the rupture tell its author; later ones, often the reply to it
    for s in v.sentences:
        trig = {tok.i: tok for tok in s.span if tok.lemma_.lower() in singles}
        toks = list(s.span)
        for cue in spec.termination_cues:  # a phrase cue on the lemmas too (« nous mettons fin »)
            if " " in cue and (m := _rx(cue).search(s.lemmas)):
                first = s.lemmas[: m.start()].count(" ")
                if first < len(toks):
                    trig.setdefault(toks[first].i, toks[first])
            for m in _rx(cue).finditer(s.low):
                tok = s.token_at(s.start + m.start())
                if tok.pos_ in ("PART", "ADV") and tok.head.pos_ in ("VERB", "AUX"):  # « ne plus commander »
                    tok = tok.head
                trig.setdefault(tok.i, tok)
        before = {p: dict(w) for p, w in votes.w.items()}
        for tok in trig.values():
            weight = (1.0 if told < 2 else 0.5) * (0.5 if fr.conditional(tok) else 1.0)
            if tok.pos_ in ("VERB", "AUX"):
                verbs = [tok]
            elif tok.pos_ == "NOUN":  # « la rupture notifiée à X par Y », « Y a informé X de la fin »
                verbs = [c for c in tok.children if c.dep_ == "acl"]
                head = next((a for a in list(tok.ancestors)[:3] if a.pos_ == "VERB"), None)
                if head is not None and tok.dep_ not in ("nsubj", "obl:mod", "appos") and _case_word(tok) in NOUN_CASES:
                    verbs.append(head)  # the verb the noun hangs on (the parser may hang it on a name first)
                for c in tok.children:  # « la résiliation par Y »
                    if c.dep_ == "nmod" and _case_word(c) == "par":
                        votes.add("defence", _who(v, c), 2 * weight)
            else:
                continue
            for verb in verbs:
                _verb_votes(v, verb, votes, weight)
        if votes.w != before:
            told += 1


def _verb_votes(v: DocView, verb: Any, votes: _Votes, weight: float) -> None:
    """A rupture verb's parties: its subject (or agent) is the author, a passive subject, its object or the
    party it is done with (« avec X », « à X ») the victim."""
    _subject_votes(v, verb, votes, weight)
    for c in verb.children:
        if c.dep_ == "obj":
            _object_votes(v, c, votes, weight)
        elif c.dep_ in ("iobj", "obl:arg", "obl", "obl:mod") and (
            _case_word(c) in ("à", "avec", "auprès", "au", "aux") or c.dep_ == "iobj"
        ):
            votes.add("claimant", _who(v, c), 2 * weight)
            for n in c.children:
                if n.dep_ == "nmod" and _case_word(n) in ("avec", "de", "d'"):
                    votes.add("claimant", _who(v, n, learn=False), 1.5 * weight)


def _subject_votes(v: DocView, verb: Any, votes: _Votes, weight: float) -> None:
    """The subject that names a party, on the verb or up to two clauses above it (« elle », « qui »: the clause
    above says whom); a subject that is no party (« les commandes … diminuer ») stops the search."""
    for anc in [verb, *list(verb.ancestors)[:2]]:
        found = False
        for c in anc.children:
            if c.dep_ in ("nsubj", "obl:agent") and (who := _who(v, c)):
                votes.add("defence", who, 3 * weight)
                found = True
            elif c.dep_ == "nsubj:pass" and (who := _who(v, c)):
                votes.add("claimant", who, 3 * weight)
                found = True
        if found or any(c.dep_.startswith("nsubj") and c.pos_ != "PRON" for c in anc.children):
            break  # it is not the author's act when the subject is no party
        if anc.dep_ not in ("xcomp", "ccomp", "advcl", "acl", "conj", "acl:relcl"):
            break


def _object_votes(v: DocView, obj: Any, votes: _Votes, weight: float) -> None:
    """The verb's object names the victim, or carries it: « la relation avec X », « le contrat de X », « la TMA
    confiée à X »."""
    name = _who(v, obj, learn=False)
    if name:
        votes.add("claimant", name, 2 * weight)
    for n in obj.children:
        if n.dep_ in ("nmod", "acl") and _case_word(n) in ("avec", "de", "d'", "à"):
            votes.add("claimant", _who(v, n, learn=False), 1.5 * weight)
        if n.dep_ == "acl":
            for m in n.children:
                if m.dep_.startswith("obl") and _case_word(m) in ("à", "avec", "auprès"):
                    votes.add("claimant", _who(v, m, learn=False), 1.5 * weight)


def _sender(v: DocView) -> str | None:
    """The company of an e-mail's sender, from its address's domain (« De : achats@bricomax.fr »)."""
    m = re.search(r"(?im)^(?:De|From)\s*:[^\n@]*@([\w-]+)\.", v.doc.text[:400])
    if not m:
        return None
    dom = word_key(m.group(1)).replace("-", "")
    for name in v.names:
        squashed = re.sub(r"[^a-z0-9]", "", word_key(name))
        if len(dom) >= 4 and (squashed.startswith(dom) or dom.startswith(squashed) or dom in squashed):
            return name
    return None


def _greeted(v: DocView) -> str | None:
    """The party a letter greets: « Monsieur Roche, » is Visseries Roche when that name ends with it."""
    if v.doc.kind not in (DocumentKind.LETTER, DocumentKind.EMAIL):
        return None
    m = SALUTATION.search(v.live[:600])
    if not m:
        return None
    who = word_key(m.group(1))
    return next((n for n in v.names if word_key(n) == who or word_key(n).endswith(" " + who)), None)


def _roles(v: DocView, spec: ExtractionSpec) -> None:
    """Who is the victim (claimant) and who the author (defence) of the rupture, in this document: every clue
    (the party's own heading or signature, « X c/ Y », procedural words, the syntax of the rupture sentences,
    « notre cliente, X », who supplies whom) is a weighted vote; the best pair of distinct names wins."""
    votes = _Votes()
    writer, addressee = _writer_and_addressee(v, votes)
    _caption_votes(v, votes)
    _procedure_votes(v, votes)
    other = "defence" if v.author == "claimant" else "claimant" if v.author == "defence" else None
    named = _party_phrase_votes(v, votes, other)
    addressee = addressee or named
    _role_word_votes(v, spec, votes)
    if other:
        _speech_votes(v, spec, votes, other)
    _first_person_author(v, spec)
    if v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL, DocumentKind.OTHER) and v.author in PARTIES:
        votes.add(v.author, writer, 2)  # the letterhead is the writer's
    _rupture_votes(v, spec, votes)  # the syntax of the rupture sentences
    votes.resolve(writer, addressee)
    supply = _supply_votes(v, spec, votes, votes.decide())
    v.roles = _complete_roles(v, spec, votes, votes.decide(), supply)
    v.cache["votes"] = votes.w


def _writer_and_addressee(v: DocView, votes: _Votes) -> tuple[str | None, str | None]:
    """Who wrote this document and to whom: a party's own heading, signature and addressee vote for it and
    the other side; else the signature, the letterhead, an e-mail's sender, the greeting."""
    writer: str | None = None
    addressee: str | None = None
    if v.author in PARTIES:  # the party's own heading or signature names it; the addressee is the other
        for key in ("heading", "signature"):
            if isinstance(v.cache.get(key), str):
                name = _party_of_phrase(v, str(v.cache[key]))
                votes.add(v.author, name, 6)
                writer = writer or name
        if isinstance(v.cache.get("addressee"), str):
            addressee = _party_of_phrase(v, str(v.cache["addressee"]))
            votes.add("defence" if v.author == "claimant" else "claimant", addressee, 5)
    elif isinstance(v.cache.get("signature"), str):
        writer = _party_of_phrase(v, str(v.cache["signature"]))
    if writer is None and v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL, DocumentKind.OTHER):
        writer = _letterhead(v)
    if addressee is None and isinstance(v.cache.get("addressee"), str):
        addressee = _party_of_phrase(v, str(v.cache["addressee"]))
    if sender := _sender(v):  # an e-mail's « De : achats@x.fr »: the writer's company
        writer = sender
        if v.author in PARTIES:
            votes.add(v.author, sender, 5)
    if addressee is None and (greeted := _greeted(v)):
        addressee = greeted
    return writer, addressee


def _letterhead(v: DocView) -> str | None:
    """The first name, alone at the head of a short line in the first lines (or after « Client : » in a
    party's own note)."""
    for s0, n in sorted((sp[0], n) for n, sps in v.names.items() for sp in sps if 0 <= sp[0] < 250):
        line0 = v.live.rfind("\n", 0, s0) + 1
        line = v.live[line0 : (v.live.find("\n", s0) + 1 or len(v.live) + 1) - 1]
        lead = v.live[line0:s0]
        if re.search(r"(?i)attention|destinataire|^\s*à\b", lead):
            return None
        if (len(line) < 70 and not lead.strip()) or (v.author and re.fullmatch(r"(?i)\s*client\s*:\s*\w*\s*", lead)):
            return n
        return None
    return None


def _caption_votes(v: DocView, votes: _Votes) -> None:
    """« X c/ Y », and « X / Y » in a title or a summary's first line (« Coopérative X / enseigne Y »): the
    victim first."""
    if m := re.search(
        r"(?P<a>" + NAME + r")(?:\s*\([^)\n]{1,40}\))?\s+(?:c/|contre)\s+(?:la\s+société\s+)?(?P<b>" + NAME + ")",
        v.live,
    ):
        votes.add("claimant", _party_of_phrase(v, m.group("a"), learn=True), 4)
        votes.add("defence", _party_of_phrase(v, m.group("b"), learn=True), 4)
    head = v.live[: max(v.live.find("\n"), 0) or len(v.live)]
    if sm := re.search(
        r"(?P<a>"
        + NAME
        + r")\s*/\s*(?:(?:la\s+)?(?:société|centrale|enseigne|fabricant|distributeur|grossiste|groupe)(?:\s+[a-zéèêàç]+)?\s+)?(?P<b>"
        + NAME
        + ")",
        head if v.author not in PARTIES else "",
    ):
        votes.add("claimant", _party_of_phrase(v, sm.group("a"), learn=True), 3)
        votes.add("defence", _party_of_phrase(v, sm.group("b"), learn=True), 3)


def _procedure_votes(v: DocView, votes: _Votes) -> None:
    """« X assigne / attrait / poursuit Y »: the subject sues (claimant), the object is sued (defence)."""
    for s in v.sentences:
        for tok in s.span:
            if tok.lemma_.lower() not in ("assigner", "attraire", "poursuivre") or tok.pos_ != "VERB":
                continue
            subj = [c for c in tok.children if c.dep_.startswith("nsubj")]
            obj = [c for c in tok.children if c.dep_ in ("obj", "obl:arg")]
            if subj and not any(c.dep_ == "nsubj:pass" for c in subj):
                votes.add("claimant", _party_of_phrase(v, " ".join(t.text for t in subj[0].subtree), learn=True), 4)
            if obj:
                votes.add("defence", _party_of_phrase(v, " ".join(t.text for t in obj[0].subtree), learn=True), 4)


def _party_phrase_votes(v: DocView, votes: _Votes, other: str | None) -> str | None:
    """A party's own words: « notre cliente, X », « au nom de X » (the author's party), « votre client, X »,
    « à l'attention de X » (the other side: returned, it is the addressee), the last line's signature."""
    own = (
        r"(?:(?:[Nn]otre|[Mm]on|[Mm]a)\s+(?:client(?:e)?|société|entreprise)|[Aa]u\s+nom\s+de(?:\s+la\s+société)?)\s*,?\s*(?:la\s+société\s+|l')?("
        + NAME
        + ")"
    )
    if v.author and (m := re.search(own, _unwrap(v.live))):  # a name wrapped over two lines
        _add_name(v, m.group(1), m.start(1))
        votes.add(v.author, _party_of_phrase(v, m.group(1)), 5)
    addressee: str | None = None
    if other and (
        m := re.search(
            r"(?:[Vv]otre\s+(?:client(?:e)?|agence|société|entreprise)\s*(?:,|\()|attention\s+d[e']|gérante?\s+d[e']|directeur\s+d[e']|directrice\s+d[e']|^À\s*:?)\s*(?:la\s+société\s+|l')?("
            + NAME
            + ")",
            v.live,
            re.MULTILINE,
        )
    ):
        _add_name(v, m.group(1), m.start(1))
        addressee = _party_of_phrase(v, m.group(1))
        votes.add(other, addressee, 4)
    if v.author in PARTIES and v.doc.kind in (DocumentKind.EMAIL, DocumentKind.LETTER, DocumentKind.SUBMISSION):
        lines = [ln for ln in v.live.rstrip().split("\n") if ln.strip()]
        if lines and len(lines[-1]) < 80:
            last = lines[-1].split(",")[-1].strip()
            if re.fullmatch(NAME + r"(?:\s+" + LEGAL_FORMS + ")?", last) and len(last.split()) >= 2:
                _add_name(v, last, v.live.rfind(last))
                votes.add(v.author, _party_of_phrase(v, last), 3)
    return addressee


def _role_word_votes(v: DocView, spec: ExtractionSpec, votes: _Votes) -> None:
    """A role word in apposition: « la société X (ci-après la demanderesse) », « X, défenderesse »,
    « la demanderesse, X, »."""
    for name, spans in list(v.names.items()):
        for _s0, e0 in spans:
            after = v.live[e0 : e0 + 60]
            if role := _role_word(re.split(r"[.;]", after)[0][:40], spec):
                if re.search(r"^\W{0,4}(?:\(|,|ci-après|soit)", after):
                    votes.add(role, name, 5)
    for m in re.finditer(r"(?:[Ll]'|[Ll]a\s+|[Ll]e\s+)(\w+)\s*,\s*(?:la\s+société\s+)?(" + NAME + r")\s*,", v.live):
        if role := _role_word(m.group(1), spec):
            votes.add(role, _party_of_phrase(v, m.group(2), learn=True), 5)


def _speech_votes(v: DocView, spec: ExtractionSpec, votes: _Votes, other: str) -> None:
    """« X soutient que … » in a party's own document: X is the other side."""
    for s in v.sentences:
        for tok in s.span:
            if tok.lemma_.lower() in spec.speech_verbs and tok.pos_ == "VERB":
                subj = [c for c in tok.children if c.dep_ == "nsubj" and c.text[:1].isupper()]
                if subj and subj[0].lower_ not in ("nous", "je", "elle", "il"):
                    votes.add(other, _party_of_phrase(v, " ".join(t.text for t in subj[0].subtree), learn=True), 2)


def _first_person_author(v: DocView, spec: ExtractionSpec) -> None:
    """A letter whose writer terminates in the first person (« nous résilions »): its writer is the author
    of the rupture (its grounds, fault or force majeure, are then only alleged)."""
    if v.author is not None or v.doc.kind not in (DocumentKind.LETTER, DocumentKind.EMAIL, DocumentKind.OTHER):
        return
    for s in v.sentences:
        hit = s.find(spec.termination_cues)
        if hit and re.search(r"\b(?:nous|je)\b", s.low) and not fr.conditional(s.token_at(hit[1])):
            if not re.search(r"\bvous\s+(?:nous\s+|m'|me\s+)?(?:avez|aviez)\b", s.low):
                v.author = "defence"
                return


def _supply_votes(v: DocView, spec: ExtractionSpec, votes: _Votes, roles: dict[str, str]) -> tuple[str, str] | None:
    """The subject of a supply verb is the supplier, its object the customer: with one role known, the
    supplier is the victim, and the other way round. Returns the first (supplier, customer) pair no known
    role places."""
    supply: tuple[str, str] | None = None
    for s in v.sentences:
        for tok in s.span:
            if tok.lemma_.lower() not in spec.supply_verbs or tok.pos_ != "VERB":
                continue
            subj = [c for c in tok.children if c.dep_ == "nsubj"]
            objs = [c for c in tok.children if c.dep_ in ("obj", "obl:arg", "iobj", "obl")]
            sname = _party_of_phrase(v, " ".join(t.text for t in subj[0].subtree), learn=True) if subj else None
            onames = [_party_of_phrase(v, " ".join(t.text for t in o.subtree), learn=True) for o in objs]
            oname = next((n for n in onames if n and n != sname), None)
            if any(c.dep_.startswith("expl") or c.lower_ in ("se", "s'") for c in tok.children):
                sname, oname = oname, sname  # « X s'approvisionne auprès de Y »: Y supplies X
            if not (sname and oname):
                continue
            if roles.get("defence") == oname or roles.get("claimant") == sname:
                votes.add("claimant", sname, 2)
                votes.add("defence", oname, 2)
            elif roles.get("defence") == sname or roles.get("claimant") == oname:
                votes.add("claimant", oname, 2)
                votes.add("defence", sname, 2)
            else:
                supply = supply or (sname, oname)
    return supply


def _complete_roles(
    v: DocView, spec: ExtractionSpec, votes: _Votes, roles: dict[str, str], supply: tuple[str, str] | None
) -> dict[str, str]:
    """Where a rupture is told and the votes left a role open: the supplier is the usual victim; a summary
    introduces the victim first; with one role known, the one sure name left is the other."""
    names = list(v.names)
    told = any(s.find(spec.termination_cues) for s in v.sentences)  # a guess only where a rupture is told
    if not roles and supply and told:  # no author named: the supplier is the usual victim
        roles = {"claimant": supply[0], "defence": supply[1]}
    weak = v.cache.get("weak", set())
    names = [n for n in names if n not in weak]  # type: ignore[operator]  # elimination only among sure names
    if len(names) == 2 and not roles and v.author not in PARTIES and v.doc.kind is DocumentKind.OTHER and told:
        roles = {"claimant": names[0], "defence": names[1]}  # a summary introduces the victim first
    if len(v.names) >= 2 and len(roles) == 1:
        known = next(iter(roles.values()))
        other_party = "defence" if "claimant" in roles else "claimant"
        rest = [n for n in names if n != known]
        unsure = [n for n in v.names if n in weak and n != known]  # type: ignore[operator]
        voted = [n for n in unsure if votes.w[other_party].get(n)]
        if rest:
            roles[other_party] = rest[0]
        elif len(unsure) == 1 or voted:  # a name only the parser saw: when it is the only one left, or voted for
            roles[other_party] = max(voted, key=lambda n: votes.w[other_party][n]) if voted else unsure[0]
    return roles


# --- allegation ----------------------------------------------------------------------------------------------
def allegation_of(v: DocView, s: Sentence, fs: FactExtraction, spec: ExtractionSpec) -> str | None:
    """The party that merely alleges what this sentence says, or None when it is evidenced."""
    for tok in s.span:
        lem = tok.lemma_.lower()
        if lem in spec.speech_verbs or (lem == "valoir" and any(c.lemma_ == "faire" for c in tok.children)):
            subj = [c for c in tok.children if c.dep_.startswith("nsubj")]
            if subj:
                phrase = " ".join(t.text for t in subj[0].subtree)
                name = _party_of_phrase(v, phrase)
                party = next((p for p, n in v.roles.items() if n == name), None) or _role_word(phrase, spec)
                if party is None and subj[0].lower_ in ("nous", "je") and v.author in PARTIES:
                    party = v.author
                if party is None and subj[0].lower_ in ("elle", "il") and v.author in PARTIES:
                    party = "defence" if v.author == "claimant" else "claimant"
                if party in PARTIES:
                    return party
                if fs.alleged_in and lem not in ("contester", "reprocher"):
                    return fs.alleged_in[0]  # the party that usually asserts it
    if v.author in fs.admission_by:
        return None
    if v.author in fs.evidence_in_letters_of and v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL):
        return None
    if v.author in PARTIES and v.author in fs.alleged_in:
        return v.author
    return None


# --- the reader ----------------------------------------------------------------------------------------------
# a value cue found in a document: (start, end, the value's rank in the extraction spec, value)
_Hit = tuple[int, int, int, str]


def _value_hits(v: DocView, fs: FactExtraction) -> list[_Hit]:
    """Every cue of every value (words, or a lemma: « fabriquait »), except a cue led by a determiner or a
    possessive below the priority floor (a scope-changing value is the party's own description, never
    « mon avocat »)."""
    hits: list[_Hit] = []
    low = v.live.lower().replace("\n", " ")
    for order, (value, cues) in enumerate(fs.values.items()):
        for c in cues:
            for m in _rx(c).finditer(low):
                hits.append((m.start(), m.end(), order, value))
        singles = {c.lower() for c in cues if " " not in c}
        for s in v.sentences:
            for tok in s.span:
                if tok.lemma_.lower() in singles:
                    hits.append((tok.idx, tok.idx + len(tok.text), order, value))
    floor = fs_priority_floor(fs)
    return [
        h
        for h in hits
        if h[2] >= floor
        or not re.search(
            r"(?:\b(?:mon|ma|mes|notre|nos|votre|vos|son|sa|ses|leur|leurs|un|une|le|la|les|des|du)\s+|\bl'|\bd'un\s+)$",
            low[max(0, h[0] - 12) : h[0]],
        )
    ]


def _not_the_other_sides(v: DocView, fs: FactExtraction, name: str | None, hits: list[_Hit]) -> list[_Hit]:
    """The hits outside another party's name and outside what the other side is or does (« au grossiste
    Y », « Y, qui distribue »)."""
    if not hits:
        return hits
    others = [sp for n, sps in v.names.items() if n != name for sp in sps]
    hits = [h for h in hits if not any(o0 <= h[0] < o1 for o0, o1 in others)]
    other_name = v.roles.get("defence" if fs.role == "claimant" else "claimant")
    if other_name:
        theirs = _described(v, other_name, nominal=True)
        hits = [h for h in hits if not any(a <= h[0] < b for a, b in theirs)]
    return hits


def _own_phrase_hit(v: DocView, name: str, hits: list[_Hit]) -> _Hit | None:
    """What the party's own phrase says it is or does (« X, prestataire de … », « X fabriquait … »): its
    nouns and verbs first (« X distribuait les montures fabriquées par Y »)."""
    mine = _described(v, name)
    core = _described(v, name, nominal=True, verbs=True)  # the name, its nouns, its own verbs
    own = [h for h in hits if any(a <= h[0] < b for a, b in mine)]
    if not own:
        return None
    return min(own, key=lambda h: (not any(a <= h[0] < b for a, b in core), h[2], h[0]))


def _role_anchors(v: DocView, fs: FactExtraction, name: str | None) -> list[tuple[int, int]]:
    """Where the party is named: its name, and for the victim « vous » in the author's letter or « notre
    cliente » / « nous » in its own."""
    anchors: list[tuple[int, int]] = list(v.names.get(name, [])) if name else []
    if fs.role == "claimant":
        for m in re.finditer(r"\b(?:vous|votre|notre\s+client(?:e)?|notre\s+société|nous)\b", v.live, re.IGNORECASE):
            w = m.group(0).lower()
            if (v.author == "defence" and w in ("vous", "votre")) or (
                v.author == "claimant" and not w.startswith(("vous", "votre"))
            ):
                anchors.append(m.span())
    return anchors


def _nearest_hit(anchors: list[tuple[int, int]], hits: list[_Hit]) -> _Hit | None:
    """The hit nearest an anchor (inside the name counts as 0; before it weighs 1.5 times), within 160
    characters, a higher-ranked value preferred."""
    best: tuple[tuple[float, int], _Hit] | None = None
    for a0, a1 in anchors:
        for hit in hits:
            h0, h1, order, _value = hit
            inside = a0 <= h0 and h1 <= a1  # the party's own name says it (« Fromagerie des Causses »)
            dist = 0 if inside else h0 - a1 if h0 >= a1 else 1.5 * (a0 - h1)
            if dist < 0 or dist > 160:
                continue
            key = (dist + 8 * order, h0)
            if best is None or key < best[0]:
                best = (key, hit)
    return best[1] if best else None


def _dates_of_sentence(v: DocView, s: Sentence, fs: FactExtraction, cs: int) -> list[dates.DateFound]:
    """The dates a cued sentence gives the fact: not a notice's end, precise enough, nearer the cue than an
    excluded word (in a long sentence, a decision's, that date is another event's), and « depuis 10 ans »."""
    found = [d for d in dates.dates_in(v.live, s.start, s.end, v.anchor) if not _ends_notice(v.live, d.start)]
    if fs.min_precision != "year":  # day, then month: a coarser date is not this fact's
        coarse = {DatePrecision.YEAR} | ({DatePrecision.MONTH} if fs.min_precision == "day" else set())
        found = [d for d in found if d.precision not in coarse]
    if fs.exclude:
        cues = _positions(s, fs.cues)
        away = _positions(s, fs.exclude)
        found = [
            d
            for d in found
            if not away or min(abs(d.start - a) for a in away) > min(abs(d.start - c) for c in cues or [cs])
        ]
    if fs.relative_years and v.anchor:
        found += _relative_dates(v.live, s, v.anchor)
    return found


def _relative_dates(text: str, s: Sentence, anchor: date) -> list[dates.DateFound]:
    """« depuis dix ans », « ça fait 8 ans », « 12 ans de collaboration »: the year that many years before
    the document's date."""
    found: list[dates.DateFound] = []
    for m in re.finditer(
        r"(?:depuis|il\s+y\s+a|(?:ça|ca|cela)\s+fait)\s+(?:plus\s+de\s+|près\s+de\s+|environ\s+|presque\s+)?(?P<n>[\w-]+(?:[ -][\w-]+)?)\s+ans\b",
        text[s.start : s.end],
        re.IGNORECASE,
    ):
        n = number_word(m.group("n"))
        if n is not None and n == int(n):
            found.append(dates.DateFound(s.start + m.start(), s.start + m.end(), dates.years_ago(anchor, int(n))))
    for m in re.finditer(
        r"(?P<n>[\w-]+)\s+(?:ans|années)\s+de\s+(?:collaboration|relations?|partenariat|travail(?:\s+commun)?)"
        r"|(?:relation|collaboration|partenariat)\s+(?:\w+\s+)?de\s+(?:plus\s+de\s+)?(?P<n2>[\w-]+)\s+(?:ans|années)",
        text[s.start : s.end],
        re.IGNORECASE,
    ):
        n = number_word(m.group("n") or m.group("n2"))
        if n is not None and n == int(n):
            found.append(dates.DateFound(s.start + m.start(), s.start + m.end(), dates.years_ago(anchor, int(n))))
    return found


def _pick_date(
    v: DocView, fs: FactExtraction, cue: str, found: list[dates.DateFound], cs: int
) -> dates.DateFound | None:
    """The sentence's date for the fact: a weak cue (« relation ») needs « depuis 2011 » or a relative length;
    a start is « depuis 2011 » or the earliest date; else the date nearest the cue."""
    if cue in fs.weak_cues:
        found = [d for d in found if _after_since(v.live, d.start) or v.live[d.start : d.end][:1].isalpha()]
    if not found:
        return None
    if fs.relative_years:
        return min(found, key=lambda d: (not _after_since(v.live, d.start), d.interval.start))
    return min(found, key=lambda d: abs(d.start - cs))


class SpecReader:
    """Reads the facts of one pack's extraction spec from documents (prose: letters, e-mails, notes)."""

    def __init__(self, spec: ExtractionSpec, types: dict[str, str]) -> None:
        self.spec = spec
        self.types = types
        self.in_contract = False  # the document being read is a contract (its clauses speak of what may happen)

    def mark_allegations(self, findings: list[Finding]) -> None:
        """Findings of other readers read from a party's own document, or reported as what a party « soutient »,
        become allegations by that party (the same rule as this reader's own findings)."""
        for f in findings:
            fs = self.spec.facts.get(f.fact)
            if f.allegation is not None or fs is None or not f.grounding:
                continue
            g = f.grounding[0]
            v = self.views.get(g.document_id or "")
            if v is None or g.char_start is None:
                continue
            s = next((x for x in v.sentences if x.start <= g.char_start < x.end + 1), None)
            party = allegation_of(v, s, fs, self.spec) if s is not None else None
            if party is not None:
                f.allegation = Allegation.ALLEGED
                f.alleged_by = party
                f.world = World.of_party(party)

    def _facts_for(self, doc: Document) -> dict[str, FactExtraction]:
        """The facts read in ``doc`` (none in an order history or an empty text)."""
        if doc.kind is DocumentKind.ORDER_HISTORY or not doc.text.strip():
            return {}
        contract = doc.kind is DocumentKind.CONTRACT  # its clauses are the structural readers', but a few
        return {k: fs for k, fs in self.spec.facts.items() if fs.in_contracts or not contract}

    def read(self, docs: list[Document]) -> list[Finding]:
        out: list[Finding] = []
        self.views: dict[str, DocView] = {}
        fr.parse_ahead([_unwrap(_live(d)) for d in docs if self._facts_for(d)])  # one batch: same Docs, less CPU
        for doc in docs:
            facts = self._facts_for(doc)
            if not facts:
                continue
            self.in_contract = doc.kind is DocumentKind.CONTRACT
            v = view(doc)
            self.views[doc.id] = v
            _names(v)
            _roles(v, self.spec)
            notif: date | None = None
            for fact, fs in facts.items():
                found = self._read_fact(v, fact, fs, notif)
                for f in found:
                    if f.fact == fact and self.types.get(fact) == "date" and fs.from_document_date and notif is None:
                        notif = date.fromisoformat(str(f.value))
                out += found
        return out

    def _finding(
        self, v: DocView, s: Sentence, fact: str, fs: FactExtraction, value: Any, span: tuple[int, int], **kw: Any
    ) -> Finding:
        party = allegation_of(v, s, fs, self.spec)
        g = v.doc.ground(*span)
        f = Finding(
            fact=fact,
            value=value,
            confidence=kw.pop("confidence", 0.8),
            grounding=[g],
            source="offline:pack",
            note=kw.pop("note", None),
            **kw,
        )
        if party is not None:
            f.allegation = Allegation.ALLEGED
            f.alleged_by = party
            f.world = World.of_party(party)
        return f

    def _candidates(
        self, v: DocView, fs: FactExtraction, local_exclude: bool = False
    ) -> list[tuple[Sentence, str, int, int, bool]]:
        """Sentences with a cue (or a negated negative cue: flip). ``local_exclude``: an excluded word does not
        drop the sentence (the reader drops only the values nearer to it than to the cue)."""
        out = []
        for s in v.sentences:
            hit = s.find(fs.cues) if fs.cues else None
            if hit is not None and self._scope(s, hit[1], fs, hit[2]) == "neg" and fs.negative_cues:
                neg = s.find(fs.negative_cues)
                if neg is not None and fr.negated(s.token_at(neg[1])):
                    hit = neg
            elif hit is None and fs.negative_cues:
                neg = s.find(fs.negative_cues)
                if neg is not None and fr.negated(s.token_at(neg[1])) and not fr.conditional(s.token_at(neg[1])):
                    hit = (neg[0], neg[1], neg[2])
                    if fs.exclude and s.find(fs.exclude):
                        continue
                    out.append((s, *hit, True))
                    continue
            if hit is None:
                continue
            if fs.exclude and not local_exclude and s.find(fs.exclude):
                continue
            if fs.context and v.doc.kind is not DocumentKind.CONTRACT and not s.find(fs.context):
                continue  # in a contract, every sentence is a stipulation: the context is the document
            out.append((s, *hit, False))
        if not out and fs.min_similarity > 0 and fs.question and fs.reader in VALUE_READERS:
            out = self._similar(v, fs)
        return out

    def _similar(self, v: DocView, fs: FactExtraction) -> list[tuple[Sentence, str, int, int, bool]]:
        """No cue: the sentence most like the fact's question (e5), among those that carry a value of its type."""
        from lexlogic.engine.perception import similarity

        value_rx = VALUE_READERS[fs.reader]
        pool = [s for s in v.sentences if value_rx.search(s.text) and not (fs.exclude and s.find(fs.exclude))]
        pool = [s for s in pool if not (fs.context and not s.find(fs.context))]
        found = similarity.best(fs.question, [s.text for s in pool])
        if found is None or found[1] < fs.min_similarity:
            return []
        s = pool[found[0]]
        return [(s, "≈", s.start, s.start, False)]

    def _scope(self, s: Sentence, pos: int, fs: FactExtraction, end: int | None = None) -> str:
        """'pos' asserted, 'neg' denied, 'cond' hypothetical (a negation inside the cue itself, « ne plus
        commander », is the cue's meaning, not a denial of it)."""
        tok = s.token_at(pos)
        if (
            fs.conditional_blocks
            and not self.in_contract
            and (  # a contract stipulates for what may happen
                fr.conditional(tok) or _conditional_words(s, self.spec, pos) or _conditional_clause(s, pos)
            )
        ):
            return "cond"
        if fs.negatable and fr.negated(tok, ignore=(pos, end or pos)):
            return "neg"
        if any(t.lemma_.lower() in self.spec.denial_verbs for t in s.span):  # « nous contestons toute rupture »
            return "neg"
        return "pos"

    def _read_fact(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None) -> list[Finding]:
        reader = getattr(self, f"_r_{fs.reader}")
        return list(reader(v, fact, fs, notif))

    # bool ---------------------------------------------------------------------------------------------------
    def _r_bool(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        readings: list[Finding] = []
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            scope = self._scope(s, cs, fs, ce) if not flip else "pos"
            if scope == "cond":
                continue
            if fs.values:
                for val in fs.values:  # in the pack's order: the first listed wins (« sans écrit » before « écrit »)
                    hit = s.find(fs.values.get(val, []))
                    if hit:
                        readings.append(self._finding(v, s, fact, fs, val == "true", (hit[1], hit[2])))
                        break
                continue
            value = scope == "pos"
            readings.append(self._finding(v, s, fact, fs, value, (s.start, s.end) if not value else (cs, ce)))
        if readings:
            # what the document itself establishes (the court's finding, usually last) outranks what a party
            # merely alleges; among allegations, the first
            evidenced = [f for f in readings if f.allegation is None]
            yield evidenced[-1] if evidenced else readings[0]
            return
        if fs.true_in_own_letter and v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL):
            # the author's own letter or e-mail of termination is itself the written notice
            if v.author == "defence" or v.doc.metadata.get("author_party") is None:
                for s in v.sentences:
                    hit = s.find(self.spec.termination_cues)
                    if hit and self._scope(s, hit[1], fs) == "pos" and re.search(r"\b(nous|je)\b", s.low):
                        yield self._finding(v, s, fact, fs, True, (s.start, s.end), note="la lettre elle-même")
                        return

    # enum ---------------------------------------------------------------------------------------------------
    def _r_enum(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        if fs.role:
            yield from self._role_enum(v, fact, fs)
            return
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            if fs.window:
                window = v.live[ce : ce + fs.window].lower()
                for value, cues in fs.values.items():
                    if any(_rx(c).search(window) for c in cues):
                        yield self._finding(v, s, fact, fs, _typed(value), (cs, min(s.end, ce + fs.window)))
                        return
                continue
            for value, cues in fs.values.items():
                hit = s.find(cues)
                if hit and self._scope(s, hit[1], fs) == "pos":
                    yield self._finding(v, s, fact, fs, _typed(value), (min(cs, hit[1]), max(ce, hit[2])))
                    return
            if fs.default_value:
                yield self._finding(v, s, fact, fs, _typed(fs.default_value), (cs, ce))
                return

    def _role_enum(self, v: DocView, fact: str, fs: FactExtraction):  # type: ignore[no-untyped-def]
        """An attribute of one party (its activity): the value cue nearest that party's name (words or
        lemmas: « fabriquait »), else near « vous » / « notre cliente » when the document speaks to or for it,
        else the first in the document."""
        if not _has_rupture(self, v):
            return
        name = v.roles.get(fs.role or "")
        hits = _not_the_other_sides(v, fs, name, _value_hits(v, fs))
        if not hits:
            return
        own = _own_phrase_hit(v, name, hits) if name else None
        if own is not None:
            yield self._hit_finding(v, fact, fs, own, 0.75)
            return
        best, conf = _nearest_hit(_role_anchors(v, fs, name), hits), 0.7
        if best is None:  # far from the victim: the first ordinary activity word, weakly; never one that would
            # take the case out of the law's scope (a lawyer's letterhead is not the victim's profession)
            plain = [h for h in hits if h[2] >= fs_priority_floor(fs)]
            neutral = v.doc.kind is DocumentKind.OTHER and v.author not in PARTIES  # a summary, a decision
            if not plain or not neutral or not _has_rupture(self, v):
                return
            best, conf = min(plain, key=lambda h: (h[0], h[2])), 0.55
        yield self._hit_finding(v, fact, fs, best, conf)

    def _hit_finding(self, v: DocView, fact: str, fs: FactExtraction, hit: _Hit, confidence: float) -> Finding:
        """The finding of a value cue found at ``hit``, grounded in its sentence."""
        h0, h1, _order, value = hit
        s = next((x for x in v.sentences if x.start <= h0 < x.end + 1), v.sentences[0])
        return self._finding(v, s, fact, fs, _typed(value), (h0, h1), confidence=confidence)

    # party --------------------------------------------------------------------------------------------------
    def _r_party(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        name = v.roles.get(fs.role or "")
        if not name or not _has_rupture(self, v):
            return
        s0, e0 = v.names[name][0]
        s = next((x for x in v.sentences if x.start <= s0 < x.end + 1), v.sentences[0])
        value = name.title() if name.isupper() else name  # a letterhead in capitals: the name as spelt
        f = self._finding(v, s, fact, fs, value, (s0, e0), confidence=0.75)
        yield f

    # dates ----------------------------------------------------------------------------------------------------
    def _r_date(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        """The first cued sentence that dates the fact (the date nearest its cue, or for a start the earliest,
        « depuis 2011 » first); else, for the author's own letter of termination, the letter's date. A date
        right after the fact's ``date_lead`` (« facture n° 24-118 du ») is read first."""
        if fs.date_lead and (led := self._led_date(v, fact, fs)) is not None:
            yield led
            return
        for s, cue, cs, ce, flip in self._candidates(v, fs, local_exclude=True):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            best = _pick_date(v, fs, cue, _dates_of_sentence(v, s, fs, cs), cs)
            if best is not None:
                yield self._date_finding(v, s, fact, fs, best, (min(best.start, cs), max(best.end, ce)))
                return
        if fs.from_document_date and v.anchor and v.doc.kind in (DocumentKind.LETTER, DocumentKind.EMAIL):
            yield from self._letter_date(v, fact, fs, v.anchor)

    def _led_date(self, v: DocView, fact: str, fs: FactExtraction) -> Finding | None:
        """The first day-precise date written right after the fact's lead (a reference then « du »)."""
        lead = re.compile(rf"(?:{fs.date_lead})\s*$", re.IGNORECASE)
        for s in v.sentences:
            for d in dates.dates_in(v.live, s.start, s.end, v.anchor):
                if d.precision is DatePrecision.DAY and lead.search(v.live[max(s.start, d.start - 80) : d.start]):
                    if (self._scope(s, d.start, fs) if fs.negatable else "pos") == "cond":
                        continue
                    return self._date_finding(v, s, fact, fs, d, (d.start, d.end))
        return None

    def _letter_date(self, v: DocView, fact: str, fs: FactExtraction, anchor: date):  # type: ignore[no-untyped-def]
        """The author's own letter or e-mail of termination (« nous … ») is dated by itself."""
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (
                (self._scope(s, cs, fs, ce) if not flip else "pos") == "pos"
                and re.search(r"\b(nous|je)\b", s.low)
                and v.author != "claimant"
            ):
                iv = dates.interval_of(anchor, DatePrecision.DAY)
                f = self._finding(v, s, fact, fs, anchor.isoformat(), (cs, ce), note="date de la lettre")
                f.interval = None if iv.precision is DatePrecision.DAY else iv
                yield f
                return

    def _date_finding(
        self, v: DocView, s: Sentence, fact: str, fs: FactExtraction, d: dates.DateFound, span: tuple[int, int]
    ) -> Finding:
        f = self._finding(v, s, fact, fs, d.value.isoformat(), span)
        if d.precision is not DatePrecision.DAY:
            f.interval = d.interval
            f.note = f"date connue au {'mois' if d.precision is DatePrecision.MONTH else 'an'} près : intervalle"
        return f

    # numbers ----------------------------------------------------------------------------------------------------
    def _r_months(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        for s in v.sentences:
            if fs.zero and (hit := s.find(fs.zero)) and not (fs.exclude and s.find(fs.exclude)):
                if self._scope(s, hit[1], fs) != "cond":
                    yield self._finding(v, s, fact, fs, 0.0, (hit[1], hit[2]))
                    return
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            best = _nearest_length(v, s, cs, "months", fs.window)
            if best:
                yield self._finding(v, s, fact, fs, best[1], (min(cs, best[2]), max(ce, best[3])))
                return
            if notif and fact and fs.zero:  # « à effet au 31 janvier 2016 »: months from the notification
                ends = [d for d in dates.dates_in(v.live, s.start, s.end, v.anchor) if d.precision is DatePrecision.DAY]
                ends = [d for d in ends if d.interval.start > notif]
                if ends:
                    d = ends[0]
                    value = round(months_between(notif, d.interval.start), 2)
                    yield self._finding(v, s, fact, fs, value, (min(cs, d.start), max(ce, d.end)))
                    return

    def _r_quantity(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        """A number and its unit near the cue (« payables à 45 jours »), counted in the fact's unit; 0 where a
        ``zero`` phrase says none (« paiement comptant »)."""
        for s in v.sentences:
            if fs.zero and (hit := s.find(fs.zero)) and self._scope(s, hit[1], fs) == "pos":
                yield self._finding(v, s, fact, fs, 0, (hit[1], hit[2]))
                return
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            if best := _nearest_length(v, s, cs, fs.unit):
                value = int(best[1]) if self.types.get(fact) == "int" and best[1] == int(best[1]) else best[1]
                yield self._finding(v, s, fact, fs, value, (min(cs, best[2]), max(ce, best[3])))
                return

    def _r_amount(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        """A sum of money in euros in the cue's sentence (« pour un montant de 18 600 € TTC », « 420 € de
        frais »): the first written after the cue, else the nearest before it; among the sums on the fact's
        basis when the pack names one (``amounts.on_basis``: TTC, or HT + TVA when both are given)."""
        if fs.unless_in_document and any(s.find(fs.unless_in_document) for s in v.sentences):
            return  # an instalment: the sum unpaid at the due date is a computation the text does not make
        for s in v.sentences:
            if fs.zero and (hit := s.find(fs.zero)) and self._scope(s, hit[1], fs) != "cond":
                yield self._finding(v, s, fact, fs, 0.0, (hit[1], hit[2]))
                return
        cands = self._candidates(v, fs, local_exclude=fs.local_exclude)
        if fs.ranked_cues:
            cands = sorted(cands, key=lambda c: (fs.cues.index(c[1]) if c[1] in fs.cues else len(fs.cues), c[2]))
        for s, _cue, cs, ce, flip in cands:
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            sums = [
                amounts.Sum(m.start(), m.end(), value)
                for m in AMOUNT_RE.finditer(v.live, s.start, s.end)
                if (value := amount(m.group("n"), m.group("mult"))) is not None and value > 0
            ]
            sums = sorted(sums + amounts.in_words(v.live, s.start, s.end), key=lambda x: x.start)
            if fs.local_exclude and (away := _positions(s, fs.exclude)):
                near = _positions(s, fs.cues) or [cs]  # a sum nearer an excluded word is that word's (« 40 € »)
                sums = [x for x in sums if min(abs(x.start - a) for a in away) > min(abs(x.start - c) for c in near)]
            found = amounts.on_basis(v.live, sums, fs.amount_marks, fs.amount_excluded_marks, fs.amount_added)
            after = [x for x in found if x.start >= ce]
            before = [x for x in found if x.end <= cs]
            pick = after[0] if after else (before[-1] if before else None)
            if pick is not None:
                span = (min(cs, pick.start), max(ce, pick.end))
                yield self._finding(v, s, fact, fs, round(pick.value, 2), span)
                return

    def _r_count(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            if m := COUNT_RE.search(v.live, s.start, s.end):
                yield self._finding(v, s, fact, fs, int(re.sub(r"\D", "", m.group("n"))), m.span())
                return

    def _r_percent(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        for s, _cue, cs, ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs, ce) if not flip else "pos") != "pos":
                continue
            ms = [m for m in PCT_RE.finditer(v.live, s.start, s.end) if "point" not in m.group(0)]
            if not ms and re.search(r"de\s+moitié|la\s+moitié", s.low):
                m2 = re.search(r"(?:de\s+|la\s+)moitié", v.live[s.start : s.end], re.IGNORECASE)
                if m2:
                    yield self._finding(v, s, fact, fs, 50.0, (s.start + m2.start(), s.start + m2.end()))
                    return
            if ms:
                m = min(ms, key=lambda m: abs(m.start() - cs))
                value = float(m.group("n").replace(",", "."))
                if 0 < value <= 100:
                    yield self._finding(v, s, fact, fs, value, (min(cs, m.start()), max(ce, m.end())))
                    return

    def _r_amounts_by_year(self, v: DocView, fact: str, fs: FactExtraction, notif: date | None):  # type: ignore[no-untyped-def]
        years: dict[str, float] = {}
        spans: list[tuple[int, int]] = []
        first: Sentence | None = None
        for s, _cue, cs, _ce, flip in self._candidates(v, fs):
            if (self._scope(s, cs, fs) if not flip else "pos") == "cond":
                continue
            for am in AMOUNT_RE.finditer(v.live, s.start, s.end):
                value = amount(am.group("n"), am.group("mult"))
                if value is None or value < 1000:
                    continue
                after = YEAR_NEAR_RE.match(v.live, am.end() + (1 if v.live[am.end() : am.end() + 1] == " " else 0))
                before = list(YEAR_NEAR_RE.finditer(v.live, max(s.start, am.start() - 40), am.start()))
                year = after.group(1) if after else before[-1].group(1) if before else None
                if year is None or year in years:
                    continue
                years[year] = value
                spans.append((am.start(), after.end() if after else am.end()))
                first = first or s
        if years and first is not None:
            f = self._finding(v, first, fact, fs, dict(sorted(years.items())), spans[0])
            f.grounding = [v.doc.ground(*sp) for sp in spans]
            yield f


PER_UNIT: dict[str, dict[str, float]] = {  # how many of the target unit one source unit is
    "months": {"an": 12, "sem": 0.25, "jour": 1 / 30, "mois": 1},
    "days": {"an": 365, "sem": 7, "jour": 1, "mois": 30},
    "weeks": {"an": 52, "sem": 1, "jour": 1 / 7, "mois": 30 / 7},
    "years": {"an": 1, "sem": 1 / 52, "jour": 1 / 365, "mois": 1 / 12},
}


def _nearest_length(
    v: DocView, s: Sentence, cs: int, unit: str, window: int | None = None
) -> tuple[int, float, int, int] | None:
    """The length (number + unit) nearest the cue, within 60 characters (or the fact's ``window``), in
    ``unit``: (distance, value, start, end). A length introduced by « depuis », « relation » or « durée » is
    the relation's, not this. « quatre premiers mois » counts as four."""
    best = None
    for m in NUM_UNIT_RE.finditer(v.live, s.start, s.end):
        n = number_word(m.group("n").split()[-1] if not m.group("n")[0].isdigit() else m.group("n"))
        if not m.group("n")[0].isdigit():
            n = number_word(m.group("n")) or number_word(m.group("n").split()[-1])
            if n is None and re.fullmatch(r"\w+ (?:premiers|derniers)", m.group("n"), re.IGNORECASE):
                n = number_word(m.group("n").split()[0])
        if n is None:
            continue
        u = m.group("u").lower()
        key = (
            "an" if u.startswith("an") else "sem" if u.startswith("sem") else "jour" if u.startswith("jour") else "mois"
        )
        value = n * PER_UNIT[unit][key]
        if unit == "months" and key == "jour" and n in (15, 8):
            value = 0.5 if n == 15 else 0.25
        dist = abs(m.start() - cs) * (2 if m.start() < cs else 1)  # a length follows its cue (« préavis de … »)
        if m.end() <= cs and re.search(
            r"(?:depuis|relation|durée|après|pendant|ancienneté)\s+(?:\w+\s+){0,2}$",
            v.live[max(0, m.start() - 40) : m.start()],
            re.IGNORECASE,
        ):
            continue  # « relation de plus de dix ans », « après 4 ans »: the relation's length (not a cue's own)
        if dist < (window or 60) and (best is None or dist < best[0]):
            best = (dist, round(value, 2), m.start(), m.end())
    return best


VALUE_READERS: dict[str, re.Pattern[str]] = {  # readers whose value must be written: e5 may propose a sentence
    "date": re.compile(r"\b(?:19|20)\d\d\b"),
    "months": NUM_UNIT_RE,
    "quantity": NUM_UNIT_RE,
    "amount": AMOUNT_RE,
    "percent": PCT_RE,
    "count": COUNT_RE,
}


def _positions(s: Sentence, cues: list[str]) -> list[int]:
    """Where any of ``cues`` occurs in the sentence (words, or a token's lemma), as document offsets."""
    out = [s.start + m.start() for c in cues for m in _rx(c).finditer(s.low)]
    singles = {c.lower() for c in cues if " " not in c}
    out += [t.idx for t in s.span if t.lemma_.lower() in singles]
    return out


def _typed(value: str) -> Any:
    return {"true": True, "false": False}.get(value, value)


def _after_since(text: str, pos: int) -> bool:
    return bool(
        re.search(
            r"(?:depuis|dès|en|entamées?\s+en|nouée?s?\s+en|début|courant|remontent\s+à|remonte\s+à|à\s+partir\s+de|saison)\s+(?:le\s+|l'année\s+|fin\s+|début\s+|la\s+saison\s+)?$",
            text[max(0, pos - 25) : pos],
            re.IGNORECASE,
        )
    )


def _ends_notice(text: str, pos: int) -> bool:
    """« soit le 12 septembre », « effet au 31 janvier »: the end of a notice, not the date of an act."""
    return bool(
        re.search(
            r"(?:soit\s+(?:le|au|jusqu'au)|dès\s+le|effet\s+(?:au|le|à\s+compter\s+du)|à\s+compter\s+du|échéance\s+le|au\s+plus\s+tard\s+le|terme\s+le|fin\s+le|expir\w*\s+le)\s+$",
            text[max(0, pos - 30) : pos],
            re.IGNORECASE,
        )
    )


def _conditional_words(s: Sentence, spec: ExtractionSpec, pos: int | None = None) -> bool:
    """A conditional cue in the cue's part of the sentence (a decision's « ; »-separated grounds are parts)."""
    low = s.low
    if pos is not None:
        i = pos - s.start
        start = max(low.rfind(";", 0, i), low.rfind(":", 0, i)) + 1
        ends = [j for j in (low.find(";", i), low.find(":", i)) if j >= 0]
        low = low[start : min(ends) if ends else len(low)]
    return any(_rx(c.strip()).search(low) if c.strip()[-1:].isalnum() else c in low for c in spec.conditional_cues)


def _described(v: DocView, name: str, nominal: bool = False, verbs: bool = False) -> list[tuple[int, int]]:
    """The character spans that describe a party in the syntax: its own name, the noun it stands in apposition
    to (« le grossiste X », « la société X »), its appositions and relative clauses (« X, prestataire de … »,
    « X, qui fabriquait … »), and the verb phrase it is the subject of (« X fabrique des caisses »)."""
    key = f"described|{name}|{nominal}|{verbs}"
    if key in v.cache:
        return v.cache[key]  # type: ignore[return-value]
    spans: list[tuple[int, int]] = []
    mentions = v.names.get(name, [])
    for s in v.sentences:
        for tok in s.span:
            if not any(a <= tok.idx < b for a, b in mentions):
                continue
            head = tok
            while any(a <= head.head.idx < b for a, b in mentions) and head.head.i != head.i:
                head = head.head  # the mention's head token
            if head.i == tok.i:
                spans += [(t.idx, t.idx + len(t.text)) for t in _description_of(head, nominal, verbs)]
    v.cache[key] = spans
    return spans


def _description_of(head: Any, nominal: bool, verbs: bool) -> list[Any]:
    """The tokens describing the mention whose head token is ``head`` (see ``_described``)."""
    pieces = [head]
    if head.dep_ in ("appos", "flat:name", "nmod", "fixed") and head.head.pos_ == "NOUN":
        pieces.append(head.head)  # « le grossiste X », « la société X »
        top = head.head
    else:
        top = head
    for c in top.children:
        if c.dep_ in (("appos",) if nominal else ("appos", "acl", "acl:relcl")) and c.i != head.i:
            pieces += list(c.subtree)
    for c in top.children if verbs else []:  # « X, qui usinait », « X, prestataire »: the head word only
        if c.dep_ in ("appos", "acl", "acl:relcl") and c.i != head.i:
            pieces.append(c)
    subject_of_verb = top.dep_.startswith("nsubj") and top.head.pos_ in ("VERB", "AUX")
    if verbs and subject_of_verb:
        pieces.append(top.head)
    if not nominal and subject_of_verb:
        verb = top.head
        pieces.append(verb)
        for c in verb.children:
            if c.dep_ in ("obj", "xcomp", "obl:arg"):
                pieces += list(c.subtree)
    return pieces


def _has_rupture(reader: SpecReader, v: DocView) -> bool:
    """Does the document report the pack's triggering event (``event_fact``: asserted, not threatened)?
    The parties' roles mean nothing otherwise."""
    if "_event" not in v.cache:
        name = reader.spec.event_fact
        fs = reader.spec.facts.get(name or "")
        if fs is None or reader._read_fact(v, name or "", fs, None):
            v.cache["_event"] = True
        else:  # nothing read: only a threat or a question stops the parties (any cue asserted lets them)
            cues = [(s, reader._scope(s, cs, fs, ce)) for s, _c, cs, ce, _f in reader._candidates(v, fs)]
            v.cache["_event"] = not cues or any(scope != "cond" for _s, scope in cues)
    return bool(v.cache["_event"])


def _conditional_clause(s: Sentence, pos: int) -> bool:
    """The cue's own clause (between commas) has a verb in the conditional mood the tagger missed
    (« nous vous accorderions alors un préavis »), unless it is reported speech (« a annoncé qu'elle
    cesserait »)."""
    i = pos - s.start
    start = max(s.low.rfind(c, 0, i) for c in (",", ";", ":", "(")) + 1
    ends = [j for j in (s.low.find(c, i) for c in (",", ";", ":", ")")) if j >= 0]
    clause = s.low[start : min(ends) if ends else len(s.low)]
    said = re.search(
        r"\b(?:inform|annon|indiqu|écri|notifi|précis|fait savoir|prévenu|avisé|confirm)\w*\b.*?\bqu", s.low
    )
    if said and said.end() <= start + len(clause):  # the conditional is the reported future (« qu'elle cesserait »)
        clause = s.low[start : min(start + len(clause), said.start())] if said.start() > start else ""
    return fr.conditional_form(clause)


def fs_priority_floor(fs: FactExtraction) -> int:
    """Index of the first enum value a distant guess may give: the values listed before ``guess_from`` (the
    pack puts scope-changing ones first) need the party's own words."""
    names = list(fs.values)
    return names.index(fs.guess_from) if fs.guess_from in names else 0
