"""The offline, deterministic structural readers: a dossier's contracts, tables, dated event and e-mail threads.

Pack-agnostic: every fact they read, and the patterns they read it with, come from the pack's
``extraction.yaml`` (``structural:``): contract clauses (present, a duration, a date), yes/no stipulations
read anywhere (true where asserted, false where denied), a table's columns (sum, regularity, by year, a
ratio), the triggering event (its date, whether written, the notice given, whole or partial, its author
and its recipient) and a bare acceptance answering a message with several proposals (an ambiguity node,
one reading per world). Quoted lines of e-mails (« > … ») are ignored: they repeat another message. The
pack's per-fact reader (``reader.SpecReader``) then fills every fact these did not find.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import date
from typing import Any

from lexlogic.engine.documents.model import Document, DocumentKind
from lexlogic.engine.perception.calibration import apply as apply_calibration
from lexlogic.engine.perception.calibration import load as load_calibration
from lexlogic.engine.perception.french import (
    DATE_RE,
    DATE_TEXT,
    duration_after,
    duration_months,
    expand,
    hypothetical,
    months_between,
    negated,
    parse_date,
    sentences,
)
from lexlogic.engine.perception.model import Ambiguity, Finding, Perception
from lexlogic.engine.perception.reader import SpecReader
from lexlogic.engine.text.fold import name_key
from lexlogic.engine.text.numbers import parse_number
from lexlogic.logic.extraction import (
    ClauseReading,
    ColumnReading,
    ContractReading,
    EventSpec,
    ExtractionSpec,
    StructuralSpec,
)
from lexlogic.logic.facts import World
from lexlogic.logic.ontology import (
    Actor,
    Event,
    EventKind,
    Evidence,
    EvidenceKind,
    PersonKind,
    new_id,
    stable_ids,
)
from lexlogic.logic.pack import RulePack

COMPANY_RE = re.compile(
    r"(?:\b[Ll]a\s+société|\b[Ll]'entreprise|\b[Ss]ociété)[ \t]+(?P<n1>"
    + r"[A-ZÀ-Ý][\w'’&-]*(?:[ \t]+(?:(?:de|des|du|d'|et|&)[ \t]*)?[A-ZÀ-Ý][\w'’&-]*)*"
    + r")"
    r"|(?P<n2>[A-ZÀ-Ý][\w'’&-]*(?:[ \t]+(?:(?:de|des|du|d'|et|&)[ \t]*)?[A-ZÀ-Ý][\w'’&-]*)*)[ \t]+"
    r"(?P<form>SASU|SAS|SARL|SA|SNC|EURL|SCA|SCOP)\b"
)
LEGAL_FORMS = {"SASU", "SAS", "SARL", "SA", "SNC", "EURL", "SCA", "SCOP", "SELARL"}
NOTHING = re.compile(r"(?!x)x")  # a pattern the pack left out matches nothing


def _rx(pattern: str | None, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(expand(pattern), flags) if pattern else NOTHING


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
    """The structural readers of one pack (``extraction.yaml`` ``structural:``); each ``_x`` method reads one
    family of facts."""

    def __init__(self, docs: list[Document], spec: ExtractionSpec | None = None) -> None:
        self.docs = docs
        self.spec = spec
        self.st: StructuralSpec = spec.structural if spec is not None else StructuralSpec()
        self.ev: EventSpec | None = self.st.event
        self.p = Perception()
        self.parties: dict[str, Actor] = {}  # role word (Fournisseur, Distributeur) → actor
        self._desc: dict[str, tuple[Document, int, int]] = {}  # actor id → span of its description
        self._activity: dict[str, tuple] = {}  # actor id → (attribute value, grounding)
        self._cands: list[dict] | None = None
        ev = self.ev
        self._event_rx = [_rx(p) for p in ev.patterns] if ev else []
        self._partial_rx = _rx(ev.partial_pattern) if ev else NOTHING
        self._media = (ev.media or "") if ev else ""
        self._event_date_rx = (
            re.compile(
                r"(?:par|lors\s+d[eu']|dans|au\s+cours\s+d[eu']|à\s+l'occasion\s+d[eu'])\s*(?:(?:notre|votre|sa|son|leur|"
                r"la|le|l'|un|une)\s*)?(?P<medium>"
                + self._media
                + r")(?:\s+[\w-]+){0,2}?\s+(?:du|en\s+date\s+du)\s+(?P<date>"
                + DATE_TEXT
                + ")"
                r"|^\s*le\s+(?P<date2>" + DATE_TEXT + r")\s*,",
                re.IGNORECASE,
            )
            if self._media
            else re.compile(r"^\s*le\s+(?P<date2>" + DATE_TEXT + r")\s*,", re.IGNORECASE)
        )

    def _party_fact(self, role: str, reader: str = "party") -> str | None:
        """The fact of reader ``reader`` that belongs to ``role`` (the event's author: defence; its recipient:
        claimant)."""
        if self.spec is None:
            return None
        return next((n for n, fs in self.spec.facts.items() if fs.reader == reader and fs.role == role), None)

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
        for step in (self._parties, self._contract, self._clauses, self._table, self._event, self._acceptance):
            step()
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
                key = name_key(name)
                known = next((a for a in self.parties.values() if name_key(a.name) == key), None)
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
        t = name_key(text)
        for a in self.parties.values():
            key = name_key(a.name)
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

    # --- a written contract's clauses ----------------------------------------------------------------
    def _contract(self) -> None:
        attribute = self._party_fact("claimant", "enum")
        values = self.spec.facts[attribute].values if self.spec is not None and attribute else {}
        for doc in self.docs:
            if doc.kind is not DocumentKind.CONTRACT:
                continue
            for cr in self.st.contract:
                self._clause(doc, cr)
            for actor in self.parties.values():  # each party's description: « fabricant de biscuits »
                d_doc, s, e = self._desc.get(actor.id, (None, 0, 0))
                if d_doc is doc and (found := _attribute(doc, s, e, values)) is not None:
                    self._activity[actor.id] = found

    def _clause(self, doc: Document, cr: ContractReading) -> None:
        if cr.reader == "present":
            if m := _first(doc, r"[^.\n]*(?:" + expand(cr.pattern) + r")[^.\n]*"):
                self._add(cr.fact, True, cr.confidence, [_ground(doc, m.start(), m.end())], cr.note)
        elif cr.reader == "duration":
            if (m := _first(doc, duration_after(expand(cr.pattern)))) and (months := duration_months(m.group(0))):
                self._add(cr.fact, months, cr.confidence, [_ground(doc, m.start(), m.end())], cr.note)
        else:
            start = _first(doc, r"(?:" + expand(cr.pattern) + r")\s+(" + DATE_TEXT + ")")
            if start is None and cr.fallback:
                start = _first(doc, r"(?:" + expand(cr.fallback) + r")\s+(" + DATE_TEXT + ")")
            dm = DATE_RE.search(doc.text, start.start(1), start.end(1)) if start else None
            if start and dm and (d := parse_date(dm)):
                g = [_ground(doc, start.start(), start.end())]
                self._add(cr.fact, d.isoformat(), cr.confidence, g, cr.note)
                if cr.event:
                    self.p.ontology.events.append(
                        Event(kind=EventKind(cr.event), date=d, description=cr.note or "", grounding=g)
                    )

    def _add(self, fact: str, value: Any, confidence: float, grounding: list, note: str | None = None) -> None:
        self.p.add(Finding(fact=fact, value=value, confidence=confidence, grounding=grounding, note=note))

    # --- stipulations read anywhere (true, or false when explicitly denied) -------------------------------
    def _polar(self, cr: ClauseReading, docs: list[Document]) -> None:
        """One finding per document and value: true where a cue is asserted, false where it is denied."""
        rx = _rx(cr.pattern, 0 if cr.case_sensitive else re.IGNORECASE)
        context, required, skip = _rx(cr.context), _rx(cr.required), _rx(cr.skip_before)
        conf = cr.confidence
        for doc in docs:
            live = _live_text(doc)
            seen: set[bool] = set()
            for m, s, e in _cues(doc, rx):
                if cr.skip_before and skip.search(live[max(s, m.start() - 25) : m.start()]):
                    continue
                value = not negated(live, s, e, m.start(), m.end())
                if value in seen:
                    continue
                if value and cr.act and hypothetical(live[s:e]):
                    continue
                if value and cr.required and not required.search(live[s:e]):
                    continue
                if value and cr.context and doc.kind is not DocumentKind.CONTRACT and not context.search(live[s:e]):
                    continue
                seen.add(value)
                c = conf if doc.kind is DocumentKind.CONTRACT or not value else conf - 0.05
                quote = (s, e) if not value or cr.ground == "sentence" else (m.start(), m.end())
                self._add(cr.fact, value, round(c if value else conf + 0.05, 2), [_ground(doc, *quote)])

    def _clauses(self) -> None:
        prose = [d for d in self.docs if d.kind is not DocumentKind.ORDER_HISTORY]
        not_contract = [d for d in prose if d.kind is not DocumentKind.CONTRACT]
        for cr in self.st.clauses:
            self._polar(cr, prose if cr.in_contracts else not_contract)
            if self._has(cr.fact, True):
                continue
            for fr_ in cr.otherwise_false:
                rx, context, required = _rx(fr_.pattern), _rx(fr_.context), _rx(fr_.required)
                found = False
                for doc in prose if cr.in_contracts else not_contract:
                    live = _live_text(doc)
                    for m, s, e in _cues(doc, rx):
                        sent = live[s:e]
                        if fr_.context and doc.kind is not DocumentKind.CONTRACT and not context.search(sent):
                            continue
                        if fr_.required and not required.search(sent):
                            continue
                        quote = (s, e) if fr_.sentence else (m.start(), m.end())
                        self._add(cr.fact, False, 0.85 if fr_.sentence else 0.7, [_ground(doc, *quote)], fr_.note)
                        found = True
                        break
                    if found:
                        break
                if found:
                    break

    def _has(self, fact: str | None, value: object = None) -> bool:
        return any(f.fact == fact and (value is None or f.value == value) for f in self.p.findings)

    # --- termination ----------------------------------------------------------------------------------------
    def _candidates(self) -> list[dict]:
        """Every asserted statement of the event (not denied, not conditional), with its date and who made it."""
        if self._cands is not None:
            return self._cands
        out = []
        for doc in self.docs:
            if doc.kind in (DocumentKind.CONTRACT, DocumentKind.ORDER_HISTORY):
                continue
            live = _live_text(doc)
            found = []
            for s, e in _sentences(doc):
                m = next((x for rx in self._event_rx if (x := rx.search(live, s, e))), None)
                m = m or self._partial_rx.search(live, s, e)
                if m is None or negated(live, s, e, m.start(), m.end()) or hypothetical(live[s:e]):
                    continue
                before = live[s : m.start()]
                third = self._party_in(before)
                writer = self._writer(doc)
                if third is not None and third is not writer:
                    subject = "third"
                elif self.ev is not None and _rx(self.ev.recipient_author).search(live[s : m.end()]):
                    subject = "recipient"
                else:
                    subject = "writer"
                when, span, medium = None, None, None
                ev = self._event_date_rx.search(live, s, e) or re.compile(
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
                    and self._media
                    and (mm := re.search(r"\bpar\s+(?:\w+\s+)?(" + self._media + ")", live[s:e], re.IGNORECASE))
                ):
                    medium = mm.group(1).lower()  # « Le 5 juin 2023, X a notifié par lettre … »
                if when is None and subject == "writer" and (dd := _doc_date(doc)):
                    when, span, medium = dd[0], dd[1], "document"
                pm = self._partial_rx.search(live, s, e)
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
                        "partial": pm if (pm and not any(rx.search(live, s, e) for rx in self._event_rx)) else None,
                    }
                )
            if found:  # one statement per document: the one dated in its own words, else the first
                out.append(next((c for c in found if c["medium"] not in (None, "document")), found[0]))
        out.sort(key=lambda c: (c["when"] is None, c["when"] or date.max, c["medium"] != "document"))
        self._cands = out
        return out

    def _termination_docs(self) -> list[tuple[date, re.Match[str], Document]]:
        return [(c["when"], c["m"], c["doc"]) for c in self._candidates() if c["when"] is not None]

    def _event_date(self) -> date | None:
        docs = self._termination_docs()
        return docs[0][0] if docs else None

    def _event(self) -> None:
        """The first asserted event: its date, whether written, the notice given, whole or partial, its parties."""
        ev = self.ev
        cands = self._candidates()
        if ev is None or not cands:
            return
        first = cands[0]
        doc, live = first["doc"], _live_text(first["doc"])
        sentence = (first["s"], first["e"])
        when = first["when"]
        if when is not None:
            for c in cands:
                if c["when"] == when and ev.date:
                    gs = [_ground(c["doc"], *c["span"])] + (
                        [_ground(c["doc"], c["s"], c["e"])] if c["medium"] == "document" else []
                    )
                    self._add(ev.date, when.isoformat(), 0.9, gs)
            self.p.ontology.events.append(
                Event(
                    kind=EventKind(ev.kind),
                    date=when,
                    description=ev.description,
                    grounding=[_ground(doc, *sentence)],
                )
            )
        if ev.written:
            self._written(ev, first, doc, live, sentence)
        self._notice_given(cands)
        if first["partial"] is not None and ev.kind_fact and ev.partial:
            pm = first["partial"]
            g = [_ground(doc, pm.start(), pm.end())]
            self._add(ev.kind_fact, ev.partial, 0.85, g)
            if ev.share:
                pct = next((x for k, x in pm.groupdict().items() if k.startswith("pct") and x), None)
                if pct is not None:
                    self._add(ev.share, float(pct.replace(",", ".")), 0.85, g)
        elif ev.kind_fact and ev.whole:
            self._add(ev.kind_fact, ev.whole, 0.9, [_ground(doc, *sentence)])
        self._roles(first)

    def _written(self, ev: EventSpec, first: dict, doc: Document, live: str, sentence: tuple[int, int]) -> None:
        """Written or oral: the notifying sentence, and the sentences that state the notice."""
        assert ev.written is not None
        oral_rx = _rx(ev.oral)
        lead = _rx(ev.notice_lead)
        notice_sents = [(s, e) for s, e in _sentences(doc) if lead.search(live[s:e])]
        oral: re.Match[str] | _Span | None = next(
            (om for s, e in [sentence, *notice_sents] if (om := oral_rx.search(live, s, e))), None
        )
        medium = first["medium"]
        if oral is None and medium and medium != "document" and not oral_rx.search(medium):
            if not re.match(expand(ev.written_media or "(?!x)x"), medium, re.IGNORECASE):
                said = re.search(re.escape(medium), live[first["span"][0] : first["span"][1]])
                oral = None if said is None else _Span(first["span"][0] + said.start(), first["span"][0] + said.end())
        if oral is not None:
            g = [_ground(doc, *sentence), _ground(doc, oral.start(), oral.end())]
            self._add(ev.written, False, 0.85, g, "notification orale")
        elif medium and (medium == "document" or re.match(expand(ev.written_media or "(?!x)x"), medium, re.IGNORECASE)):
            span = first["span"] if medium != "document" else sentence
            note = "notification par courriel (écrit)" if doc.kind is DocumentKind.EMAIL else "notification par écrit"
            self._add(ev.written, True, 0.9, [_ground(doc, *span)], note)

    def _notice_given(self, cands: list[dict]) -> None:
        """The notice granted: a length after the notice word, else none at all (0), else the end date
        announced in the notifying document (months between notification and end)."""
        ev = self.ev
        if ev is None or not ev.notice:
            return
        immediate, agreed, words = _rx(ev.immediate), _rx(ev.agreed_words), _rx(ev.immediate_context)
        notice_rx = duration_after(expand(ev.notice_lead)) if ev.notice_lead else NOTHING
        found = False
        for c in cands:
            doc = c["doc"]
            live = _live_text(doc)
            for s, e in _sentences(doc):
                sent = live[s:e]
                if hypothetical(sent):
                    continue
                im = immediate.search(live, s, e)
                if im and ((s, e) == (c["s"], c["e"]) or words.search(sent)):
                    self._add(ev.notice, 0.0, 0.85, [_ground(doc, im.start(), im.end())])
                    found = True
                    continue
                for nm in notice_rx.finditer(live, s, e):
                    months = duration_months(nm.group(0))
                    if months is None or negated(live, s, e, nm.start(), nm.end()):
                        continue
                    if ev.agreed_words and agreed.search(sent):
                        if ev.agreed_notice:
                            self._add(ev.agreed_notice, months, 0.8, [_ground(doc, s, e)], "préavis contractuel cité")
                        continue
                    self._add(ev.notice, months, 0.9, [_ground(doc, nm.start(), nm.end())])
                    found = True
        first = cands[0]
        if not found and first["when"] is not None and ev.end_date:
            live = _live_text(first["doc"])
            for s, e in _sentences(first["doc"]):
                if s < first["s"]:
                    continue
                em = re.compile(
                    r"(?:" + expand(ev.end_date) + r")\s+(?P<date>" + DATE_TEXT + ")", re.IGNORECASE
                ).search(live, s, e)
                dm = DATE_RE.search(first["doc"].text, em.start("date"), em.end("date")) if em else None
                if em and dm and (end := parse_date(dm)) and end > first["when"]:
                    g = [_ground(first["doc"], em.start(), em.end())]
                    note = f"de la notification ({first['when'].isoformat()}) à la fin annoncée"
                    self._add(ev.notice, months_between(first["when"], end), 0.8, g, note)
                    break

    def _roles(self, first: dict) -> None:
        """Author = who made the event; recipient = the other party (or the lawyer's client)."""
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
        author_fact, victim_fact = self._party_fact("defence"), self._party_fact("claimant")
        if author is not None:
            author.role = "defendant"
            if author_fact:
                self.p.add(
                    Finding(
                        fact=author_fact,
                        value=author.name,
                        confidence=0.85,
                        grounding=author.grounding,
                        note="auteur de l'événement notifié",
                    )
                )
        if victim is not None and victim is not author:
            victim.role = "claimant"
            if victim_fact:
                self.p.add(
                    Finding(
                        fact=victim_fact,
                        value=victim.name,
                        confidence=0.85,
                        grounding=victim.grounding,
                        note="destinataire de l'événement notifié",
                    )
                )
            act, attribute = self._activity.get(victim.id), self._party_fact("claimant", "enum")
            if act and attribute:
                value, g = act
                self.p.add(Finding(fact=attribute, value=value, confidence=0.85, grounding=[g]))

    # --- a table's columns (order history) -----------------------------------------------------------------
    def _table(self) -> None:
        spec = self.st.table
        if spec is None:
            return
        for doc in self.docs:
            if doc.kind is not DocumentKind.ORDER_HISTORY:
                continue
            rows = _table_rows(doc)
            if len(rows) < 2:
                continue
            header = [name_key(c[0]) for c in rows[0]]

            def col(words: list[str], header: list[str] = header) -> int | None:
                return next((i for i, h in enumerate(header) if any(name_key(w) in h for w in words)), None)

            year_at = col(spec.year_column)
            if year_at is None:
                continue
            data = [r for r in rows[1:] if len(r) == len(rows[0]) and r[year_at][0].strip().isdigit()]
            before = self._event_date() if spec.complete_before else None
            full = [r for r in data if before is None or int(r[year_at][0]) < before.year]
            for cr in spec.columns:
                at = col(cr.column)
                if at is not None and data:
                    self._column(doc, cr, at, year_at, data, full, col(cr.per) if cr.per else None)

    def _column(
        self,
        doc: Document,
        cr: ColumnReading,
        at: int,
        year_at: int,
        data: list[list[tuple[str, int, int]]],
        full: list[list[tuple[str, int, int]]],
        per: int | None,
    ) -> None:
        if cr.reader in ("sum", "regular"):
            counts = [int(float(r[at][0])) for r in data]
            cells = [_ground(doc, *r[at][1:]) for r in data]
            if cr.reader == "sum":
                note = cr.note or f"somme {data[0][year_at][0]}–{data[-1][year_at][0]}"
                self.p.add(Finding(fact=cr.fact, value=sum(counts), confidence=0.95, grounding=cells, note=note))
                return
            inner = [int(float(r[at][0])) for r in full[1:]] or counts  # complete years after the first
            mean = sum(inner) / len(inner)
            spread = (max(inner) - min(inner)) / mean if mean else 1
            self.p.add(
                Finding(
                    fact=cr.fact,
                    value=bool(mean >= cr.min_mean and spread <= cr.max_spread),
                    confidence=0.8,
                    grounding=cells,
                    note=cr.note or f"{mean:.0f} par an en moyenne, écart relatif {spread:.0%}",
                )
            )
        elif cr.reader == "by_year" and full:
            amounts = {r[year_at][0].strip(): parse_number(r[at][0]) for r in full}
            self.p.add(
                Finding(
                    fact=cr.fact,
                    value={y: a for y, a in amounts.items() if a is not None},
                    confidence=0.95,
                    grounding=[_ground(doc, *r[at][1:], note=f"année {r[year_at][0]}") for r in full],
                    note=cr.note,
                )
            )
        elif cr.reader == "ratio" and per is not None and full:
            last = full[-cr.last :]
            den = sum(parse_number(r[per][0]) or 0 for r in last)
            num = sum(parse_number(r[at][0]) or 0 for r in last)
            if den:
                self.p.add(
                    Finding(
                        fact=cr.fact,
                        value=round(100 * num / den, 1),
                        confidence=0.7,
                        grounding=[_ground(doc, *r[c][1:]) for r in last for c in (per, at)],
                        note=cr.note,
                    )
                )

    # --- an acceptance answering several proposals ------------------------------------------------------------
    def _acceptance(self) -> None:
        spec = self.st.acceptance
        if spec is None:
            return
        accept = _rx(spec.accept)
        emails = [d for d in self.docs if d.kind is DocumentKind.EMAIL]
        for reply in emails:
            body_start = reply.text.find("\n\n")
            live = _live_text(reply)
            acc = accept.search(live, body_start)
            if not acc or len(re.findall(r"\w+", live[body_start:].split("\n\n\n")[0])) > spec.max_words:
                continue
            subject = re.sub(r"^(?:re|tr|fwd?)\s*:\s*", "", reply.metadata.get("subject", ""), flags=re.IGNORECASE)
            original = next(
                (d for d in emails if d is not reply and subject and d.metadata.get("subject", "") == subject), None
            )
            if original is None:
                continue
            proposals = [_rx(r.proposal).search(original.text) for r in spec.readings]
            if not all(proposals):
                continue
            said = reply.ground(acc.start(), acc.end())
            amb_id = new_id()
            term = self._termination_docs()
            term_g = [_ground(term[0][2], *_sentence(term[0][2], term[0][1].start(), term[0][1].end()))] if term else []
            readings = []
            for i, (r, pm) in enumerate(zip(spec.readings, proposals, strict=True)):
                assert pm is not None
                readings.append(
                    Finding(
                        fact=spec.fact,
                        value=r.value,
                        confidence=r.confidence,
                        world=World.NARRATIVE_A if i == 0 else World.NARRATIVE_B,
                        grounding=[said, _ground(original, *pm.span()), *(term_g if r.with_event else [])],
                        ambiguity=amb_id,
                        note=r.note,
                    )
                )
            self.p.ambiguities.append(Ambiguity(id=amb_id, statement=said, question=spec.question, readings=readings))
            self.p.findings = [f for f in self.p.findings if f.fact != spec.fact]
            for f in readings:
                self.p.add(f)


def _attribute(doc: Document, start: int, end: int, values: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    """The first value of an attribute (the party's activity) whose cue its description carries."""
    for value, cues in values.items():
        for cue in cues:
            m = re.compile(r"(?<!\w)" + re.escape(cue) + r"(?!\w)", re.IGNORECASE).search(doc.text, start, end)
            if m:
                return {"true": True, "false": False}.get(value, value), _ground(doc, m.start(), m.end())
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


def extract(docs: list[Document], pack: RulePack, calibrate: bool = True) -> Perception:
    """The structural readers (contract parties and clauses, tables, the dated event, e-mail threads), then the
    pack's per-fact reader (``extraction.yaml``) for every fact they did not find; events of the facts whose
    extraction names one (``event:``). Last, the pack's calibration turns the scores into confidences.
    Ids are drawn from the documents' digests (``stable_ids``): one dossier read twice gives the same state."""
    seed = hashlib.sha256("|".join([pack.name, *(f"{d.id}:{d.sha256}" for d in docs)]).encode()).hexdigest()
    with stable_ids(seed):
        perception = _read(docs, pack)
    calibration = load_calibration(pack.root, pack.manifest.files.calibration) if calibrate else None
    if calibration is not None:
        apply_calibration(perception.findings, calibration, {n: s.type.value for n, s in pack.facts.items()})
    return perception


def _read(docs: list[Document], pack: RulePack) -> Perception:
    spec, types = _spec(pack)
    perception = OfflineExtractor(docs, spec).run()
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
    _events(perception, spec)
    return perception


def _events(perception: Perception, spec: ExtractionSpec) -> None:
    """A dated event for each date read of a fact whose extraction names an event kind (once per kind and date)."""
    seen = {(e.kind, e.date) for e in perception.ontology.events}
    for f in perception.findings:
        fs = spec.facts.get(f.fact)
        if fs is None or fs.event is None or not isinstance(f.value, str):
            continue
        try:
            day = date.fromisoformat(f.value)
        except ValueError:
            continue
        key = (EventKind(fs.event), day)
        if key not in seen:
            seen.add(key)
            perception.ontology.events.append(
                Event(kind=key[0], date=day, description=fs.question, grounding=f.grounding)
            )


def _spec(rule_pack: RulePack) -> tuple[ExtractionSpec | None, dict[str, str]]:
    """The pack's extraction cues and its facts' types."""
    from lexlogic.logic.extraction import load_extraction

    return load_extraction(rule_pack.root), {n: s.type.value for n, s in rule_pack.facts.items()}
