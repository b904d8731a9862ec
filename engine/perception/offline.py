"""The offline, deterministic French extractor for rupture-brutale dossiers.

Reads the ingested documents and emits findings in the pack's fact vocabulary, each grounded on the
exact span(s) it was read from. Quoted lines of e-mails (« > … ») are ignored: they repeat another
message. An acceptance that could bear on several proposals (« C'est d'accord ») becomes an
ambiguity node with one reading per world.
"""
from __future__ import annotations

import re
import uuid
from datetime import date
from typing import Iterator

from engine.documents.model import Document, DocumentKind
from engine.ontology import Actor, Event, EventKind, Evidence, EvidenceKind, PersonKind, World
from engine.perception.french import (DATE_RE, DATE_TEXT, NOTICE_RE, duration_months, fold, parse_amount,
                                      parse_date)
from engine.perception.model import Ambiguity, Finding, Perception, build_graph

SPECIALISED_COURTS = ("marseille", "bordeaux", "lille", "tourcoing", "fort-de-france", "lyon", "nancy",
                      "paris", "rennes")
TERMINATION_RE = re.compile(
    r"mettre\s+fin\s+à\s+(?:nos|notre|la|les)\s+relations?(?:\s+commerciales?)?|déréférencement|"
    r"cesser\s+(?:nos|toute)\s+relations?|rompre\s+(?:nos|notre)\s+relations?|résiliation\s+du\s+contrat",
    re.IGNORECASE)
FAULT_RE = re.compile(r"retards?\s+de\s+livraison[^.\n]*|manquements?\s+(?:graves?|répétés)[^.\n]*|"
                      r"factures?\s+impayées?[^.\n]*|non-conformités?[^.\n]*", re.IGNORECASE)
ACCEPT_RE = re.compile(r"c'est\s+d'accord|\bd'accord\b|\bok\s+pour\s+moi\b|\bbien\s+d'accord\b", re.IGNORECASE)
PRICE_RE = re.compile(r"[^.\n]*(?:baisse|hausse|révision)\s+(?:de\s+)?(?:vos|des|nos)\s+(?:tarifs|prix)[^.]*\.",
                      re.IGNORECASE)
EXIT_RE = re.compile(r"[^.]*(?:sortie\s+progressive|fin\s+de\s+notre\s+collaboration|arrêt\s+(?:de\s+)?"
                     r"(?:nos|notre)\s+(?:relations?|collaboration)|déréférencement)[^.]*\.", re.IGNORECASE)

EVIDENCE_OF = {DocumentKind.CONTRACT: EvidenceKind.CONTRACT, DocumentKind.EMAIL: EvidenceKind.EMAIL,
               DocumentKind.LETTER: EvidenceKind.LETTER, DocumentKind.INVOICE: EvidenceKind.INVOICE,
               DocumentKind.ORDER_HISTORY: EvidenceKind.ORDER_HISTORY,
               DocumentKind.FORMAL_NOTICE: EvidenceKind.FORMAL_NOTICE}


def _live_text(doc: Document) -> str:
    """The text with quoted e-mail lines blanked (same length, so offsets stay valid)."""
    if doc.kind is not DocumentKind.EMAIL:
        return doc.text
    head = doc.text.find("\n\n")  # header block: read through metadata, not as prose
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
    """The date a document was sent: e-mail Date header, else « <ville>, le <date> » in a letter."""
    if doc.kind is DocumentKind.EMAIL and doc.metadata.get("date_iso"):
        m = re.search(r"(?m)^Date: (.*)$", doc.text)
        if m:
            return date.fromisoformat(doc.metadata["date_iso"]), (m.start(1), m.end(1))
    m = _first(doc, r"^\s*[A-ZÉ][\w' -]+,\s+le\s+(" + DATE_TEXT + ")")
    if m is None:
        m = _first(doc, r"(?m)^[A-ZÉ][\w' -]+,\s+le\s+(\d.*\d{4})")
    if m:
        dm = DATE_RE.search(doc.text, m.start(1), m.end(1))
        if dm and (d := parse_date(dm)):
            return d, (dm.start(), dm.end())
    return None


class OfflineExtractor:
    """Deterministic rules; each ``_x`` method reads one family of facts."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs
        self.p = Perception()
        self.parties: dict[str, Actor] = {}  # role word (Fournisseur, Distributeur) → actor
        self._desc: dict[str, tuple[Document, int, int]] = {}  # actor id → span of its description
        self._activity: dict[str, tuple] = {}  # actor id → (activity value, grounding)

    def run(self) -> Perception:
        for doc in self.docs:
            kind = EVIDENCE_OF.get(doc.kind, EvidenceKind.NOTE if doc.kind is DocumentKind.OTHER else EvidenceKind.OTHER)
            dd = _doc_date(doc)
            self.p.ontology.evidence.append(Evidence(kind=kind, document_id=doc.id, title=doc.title or doc.id,
                                                     date=dd[0] if dd else None, sha256=doc.sha256))
        for step in (self._parties, self._contract_terms, self._orders, self._termination, self._faults,
                     self._procedure, self._investments, self._ambiguities):
            step()
        build_graph(self.p)
        return self.p

    # --- parties --------------------------------------------------------------------------------------
    def _parties(self) -> None:
        rx = re.compile(r"La\s+société\s+(?P<name>[^,\n]+?),\s*(?P<desc>.*?)ci-après\s+dénommée\s+"
                        r"«\s*(?:le|la)\s+(?P<role>[\wé]+)\s*»", re.DOTALL)
        for doc in self.docs:
            if doc.kind is not DocumentKind.CONTRACT:
                continue
            for m in rx.finditer(doc.text):
                desc = m.group("desc")
                seat = re.search(r"siège\s+social\s+est\s+situé\s+(.*?\d{5}\s+[A-ZÉ][\w-]+)", desc, re.DOTALL)
                status = "SAS" if "actions simplifiée" in desc else "SA" if "société anonyme" in desc else \
                    "SARL" if "responsabilité limitée" in desc else None
                actor = Actor(name=m.group("name").strip(), kind=PersonKind.LEGAL, role=m.group("role").lower(),
                              seat=" ".join(seat.group(1).split()) if seat else None, status=status,
                              grounding=[_ground(doc, m.start("name"), m.end("name"))])
                self._desc[actor.id] = (doc, m.start("desc"), m.end("desc"))
                self.parties[actor.role or actor.name] = actor
                self.p.ontology.actors.append(actor)

    def _author_and_victim(self) -> tuple[Actor | None, Actor | None, Document | None]:
        """The author of the rupture is the sender of the earliest termination notice."""
        notices = self._termination_docs()
        if not notices or len(self.parties) < 2:
            return None, None, None
        doc = notices[0][2]
        sender = doc.metadata.get("from", "") if doc.kind is DocumentKind.EMAIL else doc.text[:200]
        sender_f = fold(sender)
        author = next((a for a in self.parties.values() if fold(a.name) and
                       (fold(a.name) in sender_f or fold(a.name)[:10] in sender_f)), None)
        if author is None:
            return None, None, doc
        victim = next(a for a in self.parties.values() if a is not author)
        return author, victim, doc

    # --- contract terms ---------------------------------------------------------------------------------
    def _contract_terms(self) -> None:
        for doc in self.docs:
            if doc.kind is not DocumentKind.CONTRACT:
                continue
            if m := _first(doc, r"contrat[- ]cadre"):
                self.p.add(Finding(fact="framework_contract", value=True, confidence=0.95,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            if m := _first(doc, r"[^.\n]*tacite\s+reconduction[^.\n]*"):
                self.p.add(Finding(fact="successive_contracts", value=True, confidence=0.7,
                                   grounding=[_ground(doc, m.start(), m.end())],
                                   note="contrat d'un an renouvelé par tacite reconduction"))
            if m := _first(doc, r"aucun\s+(?:engagement\s+de\s+)?volume\s+minimum|sans\s+volume\s+minimum"):
                self.p.add(Finding(fact="minimum_volume", value=False, confidence=0.9,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            elif m := _first(doc, r"volume\s+minimum\s+(?:garanti|annuel|de)[^.\n]*"):
                self.p.add(Finding(fact="minimum_volume", value=True, confidence=0.85,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            if m := _first(doc, r"n'est\s+pas\s+exclusif|non\s+exclusi\w*|absence\s+d'exclusivité"):
                self.p.add(Finding(fact="exclusivity", value=False, confidence=0.9,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            elif m := _first(doc, r"(?:à\s+titre\s+exclusif|exclusivité)[^.\n]*"):
                self.p.add(Finding(fact="exclusivity", value=True, confidence=0.85,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            if m := _first(doc, r"marque\s+de\s+distributeur|\bMDD\b"):
                self.p.add(Finding(fact="private_label", value=True, confidence=0.9,
                                   grounding=[_ground(doc, m.start(), m.end())]))
            if m := _first(doc, NOTICE_RE):
                months = duration_months(m.group(0))
                if months is not None:
                    self.p.add(Finding(fact="contractual_notice_months", value=months, confidence=0.9,
                                       grounding=[_ground(doc, m.start(), m.end())]))
            start = _first(doc, r"prend\s+effet\s+le\s+(" + DATE_TEXT + ")") or \
                _first(doc, r"Fait\s+à\s+[\w-]+,\s+le\s+(" + DATE_TEXT + ")")
            if start:
                dm = DATE_RE.search(doc.text, start.start(1), start.end(1))
                if dm and (d := parse_date(dm)):
                    self.p.add(Finding(fact="relation_start", value=d.isoformat(), confidence=0.9,
                                       grounding=[_ground(doc, start.start(), start.end())]))
                    self.p.ontology.events.append(Event(kind=EventKind.SIGNATURE, date=d,
                                                        description="prise d'effet du contrat",
                                                        grounding=[_ground(doc, start.start(), start.end())]))
            arb = _first(doc, r"[^.\n]*(?:clause\s+compromissoire|arbitrage|arbitral)[^.\n]*")
            if arb:
                self.p.add(Finding(fact="arbitration_clause", value=True, confidence=0.9,
                                   grounding=[_ground(doc, arb.start(), arb.end())]))
            else:
                jur = _first(doc, r"[^.]*soumis\s+au\s+tribunal[^.]*")
                if jur:
                    self.p.add(Finding(fact="arbitration_clause", value=False, confidence=0.85,
                                       grounding=[_ground(doc, jur.start(), jur.end())],
                                       note="clause attributive de juridiction, aucune clause compromissoire"))
            for actor in self.parties.values():
                d_doc, s, e = self._desc.get(actor.id, (None, 0, 0))
                if d_doc is not doc:
                    continue
                if (found := _activity(doc, s, e)) is not None:
                    self._activity[actor.id] = found

    # --- order history ------------------------------------------------------------------------------------
    def _orders(self) -> None:
        for doc in self.docs:
            if doc.kind is not DocumentKind.ORDER_HISTORY:
                continue
            rows = _table_rows(doc)
            if len(rows) < 2:
                continue
            header = [fold(c[0]) for c in rows[0]]
            col = {k: next((i for i, h in enumerate(header) if any(w in h for w in words)), None)
                   for k, words in {"year": ("annee", "exercice"), "orders": ("commande",),
                                    "turnover": ("chiffre", "ca"), "margin": ("marge",)}.items()}
            if col["year"] is None:
                continue
            data = [r for r in rows[1:] if len(r) == len(rows[0]) and r[col["year"]][0].strip().isdigit()]
            notif = self._notification_date()
            full = [r for r in data if notif is None or int(r[col["year"]][0]) < notif.year]
            if col["orders"] is not None and data:
                counts = [int(float(r[col["orders"]][0])) for r in data]
                cells = [_ground(doc, *r[col["orders"]][1:]) for r in data]
                self.p.add(Finding(fact="orders_count", value=sum(counts), confidence=0.95, grounding=cells,
                                   note=f"somme des commandes {data[0][col['year']][0]}–{data[-1][col['year']][0]}"))
                inner = [int(float(r[col["orders"]][0])) for r in full[1:]] or counts
                mean = sum(inner) / len(inner)
                spread = (max(inner) - min(inner)) / mean if mean else 1
                self.p.add(Finding(fact="regular_orders", value=bool(mean >= 12 and spread <= 0.5),
                                   confidence=0.8, grounding=cells,
                                   note=f"{mean:.0f} commandes/an en moyenne, écart relatif {spread:.0%}"))
            for key, fact in (("turnover", "annual_turnover"), ("margin", "annual_gross_margin")):
                if col[key] is None or not full:
                    continue
                amounts = {r[col["year"]][0].strip(): parse_amount(r[col[key]][0]) for r in full}
                self.p.add(Finding(fact=fact, value={y: a for y, a in amounts.items() if a is not None},
                                   confidence=0.95,
                                   grounding=[_ground(doc, *r[col[key]][1:], note=f"année {r[col['year']][0]}")
                                              for r in full],
                                   note="années complètes avant la notification de la rupture"))
            if col["turnover"] is not None and col["margin"] is not None and full:
                last = full[-3:]
                ca = sum(parse_amount(r[col["turnover"]][0]) or 0 for r in last)
                mg = sum(parse_amount(r[col["margin"]][0]) or 0 for r in last)
                if ca:
                    self.p.add(Finding(fact="margin_rate_pct", value=round(100 * mg / ca, 1), confidence=0.7,
                                       grounding=[_ground(doc, *r[c][1:]) for r in last
                                                  for c in (col["turnover"], col["margin"])],
                                       note="marge brute / CA HT des 3 dernières années complètes "
                                            "(à confirmer par les comptes)"))

    # --- termination ----------------------------------------------------------------------------------------
    def _termination_docs(self) -> list[tuple[date, re.Match[str], Document]]:
        out = []
        for doc in self.docs:
            if doc.kind not in (DocumentKind.EMAIL, DocumentKind.LETTER, DocumentKind.OTHER) or \
                    doc.kind is DocumentKind.OTHER and not doc.media_type.startswith("application/pdf"):
                continue
            m = _first(doc, TERMINATION_RE)
            dd = _doc_date(doc)
            if m and dd:
                out.append((dd[0], m, doc))
        return sorted(out, key=lambda t: t[0])

    def _notification_date(self) -> date | None:
        docs = self._termination_docs()
        return docs[0][0] if docs else None

    def _termination(self) -> None:
        notices = self._termination_docs()
        if not notices:
            return
        when, m, doc = notices[0]
        dd = _doc_date(doc)
        assert dd is not None
        sentence = _sentence(doc, m.start(), m.end())
        self.p.add(Finding(fact="notification_date", value=when.isoformat(), confidence=0.9,
                           grounding=[_ground(doc, *dd[1]), _ground(doc, *sentence)]))
        for later_when, later_m, later in notices[1:]:
            ref = _first(later, r"notifiée\s+par\s+(?:courriel|lettre|e-mail)\s+du\s+(" + DATE_TEXT + ")")
            if ref:
                self.p.add(Finding(fact="notification_date", value=when.isoformat(), confidence=0.9,
                                   grounding=[_ground(later, ref.start(), ref.end())]))
        oral = _first(doc, r"oralement|verbalement|par\s+téléphone|lors\s+d'un\s+entretien")
        written = doc.kind in (DocumentKind.EMAIL, DocumentKind.LETTER) or doc.media_type == "application/pdf"
        self.p.add(Finding(fact="notice_written", value=bool(written and not oral), confidence=0.9,
                           grounding=[_ground(doc, *(oral.span() if oral else sentence))],
                           note="notification par courriel (écrit)" if doc.kind is DocumentKind.EMAIL else None))
        for _, _, d in notices:
            nm = _first(d, NOTICE_RE)
            if nm and (months := duration_months(nm.group(0))) is not None:
                self.p.add(Finding(fact="notice_given_months", value=months, confidence=0.9,
                                   grounding=[_ground(d, nm.start(), nm.end())]))
        if _first(doc, r"l'ensemble\s+de\s+vos\s+(?:produits|références)|mettre\s+fin\s+à\s+nos\s+relations"):
            self.p.add(Finding(fact="rupture_kind", value="total", confidence=0.9,
                               grounding=[_ground(doc, *sentence)]))
        elif dm := _first(doc, r"réduire\s+(?:nos|les)\s+commandes\s+de\s+(\d+)\s*%"):
            self.p.add(Finding(fact="rupture_kind", value="partial_volume", confidence=0.85,
                               grounding=[_ground(doc, dm.start(), dm.end())]))
            self.p.add(Finding(fact="volume_drop_pct", value=float(dm.group(1)), confidence=0.85,
                               grounding=[_ground(doc, dm.start(), dm.end())]))
        self.p.ontology.events.append(Event(kind=EventKind.NOTIFICATION, date=when, description="notification de la rupture",
                                            grounding=[_ground(doc, *sentence)]))
        author, victim, _ = self._author_and_victim()
        if author and victim:
            author.role, victim.role = "defendant", "claimant"
            self.p.add(Finding(fact="claimant_name", value=victim.name, confidence=0.85, grounding=victim.grounding,
                               note="destinataire de la notification de rupture"))
            self.p.add(Finding(fact="defendant_name", value=author.name, confidence=0.85, grounding=author.grounding,
                               note="expéditeur de la notification de rupture"))
            act = self._activity.get(victim.id)
            if act:
                value, g = act
                self.p.add(Finding(fact="claimant_activity", value=value, confidence=0.85, grounding=[g]))

    # --- faults and formal notices -------------------------------------------------------------------------
    def _faults(self) -> None:
        notif = self._notification_date()
        for _, _, doc in self._termination_docs():
            if m := _first(doc, FAULT_RE):
                self.p.add(Finding(fact="fault_alleged", value=True, confidence=0.9,
                                   grounding=[_ground(doc, m.start(), m.end())]))
                break
        for doc in self.docs:
            m = _first(doc, r"(?:nous\s+)?vous\s+mettons\s+en\s+demeure[^.]*")
            if not m:
                continue
            dd = _doc_date(doc)
            if notif and dd and dd[0] > notif:
                continue
            self.p.add(Finding(fact="formal_notice_sent", value=True, confidence=0.9,
                               grounding=[_ground(doc, m.start(), m.end())]))
            if f := _first(doc, FAULT_RE):
                self.p.add(Finding(fact="fault_alleged", value=True, confidence=0.9,
                                   grounding=[_ground(doc, f.start(), f.end())]))
            self.p.ontology.events.append(Event(kind=EventKind.FORMAL_NOTICE, date=dd[0] if dd else None,
                                                description="mise en demeure",
                                                grounding=[_ground(doc, m.start(), m.end())]))

    # --- procedure ------------------------------------------------------------------------------------------
    def _procedure(self) -> None:
        for doc in self.docs:
            m = _first(doc, r"assignation\s+a\s+été\s+délivrée\s+le\s+(" + DATE_TEXT + ")|"
                            r"(?:a\s+)?saisi\s+le\s+tribunal[^.]*?le\s+(" + DATE_TEXT + ")")
            if m:
                dm = DATE_RE.search(doc.text, m.start(), m.end())
                if dm and (d := parse_date(dm)):
                    self.p.add(Finding(fact="claim_date", value=d.isoformat(), confidence=0.9,
                                       grounding=[_ground(doc, m.start(), m.end())]))
                    self.p.ontology.events.append(Event(kind=EventKind.CLAIM, date=d, description="assignation",
                                                        grounding=[_ground(doc, m.start(), m.end())]))
                court = re.compile(r"devant\s+le\s+tribunal\s+(?:de\s+commerce|judiciaire|des\s+activités\s+"
                                   r"économiques)\s+d[e']\s*(?P<city>[A-ZÉ][\w-]+)").search(doc.text, m.start())
                if court:
                    city = court.group("city").lower()
                    self.p.add(Finding(fact="court_specialised", value=city in SPECIALISED_COURTS, confidence=0.9,
                                       grounding=[_ground(doc, court.start(), court.end())],
                                       note="art. D.442-2 C. com. (annexe 4-2-1)"))

    def _investments(self) -> None:
        for doc in self.docs:
            if m := _first(doc, r"investi[^.]{0,120}?dédiée?s?\s+aux?\s+[^.]*"):
                self.p.add(Finding(fact="dedicated_investments", value=True, confidence=0.8,
                                   grounding=[_ground(doc, m.start(), m.end())]))

    # --- ambiguity ------------------------------------------------------------------------------------------
    def _ambiguities(self) -> None:
        emails = [d for d in self.docs if d.kind is DocumentKind.EMAIL]
        for reply in emails:
            body_start = reply.text.find("\n\n")
            live = _live_text(reply)
            acc = ACCEPT_RE.search(live, body_start)
            if not acc or len(re.findall(r"\w+", live[body_start:].split("\n\n\n")[0])) > 60:
                continue
            subject = re.sub(r"^(?:re|tr|fwd?)\s*:\s*", "", reply.metadata.get("subject", ""), flags=re.I)
            original = next((d for d in emails if d is not reply and subject and
                             d.metadata.get("subject", "") == subject), None)
            if original is None:
                continue
            price, exit_ = PRICE_RE.search(original.text), EXIT_RE.search(original.text)
            if not (price and exit_):
                continue
            said = reply.ground(acc.start(), acc.end())
            amb_id = str(uuid.uuid4())
            term = self._termination_docs()
            term_g = [_ground(term[0][2], *_sentence(term[0][2], term[0][1].start(), term[0][1].end()))] if term else []
            a = Finding(fact="rupture_kind", value="total", confidence=0.6, world=World.NARRATIVE_A,
                        grounding=[said, _ground(original, *price.span()), *term_g], ambiguity=amb_id,
                        note="« C'est d'accord » porte sur la baisse de prix : la rupture reste le fait du distributeur")
            b = Finding(fact="rupture_kind", value="none", confidence=0.4, world=World.NARRATIVE_B,
                        grounding=[said, _ground(original, *exit_.span())], ambiguity=amb_id,
                        note="« C'est d'accord » vaut accord de principe sur la sortie : fin d'un commun accord")
            self.p.ambiguities.append(Ambiguity(id=amb_id, statement=said, readings=[a, b],
                                                question="L'accord donné portait-il seulement sur le prix, "
                                                         "ou aussi sur la sortie progressive des références ?"))
            self.p.findings = [f for f in self.p.findings if f.fact != "rupture_kind"]
            self.p.add(a)
            self.p.add(b)


def _activity(doc: Document, start: int, end: int):  # type: ignore[no-untyped-def]
    table = (("production", r"fabricant|fabrique|producteur|production|industriel"),
             ("commercial_agent", r"agent\s+commercial"),
             ("distribution", r"distributeur|grossiste|supermarchés|négociant"),
             ("services", r"prestataire|services"))
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
                    cells.append((line[s - pos:e - pos], s, e))
                cpos += len(raw) + 1
            rows.append(cells)
        pos += len(line) + 1
    return rows


def extract(docs: list[Document]) -> Perception:
    return OfflineExtractor(docs).run()
