"""Speech-act and modality guard: does the sentence ASSERT what it says? (issue 23)

A document that reports a party's claim, denies, supposes, asks or plans a relation does not assert it.
Such a sentence must never yield a STRICT relation: the extractor abstains with the reason, or — for
reported speech and quotation with an identified speaker — records the content as *alleged by* that
speaker (``AttributedAssertion``), never as the document's own statement.

Judged per sentence, French and English, in this order: quotation (a quoted passage of ≥ 5 words),
reported speech and allegation (reporting verb + que/that, selon/according to X), question, negation,
hypothesis/condition (incl. the conditional mood: spaCy's Mood=Cnd in French, would/could in English),
intention/plan (envisager, souhaiter, projeter, compter/aller + infinitive; intend/plan/wish/going to).
The reported speaker is cut out of the content, so a subject never swallows the reporting clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lexlogic.engine.kg.model import DiscursiveAbstainReason

R = DiscursiveAbstainReason
_I = re.IGNORECASE
_AP = "['’]"


@dataclass(frozen=True)
class Guard:
    """Why the sentence does not assert its content, the cue, and (reported speech) who says it."""

    reason: DiscursiveAbstainReason
    cue: str
    speaker: str | None = None
    content: tuple[int, int] | None = None  # offsets of the reported/quoted content in the sentence

    @property
    def detail(self) -> str:
        what = {
            R.REPORTED_SPEECH: "reported speech / allegation",
            R.QUOTATION: "quotation of another speaker",
            R.NEGATION: "negation",
            R.HYPOTHESIS: "hypothesis / condition",
            R.QUESTION: "question",
            R.INTENTION: "intention / plan",
        }.get(self.reason, self.reason.value)
        who = f", alleged by {self.speaker}" if self.speaker else ""
        return f"{what} (cue {self.cue!r}){who}: the document does not assert this relation"


# ------------------------------------------------------------------ reported speech

_FR_REPORT_VERBS = (
    r"soutien(?:t|nent|nait|naient)|a soutenu|ont soutenu|prétend(?:ent|ait|aient)?|a prétendu|"
    r"allègu(?:e|ent)|alléguait|a allégué|ont allégué|affirm(?:e|ent|ait|aient)|a affirmé|ont affirmé|"
    r"fai(?:t|sait) valoir|font valoir|a fait valoir|ont fait valoir|estim(?:e|ent|ait)|consid[èe]r(?:e|ent|ait)|"
    r"indiqu(?:e|ent|ait)|a indiqué|déclar(?:e|ent|ait)|a déclaré|expos(?:e|ent)|argu(?:e|ent)|a argué|"
    r"écri(?:t|vent|vait)|a écrit|ont écrit|plaid(?:e|ent)|expliqu(?:e|ent)|a expliqué|assur(?:e|ent)|"
    r"conteste(?:nt)?|reconna[iî]t|reconnaissent|a reconnu|reproch(?:e|ent)|di(?:t|sent|sait)|a dit|"
    r"ni(?:e|ent)|a nié|avanc(?:e|ent)|a avancé|rappell?(?:e|ent)|soulign(?:e|ent)|maintien(?:t|nent)|"
    r"réplique(?:nt)?|rétorque(?:nt)?|object(?:e|ent)|invoqu(?:e|ent) le fait|se prévau(?:t|lent) de ce|"
    r"fait observer|font observer|relèv(?:e|ent)|a relevé|conclu(?:t|ent)|a conclu|accus(?:e|ent)|"
    r"a confirmé|confirm(?:e|ent)|a annoncé|annonc(?:e|ent)|précis(?:e|ent)|a précisé|répond(?:ent)?|a répondu"
)
_EN_REPORT_VERBS = (
    r"contends?|contended|claims?|claimed|alleges?|alleged|argues?|argued|asserts?|asserted|maintains?|"
    r"maintained|submits?|submitted|states?|stated|says|said|wrote|writes|written|avers?|averred|insists?|"
    r"insisted|suggests?|suggested|believes?|believed|considers?|considered|denies|denied|asserting|"
    r"explains?|explained|acknowledges?|acknowledged|admits?|admitted|confirms?|confirmed|replies|replied|"
    r"responds?|responded|complains?|complained|accuses?|accused|told|tells|reports?|reported|notes?|noted|"
    r"observes?|observed|concedes?|conceded|indicates?|indicated|announced|announces|pleads?|pleaded"
)
_FR_REPORT = re.compile(
    rf"^(?P<lead>.{{2,160}}?)\s+(?:a\s+|ont\s+|avait\s+)?(?P<cue>{_FR_REPORT_VERBS})\b"
    rf"(?:\s+(?:également|encore|aussi|expressément|notamment|pourtant|toutefois|cependant|enfin))?"
    rf"(?:\s*,\s*[^,]{{1,60}},)?\s*(?P<link>qu{_AP}|que\b|avoir\b|être\b|n{_AP}?avoir\b|:)",
    _I,
)
_EN_REPORT = re.compile(
    rf"^(?P<lead>.{{2,160}}?)\s+(?:has\s+|have\s+|had\s+|also\s+|further\s+)?(?P<cue>{_EN_REPORT_VERBS})\b"
    rf"(?:\s+(?:also|again|further|expressly))?(?:\s*,\s*[^,]{{1,60}},)?\s*(?:to\s+\w+\s+)?(?P<link>that\b|:)",
    _I,
)
_FR_ACCORDING = re.compile(
    rf"^(?P<cue>selon|d{_AP}après|aux dires d[eu]|suivant)\s+(?P<speaker>[^,]{{2,120}}?)\s*,\s*", _I
)
_EN_ACCORDING = re.compile(
    r"^(?P<cue>according to|in the (?:view|opinion|words) of|as (?:stated|alleged|claimed) by|per)\s+"
    r"(?P<speaker>[^,]{2,120}?)\s*,\s*",
    _I,
)
# the lead of a reporting clause may start with an adverbial: "Dans ses écritures, la société X soutient"
_LEAD_ADVERBIAL = re.compile(r"^.*,\s*(?=[^,]+$)")
# a document part that "states" something is the document speaking: not reported speech
_DOC_PART = re.compile(
    r"^(?:(?:le|la|les|l['’]|the|this|ce|cette|ces|these)\s*(?:présente?s?\s+|present\s+)?)"
    r"(?:article|clause|section|schedule|annex|annexe|avenant|amendment|contrat|agreement|contract|"
    r"conditions|stipulation|disposition|provision|paragraph|alinéa|préambule|preamble|bon de commande)\b"
    r"|^(?:article|clause|section|schedule|annex|annexe)\s+\d",
    _I,
)

# ------------------------------------------------------------------ quotation

_QUOTE = re.compile(r"«\s*(?P<a>[^»]+?)\s*»|“(?P<b>[^”]+)”|\"(?P<c>[^\"]+)\"")
_QUOTE_SPEAKER = [
    re.compile(
        rf"(?:termes|formule|mots|propos|expression|écritures|lettre|courrier|courriel)\s+d[eu]\s+(?:la\s+|le\s+|l{_AP})?(?P<s>[^,:«\"“]+)",
        _I,
    ),
    re.compile(r"\bin\s+(?P<s>[^,:\"“]+?)['’]s?\s+(?:own\s+)?words\b", _I),
    re.compile(r"\b(?:to\s+quote|quoting)\s+(?P<s>[^,:\"“]+?)(?:['’]s?\s+[^,:\"“]*)?\s*[,:]", _I),
    re.compile(r"^(?P<s>[^,:\"“«]+?)['’]s?\s+(?:\w+\s+){0,2}(?:reads|states|says|stated|said)\b", _I),
    re.compile(rf"^(?P<s>[^,:\"“«]+?)\s+(?:{_FR_REPORT_VERBS}|{_EN_REPORT_VERBS})\b", _I),
]

# ------------------------------------------------------------------ question, negation, hypothesis, intention

_QUESTION = re.compile(
    r"\?|-t-(?:il|elle|ils|elles|on)\b|\best-ce qu|\b(?:whether)\b|"
    r"\b(?:savoir|déterminer|demander|demande|interroge|vérifier|question de savoir)\s+si\b",
    _I,
)
_FR_NEGATION = re.compile(
    rf"\b(?:ne|n{_AP})\s*(?:[\w'’-]+\s+){{0,4}}?(?:pas|jamais|plus|point|guère|nullement|aucun|aucune|personne|rien|ni)\b"
    r"|(?:^|[;:,]\s*)aucun(?:e)?\b|\bni\b[^.;]*\bni\b|\bnon\s+(?:pas|plus)\b",
    _I,
)
_EN_NEGATION = re.compile(
    r"\b(?:not|never|neither|nor|none|nobody|nothing|cannot|no\s+longer)\b|n['’]t\b|\bno\b(?!\.?\s*\d)",
    _I,
)
_FR_HYPOTHESIS = re.compile(
    rf"(?<!sauf )(?<!même )(?<!Sauf )(?<!Même )\bsi\b(?!\s+bien\b)|\bs{_AP}(?:il|ils)\b|à supposer qu|au cas où|"
    rf"dans (?:l{_AP}hypothèse|le cas) où|pour le cas où|le cas échéant|en supposant qu|supposons qu|"
    r"\béventuellement\b|\bhypothétique",
    _I,
)
_EN_HYPOTHESIS = re.compile(
    r"^\s*(?:should|had|were)\b|\bif\b|\bassuming\b|\bsuppos(?:e|ing|ed)\b|\bin the event (?:that|of)\b|"
    r"\bin case\b(?!\s+of\b)|\bwould\b|\bcould\s+(?:have|be|not)\b|\bmight\b|\bwere\s+to\b|\bhypothetical",
    _I,
)
_FR_INTENTION = re.compile(
    r"\benvisag\w*|\bsouhait(?:e|ent|ait|aient|erait|eraient)\b|\bprojet(?:te|tent|tait|taient|ons|ez)\b|"
    r"\bcompt(?:e|ent|ait|aient|ons)\s+(?:\w+\s+)?\w+(?:er|ir|re)\b|"
    r"\b(?:veut|veulent|voulait|voulaient|voudrait|désir\w+|esp[èé]r\w+|entend(?:ent)?\s+\w+(?:er|ir|re)|s['’]appr[êe]t\w+|"
    r"se propos\w+|menac\w+ de|prévoi(?:t|ent|ait) de|a décidé de|ont décidé de|sur le point de)\b|"
    rf"\b(?:a|ont|avoir)\s+l{_AP}intention\b|"
    r"\b(?:vais|vas|va|allons|allez|vont|allait|allaient)\s+(?:(?:\w+|l['’]\w+|les|la|le|lui|leur)\s+)?\w+(?:er|ir|re)\b",
    _I,
)
_EN_INTENTION = re.compile(
    r"\b(?:intend|intends|intended|plan|plans|planned|planning|wish|wishes|wished|want|wants|wanted|"
    r"propose|proposes|proposed|expect|expects|hope|hopes|aim|aims|threaten|threatens|threatened|going|about|"
    r"decided|decides|seek|seeks|prepares|preparing)\s+to\b|\bcontemplat\w+|\bconsidering\b|\bintention\s+to\b",
    _I,
)


def _first(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    return pattern.search(text)


def _speaker_of(lead: str) -> str:
    """The reporting clause's subject: the last comma-free segment ("Dans ses écritures, X" → X)."""
    return _LEAD_ADVERBIAL.sub("", lead).strip(" ,")


_FR_CONDITIONAL = re.compile(
    r"\b(?:serai(?:t|ent)|aurai(?:t|ent)|devrai(?:t|ent)|pourrai(?:t|ent)|faudrait|vaudrait|"
    r"\w{3,}(?:erai|irai|rai)(?:t|ent))\b",
    _I,
)


def _conditional_mood(text: str, doc: Any) -> str | None:
    """French conditional mood: spaCy's Mood=Cnd when parsed, else the -rait/-raient endings."""
    for tok in doc or ():
        if "Cnd" in tok.morph.get("Mood"):
            return tok.text
    m = _FR_CONDITIONAL.search(text)
    return m.group(0) if m else None


def check(text: str, lang: str, doc: Any | None = None) -> Guard | None:
    """None when the sentence asserts its content; else why not (see the module docstring)."""
    quote = next((q for q in _QUOTE.finditer(text) if len((q["a"] or q["b"] or q["c"] or "").split()) >= 5), None)
    if quote is not None:
        lead = text[: quote.start()]
        speaker = None
        for pat in _QUOTE_SPEAKER:
            m = pat.search(lead)
            if m:
                speaker = _speaker_of(m["s"]).strip(" ,:")
                break
        g = quote.start("a") if quote["a"] else quote.start("b") if quote["b"] else quote.start("c")
        inner = quote["a"] or quote["b"] or quote["c"] or ""
        return Guard(R.QUOTATION, quote.group(0)[:1], speaker or None, (g, g + len(inner)))
    according = (_FR_ACCORDING if lang == "fr" else _EN_ACCORDING).match(text)
    if according and not _DOC_PART.search(according["speaker"]):
        return Guard(R.REPORTED_SPEECH, according["cue"], according["speaker"].strip(), (according.end(), len(text)))
    report = (_FR_REPORT if lang == "fr" else _EN_REPORT).match(text)
    if report:
        speaker = _speaker_of(report["lead"])
        if speaker and not _DOC_PART.search(speaker):
            start = report.start("link")
            if report["link"].lower() in ("que", "that", ":", ",") or report["link"].lower().startswith("qu"):
                start = report.end("link")
            else:  # "affirme avoir livré": the speaker is the subject of the infinitive
                start = report.start("link")
            return Guard(R.REPORTED_SPEECH, report["cue"], speaker, (start, len(text)))
    m = _QUESTION.search(text)
    if m:
        return Guard(R.QUESTION, m.group(0))
    m = (_FR_NEGATION if lang == "fr" else _EN_NEGATION).search(text)
    if m:
        return Guard(R.NEGATION, m.group(0))
    m = (_FR_HYPOTHESIS if lang == "fr" else _EN_HYPOTHESIS).search(text)
    if m:
        return Guard(R.HYPOTHESIS, m.group(0))
    if lang == "fr":
        mood = _conditional_mood(text, doc)
        if mood:
            return Guard(R.HYPOTHESIS, f"conditional mood: {mood}")
    m = (_FR_INTENTION if lang == "fr" else _EN_INTENTION).search(text)
    if m:
        return Guard(R.INTENTION, m.group(0))
    return None
