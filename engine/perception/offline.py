"""The offline, deterministic French extractor for rupture-brutale dossiers.

Reads the ingested documents and emits findings in the pack's fact vocabulary, each grounded on the
exact span(s) it was read from. Quoted lines of e-mails (« > … ») are ignored: they repeat another
message. An acceptance that could bear on several proposals (« C'est d'accord ») becomes an
ambiguity node with one reading per world.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import date

from lexlogic.engine.documents.model import Document, DocumentKind
from lexlogic.engine.ontology import (
    Actor,
    Event,
    EventKind,
    Evidence,
    EvidenceKind,
    PersonKind,
    World,
)
from lexlogic.engine.perception import nlp
from lexlogic.engine.perception.french import (
    AMOUNT_RE,
    DATE_RE,
    DATE_TEXT,
    NOTICE_RE,
    amount_value,
    duration_months,
    fold,
    hypothetical,
    months_between,
    negated,
    parse_amount,
    parse_date,
    sentences,
)
from lexlogic.engine.perception.model import DEFAULT_PACK, Ambiguity, Finding, Perception, build_graph
from lexlogic.engine.perception.reader import SpecReader
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.extraction import ExtractionSpec, load_extraction

SPECIALISED_COURTS = (
    "marseille",
    "bordeaux",
    "lille",
    "tourcoing",
    "fort-de-france",
    "lyon",
    "nancy",
    "paris",
    "rennes",
)
TERMINATION_RE = re.compile(
    r"(?:mett\w*|mis|mise)\s+(?:un\s+terme|fin)\s+(?:\w+\s+){0,3}?(?:à|aux?)\s+(?:(?:nos|notre|la|les|vos|votre|ces|cette|"
    r"toute|toutes|leurs?|ses|sa)\s+)?(?:\w+\s+){0,2}?(?:relations?|collaboration|partenariat|contrat|accord|"
    r"courants?\s+d'affaires)|déréférenc\w+|"
    r"cess\w+\s+(?:\w+\s+)?(?:nos|notre|toute|toutes|la|les|vos|leurs?|ses)\s+(?:\w+\s+)?(?:relations?|collaboration|"
    r"commandes|approvisionnements|achats)|"
    r"romp\w*\s+(?:nos|notre|la|les|toute)\s+(?:\w+\s+)?relations?|rupture\s+de\s+(?:nos|notre|la|les|vos)\s+relations?|"
    r"résili\w+\s+(?:le|du|de\s+notre|de\s+votre|notre|votre|ce|le\s+présent)\s+(?:\w+-)?(?:contrat|accord)|"
    r"ne\s+pas\s+renouveler|non[- ]renouvellement|"
    r"(?:notifi\w*|annonc\w*|informé\w*\s+de)\s+(?:\w+\s+){0,4}?(?:la\s+)?(?:fin|rupture|résiliation|cessation)\s+"
    r"(?:de\s+|du\s+|des\s+)(?:(?:leur|leurs|nos|notre|la|les|vos|votre|ses|sa|ce)\s+)?(?:\w+\s+)?"
    r"(?:relations?|collaboration|partenariat|contrat)",
    re.IGNORECASE,
)
PARTIAL_RE = re.compile(
    r"(?:réduction|réduire|réduisons|baisse|baisser|baissons|diminution|diminuer|diminuons)\s+(?:de\s+)?"
    r"(?:\w+\s+){0,2}?(?P<pct>\d+(?:,\d+)?)\s*%\s+(?:de\s+)?(?:(?:nos|ses|leurs|les|des|vos|ces)\s+)?"
    r"(?:commandes|volumes|achats|approvisionnements)|"
    r"(?:réduire|diminuer|baisser)\s+(?:nos|ses|les|leurs)\s+(?:commandes|volumes|achats)\s+de\s+(?P<pct2>\d+(?:,\d+)?)\s*%",
    re.IGNORECASE,
)
ORAL_RE = re.compile(
    r"oralement|verbalement|par\s+téléphone|téléphoniquement|au\s+téléphone|appel\s+téléphonique|de\s+vive\s+voix|"
    r"lors\s+d[e']\s*(?:notre|votre|la|une|un|l'|leur)?\s*(?:\w+\s+)?(?:réunion|entretien|rendez-vous|visite|"
    r"conversation|entrevue)",
    re.IGNORECASE,
)
MEDIUM = (
    r"(?:courriel|e-mail|email|mail|lettre|courrier|message|appel|téléphone|réunion|rendez-vous|entretien|"
    r"visite|conversation|échange|entrevue)"
)
EVENT_DATE_RE = re.compile(
    r"(?:par|lors\s+d[eu']|dans|au\s+cours\s+d[eu']|à\s+l'occasion\s+d[eu'])\s*(?:(?:notre|votre|sa|son|leur|la|le|l'|un|"
    r"une)\s*)?(?P<medium>" + MEDIUM + r")(?:\s+[\w-]+){0,2}?\s+(?:du|en\s+date\s+du)\s+(?P<date>" + DATE_TEXT + ")"
    r"|^\s*le\s+(?P<date2>" + DATE_TEXT + r")\s*,",
    re.IGNORECASE,
)
END_DATE_RE = re.compile(
    r"(?:à\s+compter\s+du|prendr\w+\s+(?:fin|effet)\s+le|jusqu'au|soit\s+le|au\s+plus\s+tard\s+le|fin\s+le|"
    r"à\s+partir\s+du)\s+(?P<date>" + DATE_TEXT + ")",
    re.IGNORECASE,
)
IMMEDIATE_RE = re.compile(
    r"sans\s+(?:aucun\s+|le\s+moindre\s+)?préavis|(?:avec\s+)?effet\s+immédiat|aucun\s+préavis", re.IGNORECASE
)
YOU_AUTHOR_RE = re.compile(
    r"\bvous\s+(?:nous\s+|m'|me\s+|lui\s+|leur\s+)?(?:avez|aviez|êtes)\b|\bvotre\s+décision\b|"
    r"\bde\s+votre\s+part\b",
    re.IGNORECASE,
)
CONTRACTUAL_RE = re.compile(r"contrat|contractuel|article|stipul|prévu\s+par|clause", re.IGNORECASE)
FAULT_RE = re.compile(
    r"retards?\s+(?:de|dans\s+les)\s+livraisons?(?:\s+répétés)?|manquements?(?:\s+(?:graves?|répétés))?|"
    r"factures?\s+impayées?|impayés|non-conformités?|défauts?\s+de\s+qualité|faute\s+grave|"
    r"inexécutions?|défaillances?",
    re.IGNORECASE,
)
FORMAL_NOTICE_RE = re.compile(r"mise\s+en\s+demeure|mett\w+\s+en\s+demeure|mis\s+en\s+demeure", re.IGNORECASE)
ARBITRATION_RE = re.compile(
    r"clauses?\s+compromissoires?|convention\s+d'arbitrage|arbitrag\w*|tribunal\s+arbitral|"
    r"sentence\s+arbitrale|\barbitres?\b",
    re.IGNORECASE,
)
ARBITRATION_CONTEXT = re.compile(
    r"contrat|clause|stipul|prévoi|prévu|différend|litige|convention|accord|"
    r"contestation|parties",
    re.IGNORECASE,
)
JURISDICTION_RE = re.compile(
    r"compétence\s+exclusive|seuls?\s+compétents?|exclusivement\s+compétents?|attribution\s+de\s+juridiction|"
    r"attributive\s+de\s+juridiction|(?:sera|seront)\s+soumis\s+au\s+tribunal|relèver\w*\s+de\s+la\s+compétence",
    re.IGNORECASE,
)
EXCLUSIVITY_RE = re.compile(r"exclusivité|\bexclusi(?:f|ve|fs|ves)\b|à\s+titre\s+exclusif", re.IGNORECASE)
PRIVATE_LABEL_RE = re.compile(r"marques?\s+(?:de\s+|du\s+)?distributeurs?|\bMDD\b")
OWN_BRAND_RE = re.compile(r"sous\s+(?:sa|leur|notre|votre|ma|ses|nos|leurs)\s+propres?\s+marques?", re.IGNORECASE)
FRAMEWORK_RE = re.compile(r"(?:contrat|accord)[- ]cadre", re.IGNORECASE)
MIN_VOLUME_RE = re.compile(
    r"volumes?\s+minim\w+|minimum\s+de\s+commandes|quantités?\s+minimales?|"
    r"engagements?\s+de\s+volume",
    re.IGNORECASE,
)
TENDER_RE = re.compile(r"appels?\s+d'offres|mise\s+en\s+concurrence", re.IGNORECASE)
SYSTEMATIC_RE = re.compile(
    r"\bchaque\b|systématique\w*|tous\s+les\s+ans|toutes\s+les\s+commandes|à\s+chaque|"
    r"chaque\s+année|annuellement|\btous\s+les\b",
    re.IGNORECASE,
)
FORCE_MAJEURE_RE = re.compile(r"force\s+majeure", re.IGNORECASE)
INVESTMENT_RE = re.compile(
    r"investissements?\s+(?:\w+\s+){0,2}?(?:spécifiques?|dédiés?|particuliers?)|"
    r"investi\w*[^.]{0,120}?(?:dédiée?s?|spécifiques?)\b",
    re.IGNORECASE,
)
COMPANY_RE = re.compile(
    r"(?:\b[Ll]a\s+société|\b[Ll]'entreprise|\b[Ss]ociété)[ \t]+(?P<n1>"
    + r"[A-ZÀ-Ý][\w'’&-]*(?:[ \t]+(?:(?:de|des|du|d'|et|&)[ \t]*)?[A-ZÀ-Ý][\w'’&-]*)*"
    + r")"
    r"|(?P<n2>[A-ZÀ-Ý][\w'’&-]*(?:[ \t]+(?:(?:de|des|du|d'|et|&)[ \t]*)?[A-ZÀ-Ý][\w'’&-]*)*)[ \t]+"
    r"(?P<form>SASU|SAS|SARL|SA|SNC|EURL|SCA|SCOP)\b"
)
LEGAL_FORMS = {"SASU", "SAS", "SARL", "SA", "SNC", "EURL", "SCA", "SCOP", "SELARL"}
ACCEPT_RE = re.compile(r"c'est\s+d'accord|\bd'accord\b|\bok\s+pour\s+moi\b|\bbien\s+d'accord\b", re.IGNORECASE)
PRICE_RE = re.compile(
    r"[^.\n]*(?:baisse|hausse|révision)\s+(?:de\s+)?(?:vos|des|nos)\s+(?:tarifs|prix)[^.]*\.", re.IGNORECASE
)
EXIT_RE = re.compile(
    r"[^.]*(?:sortie\s+progressive|fin\s+de\s+notre\s+collaboration|arrêt\s+(?:de\s+)?"
    r"(?:nos|notre)\s+(?:relations?|collaboration)|déréférencement)[^.]*\.",
    re.IGNORECASE,
)

nlp.warm_up()  # the main job imports this module before ingesting: the model loads while documents are read

EVIDENCE_OF = {
    DocumentKind.CONTRACT: EvidenceKind.CONTRACT,
    DocumentKind.EMAIL: EvidenceKind.EMAIL,
    DocumentKind.LETTER: EvidenceKind.LETTER,
    DocumentKind.INVOICE: EvidenceKind.INVOICE,
    DocumentKind.ORDER_HISTORY: EvidenceKind.ORDER_HISTORY,
    DocumentKind.FORMAL_NOTICE: EvidenceKind.FORMAL_NOTICE,
}


def _is_textmail(doc: Document) -> bool:
    """A plain-text e-mail (« De : … / Objet : … » header) saved as .txt or .md."""
    return doc.kind is not DocumentKind.EMAIL and bool(re.match(r"\s*(?:De|From)\s*:", doc.text))


def _body_start(doc: Document) -> int:
    if doc.kind is DocumentKind.EMAIL or _is_textmail(doc):
        head = doc.text.find("\n\n")
        return max(0, head)
    return 0


def _live_text(doc: Document) -> str:
    """The text with e-mail headers and quoted lines blanked (same length, so offsets stay valid)."""
    if doc.kind is not DocumentKind.EMAIL and not _is_textmail(doc):
        return doc.text
    head = _body_start(doc)  # header block: read through metadata, not as prose
    text = " " * head + doc.text[head:] if head > 0 else doc.text
    return re.sub(r"(?m)^>.*$", lambda m: " " * len(m.group(0)), text)


def _find(doc: Document, pattern: str | re.Pattern[str], flags: int = re.IGNORECASE) -> Iterator[re.Match[str]]:
    rx = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
    yield from rx.finditer(_live_text(doc))


def _first(doc: Document, pattern: str | re.Pattern[str]) -> re.Match[str] | None:
    return next(_find(doc, pattern), None)


def _trim(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Whitespace trimmed; a clause number cut by a sentence regex (« 2 Il se… » of « 7.2 ») dropped."""
    if start > 0 and doc.text[start - 1] == "." and (m := re.match(r"\d+\s+", doc.text[start:end])):
        start += m.end()
    while start < end and doc.text[start].isspace():
        start += 1
    while end > start and doc.text[end - 1].isspace():
        end -= 1
    return start, end


def _ground(doc: Document, start: int, end: int, note: str | None = None):  # type: ignore[no-untyped-def]
    s, e = _trim(doc, start, end)
    return doc.ground(s, e, note)


def _doc_date(doc: Document) -> tuple[date, tuple[int, int]] | None:
    """The date a document was sent: e-mail Date header, else « <ville>, le <date> » in a letter, else a
    « Date : … » header line of a text e-mail, else « Fait à <ville>, le <date> »."""
    if doc.kind is DocumentKind.EMAIL and doc.metadata.get("date_iso"):
        m = re.search(r"(?m)^Date: (.*)$", doc.text)
        if m:
            return date.fromisoformat(doc.metadata["date_iso"]), (m.start(1), m.end(1))
    m = re.search(r"^\s*[A-ZÉ][\w' -]+,\s+le\s+(" + DATE_TEXT + ")", doc.text, re.IGNORECASE)
    if m is None:
        m = re.search(r"(?m)^[A-ZÉ][\w' -]+,\s+le\s+(\d.*\d{4})", doc.text)
    if m is None:
        m = re.search(r"(?m)^\s*(?:Date|Le)\s*:?\s*(" + DATE_TEXT + r")\s*$", doc.text[:2000], re.IGNORECASE)
    if m is None and doc.kind is not DocumentKind.CONTRACT:
        m = re.search(r"Fait\s+à\s+[\w' -]+,?\s+le\s+(" + DATE_TEXT + ")", doc.text, re.IGNORECASE)
    if m:
        dm = DATE_RE.search(doc.text, m.start(1), m.end(1))
        if dm and (d := parse_date(dm)):
            return d, (dm.start(), dm.end())
    return None


def _sentences(doc: Document) -> list[tuple[int, int]]:
    return sentences(_live_text(doc), _body_start(doc))


def _cues(doc: Document, rx: re.Pattern[str]) -> Iterator[tuple[re.Match[str], int, int]]:
    """Every match of ``rx`` with the span of its sentence (on the live text)."""
    live = _live_text(doc)
    for s, e in _sentences(doc):
        for m in rx.finditer(live, s, e):
            yield m, s, e


class _Span:
    """A (start, end) pair with the re.Match span API."""

    def __init__(self, start: int, end: int) -> None:
        self._s, self._e = start, end

    def start(self) -> int:
        return self._s

    def end(self) -> int:
        return self._e


class OfflineExtractor:
    """Deterministic rules; each ``_x`` method reads one family of facts."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs
        self.p = Perception()
        self.parties: dict[str, Actor] = {}  # role word (Fournisseur, Distributeur) → actor
        self._desc: dict[str, tuple[Document, int, int]] = {}  # actor id → span of its description
        self._activity: dict[str, tuple] = {}  # actor id → (activity value, grounding)
        self._cands: list[dict] | None = None

    def run(self) -> Perception:
        for doc in self.docs:
            kind = EVIDENCE_OF.get(
                doc.kind, EvidenceKind.NOTE if doc.kind is DocumentKind.OTHER else EvidenceKind.OTHER
            )
            dd = _doc_date(doc)
            self.p.ontology.evidence.append(
                Evidence(
                    kind=kind,
                    document_id=doc.id,
                    title=doc.title or doc.id,
                    date=dd[0] if dd else None,
                    sha256=doc.sha256,
                )
            )
        for step in (
            self._parties,
            self._contract_terms,
            self._clauses,
            self._orders,
            self._amounts,
            self._termination,
            self._faults,
            self._procedure,
            self._ambiguities,
        ):
            step()
        build_graph(self.p)
        return self.p

    # --- parties --------------------------------------------------------------------------------------
    def _parties(self) -> None:
        rx = re.compile(
            r"La\s+société\s+(?P<name>[^,\n]+?),\s*(?P<desc>.*?)ci-après\s+dénommée\s+"
            r"«\s*(?:le|la)\s+(?P<role>[\wé]+)\s*»",
            re.DOTALL,
        )
        for doc in self.docs:
            if doc.kind is not DocumentKind.CONTRACT:
                continue
            for m in rx.finditer(doc.text):
                desc = m.group("desc")
                seat = re.search(r"siège\s+social\s+est\s+situé\s+(.*?\d{5}\s+[A-ZÉ][\w-]+)", desc, re.DOTALL)
                status = (
                    "SAS"
                    if "actions simplifiée" in desc
                    else "SA"
                    if "société anonyme" in desc
                    else "SARL"
                    if "responsabilité limitée" in desc
                    else None
                )
                actor = Actor(
                    name=m.group("name").strip(),
                    kind=PersonKind.LEGAL,
                    role=m.group("role").lower(),
                    seat=" ".join(seat.group(1).split()) if seat else None,
                    status=status,
                    grounding=[_ground(doc, m.start("name"), m.end("name"))],
                )
                self._desc[actor.id] = (doc, m.start("desc"), m.end("desc"))
                self.parties[actor.role or actor.name] = actor
                self.p.ontology.actors.append(actor)
        # Companies named in letters, e-mails and notes: « la société X », « X SAS ».
        for doc in self.docs:
            if doc.kind in (DocumentKind.CONTRACT, DocumentKind.ORDER_HISTORY):
                continue
            for m in COMPANY_RE.finditer(doc.text):
                group = "n1" if m.group("n1") else "n2"
                name = m.group(group)
                words = name.split()
                while words and words[-1] in LEGAL_FORMS:
                    words.pop()
                while words and words[0] in LEGAL_FORMS:
                    words.pop(0)
                if not words or len("".join(words)) < 4:
                    continue
                name = " ".join(words)
                start = m.start(group) + m.group(group).find(words[0])
                end = start + len(name) if doc.text[start : start + len(name)] == name else m.end(group)
                key = fold(name)
                known = next((a for a in self.parties.values() if fold(a.name) == key), None)
                if known is None:
                    value = name.title() if name.isupper() else name
                    known = Actor(
                        name=value, kind=PersonKind.LEGAL, status=m.group("form"), grounding=[_ground(doc, start, end)]
                    )
                    self.parties[value] = known
                    self.p.ontology.actors.append(known)
                elif known.name.isupper() and not name.isupper():
                    known.name = name

    def _party_in(self, text: str) -> Actor | None:
        """The party whose name (or e-mail domain) appears in ``text``."""
        t = fold(text)
        for a in self.parties.values():
            key = fold(a.name)
            if len(key) >= 4 and (key in t or (len(key) >= 10 and key[:10] in t)):
                return a
        return None

    def _writer(self, doc: Document) -> Actor | None:
        """Who wrote a document: e-mail sender, else the letterhead (first lines), else the signature."""
        if doc.kind is DocumentKind.EMAIL:
            if a := self._party_in(doc.metadata.get("from", "")):
                return a
        elif _is_textmail(doc):
            m = re.match(r"\s*(?:De|From)\s*:(.*)", doc.text)
            if m and (a := self._party_in(m.group(1))):
                return a
        else:
            head = doc.text.lstrip()[:200].split("\n\n")[0]
            if a := self._party_in(head):
                return a
        tail = doc.text[-300:]
        return self._party_in(tail)

    def _client(self, doc: Document) -> Actor | None:
        """A lawyer's « notre cliente, la société X » / « la société X, notre cliente »."""
        m = re.search(
            r"notre\s+client(?:e)?\s*,?\s+(?:la\s+société\s+)?([^,.\n]+)|société\s+([^,.\n]+),\s+notre\s+"
            r"client",
            doc.text,
            re.IGNORECASE,
        )
        return self._party_in(m.group(1) or m.group(2)) if m else None

    # --- contract terms ---------------------------------------------------------------------------------
    def _contract_terms(self) -> None:
        for doc in self.docs:
            if doc.kind is not DocumentKind.CONTRACT:
                continue
            if m := _first(doc, r"[^.\n]*tacite\s+reconduction[^.\n]*"):
                self.p.add(
                    Finding(
                        fact="successive_contracts",
                        value=True,
                        confidence=0.7,
                        grounding=[_ground(doc, m.start(), m.end())],
                        note="contrat d'un an renouvelé par tacite reconduction",
                    )
                )
            if m := _first(doc, NOTICE_RE):
                months = duration_months(m.group(0))
                if months is not None:
                    self.p.add(
                        Finding(
                            fact="contractual_notice_months",
                            value=months,
                            confidence=0.9,
                            grounding=[_ground(doc, m.start(), m.end())],
                        )
                    )
            start = _first(
                doc,
                r"(?:prend\s+effet|entre\s+en\s+vigueur|conclu[^.]{0,60}?à\s+compter)\s+(?:le|du)\s+("
                + DATE_TEXT
                + ")",
            ) or _first(doc, r"Fait\s+à\s+[\w-]+,\s+le\s+(" + DATE_TEXT + ")")
            if start:
                dm = DATE_RE.search(doc.text, start.start(1), start.end(1))
                if dm and (d := parse_date(dm)):
                    self.p.add(
                        Finding(
                            fact="relation_start",
                            value=d.isoformat(),
                            confidence=0.9,
                            grounding=[_ground(doc, start.start(), start.end())],
                        )
                    )
                    self.p.ontology.events.append(
                        Event(
                            kind=EventKind.SIGNATURE,
                            date=d,
                            description="prise d'effet du contrat",
                            grounding=[_ground(doc, start.start(), start.end())],
                        )
                    )
            for actor in self.parties.values():
                d_doc, s, e = self._desc.get(actor.id, (None, 0, 0))
                if d_doc is not doc:
                    continue
                if (found := _activity(doc, s, e)) is not None:
                    self._activity[actor.id] = found

    # --- clauses and stipulations read anywhere (true, or false when explicitly denied) ------------------
    def _polar(
        self,
        fact: str,
        rx: re.Pattern[str],
        docs: list[Document],
        *,
        context: re.Pattern[str] | None = None,
        skip: re.Pattern[str] | None = None,
        events: bool = False,
        conf: float = 0.85,
    ) -> None:
        """One finding per document for ``fact``: True where a cue is asserted, False where it is denied.

        ``context``: a positive cue outside a contract must share its sentence with this pattern.
        ``skip``: text just before the cue that disqualifies it (« compétence » exclusive).
        ``events``: the cue reports an act (formal notice, force majeure), so a conditional does not count."""
        for doc in docs:
            live = _live_text(doc)
            seen: set[bool] = set()
            for m, s, e in _cues(doc, rx):
                if skip and skip.search(live[max(s, m.start() - 25) : m.start()]):
                    continue
                value = not negated(live, s, e, m.start(), m.end())
                if value in seen:
                    continue
                if value and events and hypothetical(live[s:e]):
                    continue
                if value and context and doc.kind is not DocumentKind.CONTRACT and not context.search(live[s:e]):
                    continue
                seen.add(value)
                c = conf if doc.kind is DocumentKind.CONTRACT or not value else conf - 0.05
                self.p.add(
                    Finding(
                        fact=fact,
                        value=value,
                        confidence=round(c if value else conf + 0.05, 2),
                        grounding=[_ground(doc, s, e) if not value else _ground(doc, m.start(), m.end())]
                        if fact not in ("arbitration_clause", "systematic_tenders", "force_majeure", "fault_alleged")
                        else [_ground(doc, s, e)],
                    )
                )

    def _clauses(self) -> None:
        prose = [d for d in self.docs if d.kind is not DocumentKind.ORDER_HISTORY]
        not_contract = [d for d in prose if d.kind is not DocumentKind.CONTRACT]
        self._polar("framework_contract", FRAMEWORK_RE, prose, conf=0.9)
        self._polar("minimum_volume", MIN_VOLUME_RE, prose)
        self._polar(
            "exclusivity", EXCLUSIVITY_RE, prose, skip=re.compile(r"compétence\s*$|juridiction\s*$", re.IGNORECASE)
        )
        self._polar("private_label", PRIVATE_LABEL_RE, prose, conf=0.9)
        for doc in prose:
            if not self._has("private_label") and (m := _first(doc, OWN_BRAND_RE)):
                self.p.add(
                    Finding(
                        fact="private_label",
                        value=False,
                        confidence=0.7,
                        grounding=[_ground(doc, m.start(), m.end())],
                        note="vendus sous marque propre",
                    )
                )
        self._polar("arbitration_clause", ARBITRATION_RE, prose, context=ARBITRATION_CONTEXT, conf=0.9)
        if not self._has("arbitration_clause", True):
            for doc in prose:
                for _m, s, e in _cues(doc, JURISDICTION_RE):
                    live = _live_text(doc)
                    if doc.kind is DocumentKind.CONTRACT or re.search(r"clause|contrat", live[s:e], re.IGNORECASE):
                        if re.search(r"tribunal|juridiction|compéten", live[s:e], re.IGNORECASE):
                            self.p.add(
                                Finding(
                                    fact="arbitration_clause",
                                    value=False,
                                    confidence=0.85,
                                    grounding=[_ground(doc, s, e)],
                                    note="clause attributive de juridiction, aucune clause compromissoire",
                                )
                            )
                            break
        tenders = [(m, s, e, d) for d in prose for m, s, e in _cues(d, TENDER_RE)]
        for m, s, e, doc in tenders:
            live = _live_text(doc)
            if negated(live, s, e, m.start(), m.end()):
                self.p.add(
                    Finding(fact="systematic_tenders", value=False, confidence=0.85, grounding=[_ground(doc, s, e)])
                )
            elif SYSTEMATIC_RE.search(live[s:e]):
                self.p.add(
                    Finding(fact="systematic_tenders", value=True, confidence=0.85, grounding=[_ground(doc, s, e)])
                )
        self._polar("force_majeure", FORCE_MAJEURE_RE, not_contract, events=True, conf=0.8)
        self._polar("dedicated_investments", INVESTMENT_RE, prose, conf=0.8)

    def _has(self, fact: str, value: object = None) -> bool:
        return any(f.fact == fact and (value is None or f.value == value) for f in self.p.findings)

    # --- termination ----------------------------------------------------------------------------------------
    def _candidates(self) -> list[dict]:
        """Every asserted termination (not denied, not conditional), with its date and who made it."""
        if self._cands is not None:
            return self._cands
        out = []
        for doc in self.docs:
            if doc.kind in (DocumentKind.CONTRACT, DocumentKind.ORDER_HISTORY):
                continue
            live = _live_text(doc)
            found = []
            for s, e in _sentences(doc):
                m = TERMINATION_RE.search(live, s, e) or PARTIAL_RE.search(live, s, e)
                if m is None or negated(live, s, e, m.start(), m.end()) or hypothetical(live[s:e]):
                    continue
                before = live[s : m.start()]
                third = self._party_in(before)
                writer = self._writer(doc)
                if third is not None and third is not writer:
                    subject = "third"
                elif YOU_AUTHOR_RE.search(live[s : m.end()]):
                    subject = "recipient"
                else:
                    subject = "writer"
                when, span, medium = None, None, None
                ev = EVENT_DATE_RE.search(live, s, e) or re.compile(
                    r"le\s+(?P<date2>" + DATE_TEXT + r")\s*,", re.IGNORECASE
                ).match(live, s, e)
                if ev:
                    g = "date2" if "date" not in ev.re.groupindex or not ev.group("date") else "date"
                    dm = DATE_RE.search(doc.text, ev.start(g), ev.end(g))
                    if dm and (d := parse_date(dm)):
                        medium = (ev.group("medium") or "") if "medium" in ev.re.groupindex else ""
                        when, span, medium = d, (ev.start(), ev.end()), medium.lower()
                if (
                    when is not None
                    and not medium
                    and (mm := re.search(r"\bpar\s+(?:\w+\s+)?(" + MEDIUM + ")", live[s:e], re.IGNORECASE))
                ):
                    medium = mm.group(1).lower()  # « Le 5 juin 2023, X a notifié par lettre … »
                if when is None and subject == "writer" and (dd := _doc_date(doc)):
                    when, span, medium = dd[0], dd[1], "document"
                pm = PARTIAL_RE.search(live, s, e)
                found.append(
                    {
                        "doc": doc,
                        "m": m,
                        "s": s,
                        "e": e,
                        "when": when,
                        "span": span,
                        "medium": medium,
                        "subject": subject,
                        "third": third,
                        "writer": writer,
                        "partial": pm if (pm and not TERMINATION_RE.search(live, s, e)) else None,
                    }
                )
            if found:  # one statement per document: the one dated in its own words, else the first
                out.append(next((c for c in found if c["medium"] not in (None, "document")), found[0]))
        out.sort(key=lambda c: (c["when"] is None, c["when"] or date.max, c["medium"] != "document"))
        self._cands = out
        return out

    def _termination_docs(self) -> list[tuple[date, re.Match[str], Document]]:
        return [(c["when"], c["m"], c["doc"]) for c in self._candidates() if c["when"] is not None]

    def _notification_date(self) -> date | None:
        docs = self._termination_docs()
        return docs[0][0] if docs else None

    def _termination(self) -> None:
        cands = self._candidates()
        if not cands:
            return
        first = cands[0]
        doc, live = first["doc"], _live_text(first["doc"])
        sentence = (first["s"], first["e"])
        when = first["when"]
        if when is not None:
            for c in cands:
                if c["when"] == when:
                    gs = [_ground(c["doc"], *c["span"])] + (
                        [_ground(c["doc"], c["s"], c["e"])] if c["medium"] == "document" else []
                    )
                    self.p.add(Finding(fact="notification_date", value=when.isoformat(), confidence=0.9, grounding=gs))
            self.p.ontology.events.append(
                Event(
                    kind=EventKind.NOTIFICATION,
                    date=when,
                    description="notification de la rupture",
                    grounding=[_ground(doc, *sentence)],
                )
            )
        # written or oral: the notifying sentence, and the sentences that state the notice
        notice_sents = [(s, e) for s, e in _sentences(doc) if re.search(r"préavis", live[s:e], re.IGNORECASE)]
        oral: re.Match[str] | _Span | None = next(
            (om for s, e in [sentence, *notice_sents] if (om := ORAL_RE.search(live, s, e))), None
        )
        if (
            oral is None
            and first["medium"]
            and ORAL_RE.search(first["medium"]) is None
            and re.match(r"téléphone|appel|réunion|rendez-vous|entretien|visite|conversation|entrevue", first["medium"])
        ):
            said = re.search(re.escape(first["medium"]), live[first["span"][0] : first["span"][1]])
            oral = None if said is None else _Span(first["span"][0] + said.start(), first["span"][0] + said.end())
        if oral is not None:
            self.p.add(
                Finding(
                    fact="notice_written",
                    value=False,
                    confidence=0.85,
                    grounding=[_ground(doc, *sentence), _ground(doc, oral.start(), oral.end())],
                    note="notification orale",
                )
            )
        elif first["medium"] and (
            first["medium"] == "document"
            or re.match(r"courriel|e-mail|email|mail|lettre|courrier|message", first["medium"])
        ):
            self.p.add(
                Finding(
                    fact="notice_written",
                    value=True,
                    confidence=0.9,
                    grounding=[_ground(doc, *(first["span"] if first["medium"] != "document" else sentence))],
                    note="notification par courriel (écrit)"
                    if doc.kind is DocumentKind.EMAIL
                    else "notification par écrit",
                )
            )
        self._notice_given(cands)
        if first["partial"] is not None:
            pm = first["partial"]
            pct = float((pm.group("pct") or pm.group("pct2")).replace(",", "."))
            self.p.add(
                Finding(
                    fact="rupture_kind",
                    value="partial_volume",
                    confidence=0.85,
                    grounding=[_ground(doc, pm.start(), pm.end())],
                )
            )
            self.p.add(
                Finding(
                    fact="volume_drop_pct", value=pct, confidence=0.85, grounding=[_ground(doc, pm.start(), pm.end())]
                )
            )
        else:
            self.p.add(Finding(fact="rupture_kind", value="total", confidence=0.9, grounding=[_ground(doc, *sentence)]))
        self._roles(first)

    def _notice_given(self, cands: list[dict]) -> None:
        """The notice granted: « préavis de N », else « sans préavis / effet immédiat » (0), else the end date
        announced in the notifying document (months between notification and end)."""
        found = False
        for c in cands:
            doc = c["doc"]
            live = _live_text(doc)
            for s, e in _sentences(doc):
                sent = live[s:e]
                if hypothetical(sent):
                    continue
                if (
                    (im := IMMEDIATE_RE.search(live, s, e))
                    and (s, e) == (c["s"], c["e"])
                    or im
                    and re.search(r"résili|fin|cess|rupture|rompu", sent, re.IGNORECASE)
                ):
                    self.p.add(
                        Finding(
                            fact="notice_given_months",
                            value=0.0,
                            confidence=0.85,
                            grounding=[_ground(doc, im.start(), im.end())],
                        )
                    )
                    found = True
                    continue
                for nm in NOTICE_RE.finditer(live, s, e):
                    months = duration_months(nm.group(0))
                    if months is None or negated(live, s, e, nm.start(), nm.end()):
                        continue
                    if CONTRACTUAL_RE.search(sent):
                        self.p.add(
                            Finding(
                                fact="contractual_notice_months",
                                value=months,
                                confidence=0.8,
                                grounding=[_ground(doc, s, e)],
                                note="préavis contractuel cité",
                            )
                        )
                        continue
                    self.p.add(
                        Finding(
                            fact="notice_given_months",
                            value=months,
                            confidence=0.9,
                            grounding=[_ground(doc, nm.start(), nm.end())],
                        )
                    )
                    found = True
        first = cands[0]
        if not found and first["when"] is not None:
            live = _live_text(first["doc"])
            for s, e in _sentences(first["doc"]):
                if s < first["s"]:
                    continue
                em = END_DATE_RE.search(live, s, e)
                dm = DATE_RE.search(first["doc"].text, em.start("date"), em.end("date")) if em else None
                if em and dm and (end := parse_date(dm)) and end > first["when"]:
                    self.p.add(
                        Finding(
                            fact="notice_given_months",
                            value=months_between(first["when"], end),
                            confidence=0.8,
                            grounding=[_ground(first["doc"], em.start(), em.end())],
                            note=f"de la notification ({first['when'].isoformat()}) à la fin annoncée",
                        )
                    )
                    break

    def _roles(self, first: dict) -> None:
        """Author = who notified; victim = the other party (or the lawyer's client)."""
        doc = first["doc"]
        writer = first["writer"] or self._client(doc)
        author = victim = None
        if first["subject"] == "third":
            author = first["third"]
        elif first["subject"] == "writer":
            author = writer
        else:
            victim = writer
        if author is not None and victim is None:
            rest = [a for a in self.parties.values() if a is not author]
            victim = rest[0] if len(rest) == 1 else self._client(doc) if self._client(doc) is not author else None
        elif victim is not None and author is None:
            rest = [a for a in self.parties.values() if a is not victim]
            author = rest[0] if len(rest) == 1 else None
        if author is not None:
            author.role = "defendant"
            self.p.add(
                Finding(
                    fact="defendant_name",
                    value=author.name,
                    confidence=0.85,
                    grounding=author.grounding,
                    note="auteur de la notification de rupture",
                )
            )
        if victim is not None and victim is not author:
            victim.role = "claimant"
            self.p.add(
                Finding(
                    fact="claimant_name",
                    value=victim.name,
                    confidence=0.85,
                    grounding=victim.grounding,
                    note="destinataire de la notification de rupture",
                )
            )
            act = self._activity.get(victim.id)
            if act:
                value, g = act
                self.p.add(Finding(fact="claimant_activity", value=value, confidence=0.85, grounding=[g]))

    # --- faults and formal notices -------------------------------------------------------------------------
    def _faults(self) -> None:
        notif = self._notification_date()
        prose = [d for d in self.docs if d.kind not in (DocumentKind.CONTRACT, DocumentKind.ORDER_HISTORY)]
        for doc in prose:
            live = _live_text(doc)
            dd = _doc_date(doc)
            for m, s, e in _cues(doc, FORMAL_NOTICE_RE):
                if negated(live, s, e, m.start(), m.end()):
                    self.p.add(
                        Finding(fact="formal_notice_sent", value=False, confidence=0.85, grounding=[_ground(doc, s, e)])
                    )
                    break
                if hypothetical(live[s:e]):
                    continue
                ref = re.compile(r"\s*(?:du|en\s+date\s+du)\s+(" + DATE_TEXT + ")", re.IGNORECASE).match(
                    live, m.end(), e
                )
                when = parse_date(DATE_RE.search(live, ref.start(1), ref.end(1))) if ref else dd[0] if dd else None
                if notif and when and when > notif:
                    continue
                span = (s, e) if ref is None else (m.start(), ref.end())
                self.p.add(
                    Finding(fact="formal_notice_sent", value=True, confidence=0.9, grounding=[_ground(doc, *span)])
                )
                self.p.ontology.events.append(
                    Event(
                        kind=EventKind.FORMAL_NOTICE,
                        date=when,
                        description="mise en demeure",
                        grounding=[_ground(doc, *span)],
                    )
                )
                break
        # a fault invoked in a notice of termination or in a formal notice
        relevant = {id(c["doc"]) for c in self._candidates()} | {
            id(f_doc)
            for f_doc in prose
            if any(FORMAL_NOTICE_RE.search(_live_text(f_doc), s, e) for s, e in _sentences(f_doc))
        }
        for doc in prose:
            if id(doc) not in relevant:
                continue
            live = _live_text(doc)
            for m, s, e in _cues(doc, FAULT_RE):
                if hypothetical(live[s:e]) and not negated(live, s, e, m.start(), m.end()):
                    continue
                value = not negated(live, s, e, m.start(), m.end())
                self.p.add(
                    Finding(
                        fact="fault_alleged",
                        value=value,
                        confidence=0.9 if value else 0.8,
                        grounding=[_ground(doc, m.start(), m.end()) if value else _ground(doc, s, e)],
                    )
                )
                break

    # --- amounts, rates and counts written in prose ------------------------------------------------------
    def _amounts(self) -> None:
        for doc in self.docs:
            if doc.kind is DocumentKind.ORDER_HISTORY:
                continue
            live = _live_text(doc)
            by_fact: dict[str, dict[str, tuple[float, object]]] = {}
            for s, e in _sentences(doc):
                keys = [
                    (k.start(), "annual_gross_margin" if "marge" in k.group(0).lower() else "annual_turnover")
                    for k in re.finditer(r"chiffre\s+d'affaires|\bCA\b|marge\s+brute", live[:e][s:])
                ]
                if not keys:
                    continue
                for am in AMOUNT_RE.finditer(live, s, e):
                    ym = re.compile(
                        r"\s*(?:HT\s+)?(?:en|pour|au\s+titre\s+de)\s+(?:l'(?:année|exercice)\s+)?"
                        r"((?:19|20)\d\d)\b"
                    ).match(live, am.end(), e)
                    value = amount_value(am)
                    prior = [f for off, f in keys if s + off < am.start()]
                    if not ym or value is None or not prior:
                        continue
                    by_fact.setdefault(prior[-1], {})[ym.group(1)] = (value, _ground(doc, am.start(), ym.end()))
            for fact, years in by_fact.items():
                if not self._has(fact):
                    self.p.add(
                        Finding(
                            fact=fact,
                            value={y: v for y, (v, _) in sorted(years.items())},
                            confidence=0.8,
                            grounding=[g for _, (_, g) in sorted(years.items())],
                        )
                    )
            if not self._has("margin_rate_pct") and (
                m := _first(doc, r"taux\s+de\s+marge[^.%]{0,60}?(\d+(?:,\d+)?)\s*%")
            ):
                self.p.add(
                    Finding(
                        fact="margin_rate_pct",
                        value=float(m.group(1).replace(",", ".")),
                        confidence=0.8,
                        grounding=[_ground(doc, m.start(), m.end())],
                    )
                )
            if not self._has("orders_count") and (
                m := _first(doc, r"(\d{1,3}(?:[  \u202f]\d{3})*|\d+)\s+commandes\s+(?:ont\s+été\s+)?passées")
            ):
                self.p.add(
                    Finding(
                        fact="orders_count",
                        value=int(re.sub(r"\D", "", m.group(1))),
                        confidence=0.8,
                        grounding=[_ground(doc, m.start(), m.end())],
                    )
                )

    def _relation_start_prose(self) -> None:
        """« livre depuis 2008 », « travaillons ensemble depuis le 4 mars 2013 » (only without a contract date)."""
        if self._has("relation_start"):
            return
        rx = re.compile(
            r"depuis\s+(?:le\s+)?(?:(?P<date>" + DATE_TEXT + r")|(?:(?:en|l'année)\s+)?(?P<year>(?:19|20)\d\d)\b)",
            re.IGNORECASE,
        )
        for doc in self.docs:
            if doc.kind is DocumentKind.ORDER_HISTORY:
                continue
            live = _live_text(doc)
            for m, s, e in _cues(doc, rx):
                if not re.search(
                    r"livr|fourni|travaill|relation|collabor|partenari|client|fournisseur|command",
                    live[s:e],
                    re.IGNORECASE,
                ):
                    continue
                if m.group("date"):
                    d = parse_date(DATE_RE.search(live, m.start("date"), m.end("date")))
                else:
                    d = date(int(m.group("year")), 1, 1)
                if d:
                    self.p.add(
                        Finding(
                            fact="relation_start",
                            value=d.isoformat(),
                            confidence=0.75 if m.group("date") else 0.6,
                            grounding=[_ground(doc, m.start(), m.end())],
                            note=None if m.group("date") else "année seule : 1er janvier retenu",
                        )
                    )
                    return

    # --- order history ------------------------------------------------------------------------------------
    def _orders(self) -> None:
        for doc in self.docs:
            if doc.kind is not DocumentKind.ORDER_HISTORY:
                continue
            rows = _table_rows(doc)
            if len(rows) < 2:
                continue
            header = [fold(c[0]) for c in rows[0]]
            col = {
                k: next((i for i, h in enumerate(header) if any(w in h for w in words)), None)
                for k, words in {
                    "year": ("annee", "exercice"),
                    "orders": ("commande",),
                    "turnover": ("chiffre", "ca"),
                    "margin": ("marge",),
                }.items()
            }
            if col["year"] is None:
                continue
            data = [r for r in rows[1:] if len(r) == len(rows[0]) and r[col["year"]][0].strip().isdigit()]
            notif = self._notification_date()
            full = [r for r in data if notif is None or int(r[col["year"]][0]) < notif.year]
            if col["orders"] is not None and data:
                counts = [int(float(r[col["orders"]][0])) for r in data]
                cells = [_ground(doc, *r[col["orders"]][1:]) for r in data]
                self.p.add(
                    Finding(
                        fact="orders_count",
                        value=sum(counts),
                        confidence=0.95,
                        grounding=cells,
                        note=f"somme des commandes {data[0][col['year']][0]}–{data[-1][col['year']][0]}",
                    )
                )
                inner = [int(float(r[col["orders"]][0])) for r in full[1:]] or counts
                mean = sum(inner) / len(inner)
                spread = (max(inner) - min(inner)) / mean if mean else 1
                self.p.add(
                    Finding(
                        fact="regular_orders",
                        value=bool(mean >= 12 and spread <= 0.5),
                        confidence=0.8,
                        grounding=cells,
                        note=f"{mean:.0f} commandes/an en moyenne, écart relatif {spread:.0%}",
                    )
                )
            for key, fact in (("turnover", "annual_turnover"), ("margin", "annual_gross_margin")):
                at, year_at = col[key], col["year"]
                if at is None or year_at is None or not full:
                    continue
                amounts = {r[year_at][0].strip(): parse_amount(r[at][0]) for r in full}
                self.p.add(
                    Finding(
                        fact=fact,
                        value={y: a for y, a in amounts.items() if a is not None},
                        confidence=0.95,
                        grounding=[_ground(doc, *r[at][1:], note=f"année {r[year_at][0]}") for r in full],
                        note="années complètes avant la notification de la rupture",
                    )
                )
            if col["turnover"] is not None and col["margin"] is not None and full:
                last = full[-3:]
                ca = sum(parse_amount(r[col["turnover"]][0]) or 0 for r in last)
                mg = sum(parse_amount(r[col["margin"]][0]) or 0 for r in last)
                if ca:
                    self.p.add(
                        Finding(
                            fact="margin_rate_pct",
                            value=round(100 * mg / ca, 1),
                            confidence=0.7,
                            grounding=[_ground(doc, *r[c][1:]) for r in last for c in (col["turnover"], col["margin"])],
                            note="marge brute / CA HT des 3 dernières années complètes (à confirmer par les comptes)",
                        )
                    )

    # --- procedure ------------------------------------------------------------------------------------------
    def _procedure(self) -> None:
        for doc in self.docs:
            m = _first(
                doc,
                r"assignation\s+a\s+été\s+délivrée\s+le\s+(" + DATE_TEXT + ")|"
                r"(?:a\s+)?saisi\s+le\s+tribunal[^.]*?le\s+(" + DATE_TEXT + ")",
            )
            if m:
                dm = DATE_RE.search(doc.text, m.start(), m.end())
                if dm and (d := parse_date(dm)):
                    self.p.add(
                        Finding(
                            fact="claim_date",
                            value=d.isoformat(),
                            confidence=0.9,
                            grounding=[_ground(doc, m.start(), m.end())],
                        )
                    )
                    self.p.ontology.events.append(
                        Event(
                            kind=EventKind.CLAIM,
                            date=d,
                            description="assignation",
                            grounding=[_ground(doc, m.start(), m.end())],
                        )
                    )
                court = re.compile(
                    r"devant\s+le\s+tribunal\s+(?:de\s+commerce|judiciaire|des\s+activités\s+"
                    r"économiques)\s+d[e']\s*(?P<city>[A-ZÉ][\w-]+)"
                ).search(doc.text, m.start())
                if court:
                    city = court.group("city").lower()
                    self.p.add(
                        Finding(
                            fact="court_specialised",
                            value=city in SPECIALISED_COURTS,
                            confidence=0.9,
                            grounding=[_ground(doc, court.start(), court.end())],
                            note="art. D.442-2 C. com. (annexe 4-2-1)",
                        )
                    )

    # --- ambiguity ------------------------------------------------------------------------------------------
    def _ambiguities(self) -> None:
        emails = [d for d in self.docs if d.kind is DocumentKind.EMAIL]
        for reply in emails:
            body_start = reply.text.find("\n\n")
            live = _live_text(reply)
            acc = ACCEPT_RE.search(live, body_start)
            if not acc or len(re.findall(r"\w+", live[body_start:].split("\n\n\n")[0])) > 60:
                continue
            subject = re.sub(r"^(?:re|tr|fwd?)\s*:\s*", "", reply.metadata.get("subject", ""), flags=re.IGNORECASE)
            original = next(
                (d for d in emails if d is not reply and subject and d.metadata.get("subject", "") == subject), None
            )
            if original is None:
                continue
            price, exit_ = PRICE_RE.search(original.text), EXIT_RE.search(original.text)
            if not (price and exit_):
                continue
            said = reply.ground(acc.start(), acc.end())
            amb_id = str(uuid.uuid4())
            term = self._termination_docs()
            term_g = [_ground(term[0][2], *_sentence(term[0][2], term[0][1].start(), term[0][1].end()))] if term else []
            a = Finding(
                fact="rupture_kind",
                value="total",
                confidence=0.6,
                world=World.NARRATIVE_A,
                grounding=[said, _ground(original, *price.span()), *term_g],
                ambiguity=amb_id,
                note="« C'est d'accord » porte sur la baisse de prix : la rupture reste le fait du distributeur",
            )
            b = Finding(
                fact="rupture_kind",
                value="none",
                confidence=0.4,
                world=World.NARRATIVE_B,
                grounding=[said, _ground(original, *exit_.span())],
                ambiguity=amb_id,
                note="« C'est d'accord » vaut accord de principe sur la sortie : fin d'un commun accord",
            )
            self.p.ambiguities.append(
                Ambiguity(
                    id=amb_id,
                    statement=said,
                    readings=[a, b],
                    question="L'accord donné portait-il seulement sur le prix, "
                    "ou aussi sur la sortie progressive des références ?",
                )
            )
            self.p.findings = [f for f in self.p.findings if f.fact != "rupture_kind"]
            self.p.add(a)
            self.p.add(b)


def _activity(doc: Document, start: int, end: int):  # type: ignore[no-untyped-def]
    table = (
        ("production", r"fabricant|fabrique|producteur|production|industriel"),
        ("commercial_agent", r"agent\s+commercial"),
        ("distribution", r"distributeur|grossiste|supermarchés|négociant"),
        ("services", r"prestataire|services"),
    )
    for value, pattern in table:
        m = re.compile(pattern, re.IGNORECASE).search(doc.text, start, end)
        if m:
            return value, _ground(doc, m.start(), m.end())
    return None


def _sentence(doc: Document, start: int, end: int) -> tuple[int, int]:
    """The sentence around [start, end) (bounded by . ! ? or a blank line)."""
    text = doc.text
    s = max(text.rfind(". ", 0, start), text.rfind("\n\n", 0, start), text.rfind(".\n", 0, start))
    s = 0 if s < 0 else s + 2 if text[s] != "\n" else s + 2
    e_candidates = [i for i in (text.find(".", end), text.find("\n\n", end)) if i >= 0]
    e = min(e_candidates) + 1 if e_candidates else len(text)
    s, e = _trim(doc, s, e)
    return s, e


def _table_rows(doc: Document) -> list[list[tuple[str, int, int]]]:
    """CSV-ish rows (; or , or | or tab separated) with each cell's span."""
    rows = []
    pos = 0
    sep = ";" if doc.text.count(";") >= doc.text.count(",") else ","
    if doc.text.count("|") > doc.text.count(sep):
        sep = "|"
    for line in doc.text.split("\n"):
        cells, cpos = [], pos
        if line.strip():
            for raw in line.split(sep):
                s = cpos + len(raw) - len(raw.lstrip())
                e = cpos + len(raw.rstrip())
                if e > s:
                    cells.append((line[s - pos : e - pos], s, e))
                cpos += len(raw) + 1
            rows.append(cells)
        pos += len(line) + 1
    return rows


def extract(docs: list[Document], pack: str = DEFAULT_PACK) -> Perception:
    """The structural readers (contract parties and clauses, order tables, dossier e-mails), then the pack's
    per-fact reader (``extraction.yaml``) for every fact they did not find."""
    perception = OfflineExtractor(docs).run()
    spec, types = _spec(pack)
    if spec is None:
        return perception
    reader = SpecReader(spec, types)
    found = reader.read(docs)
    reader.mark_allegations(perception.findings)
    mine = {f.fact for f in found if f.fact in spec.prefer}
    structural = {d.id for d in docs if d.kind in (DocumentKind.CONTRACT, DocumentKind.ORDER_HISTORY)}
    perception.findings = [
        f for f in perception.findings if f.fact not in mine or any(g.document_id in structural for g in f.grounding)
    ]
    have = {f.fact for f in perception.findings}
    for f in found:
        if f.fact not in have:
            perception.add(f)
    return perception


def _spec(pack: str) -> tuple[ExtractionSpec | None, dict[str, str]]:
    from lexlogic.engine.packs import pack_by_name

    try:
        rule_pack, _ = pack_by_name(pack)
    except LexlogicError:
        return None, {}
    return load_extraction(rule_pack.root), {n: s.type.value for n, s in rule_pack.facts.items()}
