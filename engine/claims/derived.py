"""Facts no single sentence states but the documents' values give: sums, averages, ratios over a table,
durations between two dated events, the delay of a reply.

Every derived value keeps the passages it was computed from (their ids), so a verdict built on it is
still grounded. Nothing here guesses: a period the table does not cover, or an event the dossier does
not date, gives no value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lexlogic.engine.claims import facets as fx
from lexlogic.engine.claims.models import Memory
from lexlogic.engine.claims.normalise import normalise
from lexlogic.engine.claims.quantities import Quantity, event_of_date, lexicon, quantities
from lexlogic.engine.documents.model import Document
from lexlogic.engine.text.fold import fold
from lexlogic.engine.text.terms import search_terms


@dataclass
class Column:
    kind: str  # count | amount
    role: str
    values: dict[int, float]  # year -> value
    tax: str = ""


@dataclass
class Derived:
    value: float
    how: str  # human explanation, French
    sources: list[str] = field(default_factory=list)  # passage ids


@dataclass
class DossierFacts:
    columns: list[Column] = field(default_factory=list)
    table_source: str = ""
    events: dict[str, list[tuple[float, str]]] = field(default_factory=dict)  # event -> [(ordinal, passage id)]
    replies: list[tuple[float, str]] = field(default_factory=list)  # (days, passage id)
    doc_text: dict[str, str] = field(default_factory=dict)  # document id -> folded text (parties, names)
    idf: dict[str, float] = field(default_factory=dict)  # stem (6 letters) -> inverse passage frequency
    max_idf: float = 1.0
    parties: frozenset[str] = frozenset()  # names the documents use as parties (for the acting party)
    passages: dict[str, Memory] = field(default_factory=dict)
    statements: dict[str, str] = field(default_factory=dict)  # date passage id -> passage stating the event
    _dated_cache: dict[str, list[tuple[float, str]]] = field(default_factory=dict, repr=False)
    parties_read: Any = field(default=None, repr=False, compare=False)  # ``judge_reading._who``'s, kept here

    # --- construction ------------------------------------------------------------------------------
    @classmethod
    def of(cls, documents: Sequence[Document], memories: Sequence[Memory]) -> DossierFacts:
        out = cls()
        for m in memories:
            if m.grounding.note == "table" and not out.columns:
                out._read_table(m)
        by_doc: dict[str, list[Memory]] = {}
        for m in memories:
            by_doc.setdefault(m.document_id, []).append(m)
        for ms in by_doc.values():
            out._read_events(ms)
        out._read_replies(documents, by_doc)
        out.doc_text = {d.id: fold(d.text) for d in documents}
        out.passages = {m.id: m for m in memories}
        df: Counter[str] = Counter()
        for m in memories:
            df.update({t[:6] for t in search_terms(normalise(m.text))})
        n = max(len(memories), 1)
        out.idf = {t: math.log((n + 1) / (c + 0.5)) for t, c in df.items()}
        out.max_idf = math.log((n + 1) / 0.5)
        parties: set[str] = set()
        for d in documents:
            parties |= fx.read(d.text[:4000]).parties
        out.parties = frozenset(p for p in parties if len(p) > 2)
        return out

    def _read_table(self, m: Memory) -> None:
        lines = [ln for ln in f"{m.context}\n{m.text}".splitlines() if ln.strip()]
        header = lines[0]
        sep = ";" if header.count(";") >= header.count(",") else ","
        names = [fold(h) for h in header.split(sep)]
        rows = [ln.split(sep) for ln in lines[1:] if ln.split(sep)[0].strip().isdigit()]
        if not rows:
            return
        for j, name in enumerate(names[1:], start=1):
            kind = "count" if any(c in name for c in ("nombre", "nb ", "quantite")) else "amount"
            role = next((r for r, cues in lexicon()[kind].items() if any(c in name for c in cues)), "")
            vals = {}
            for r in rows:
                try:
                    vals[int(r[0])] = float(r[j].replace(" ", "").replace(",", "."))
                except (ValueError, IndexError):
                    continue
            self.columns.append(Column(kind, role, vals, "ht" if " ht" in f" {name} " else ""))
        self.table_source = m.id

    def _read_events(self, ms: list[Memory]) -> None:
        """Dates of events: a date takes the event named nearest to it; an e-mail's Date header (or a
        letter's "Ville, le …" line) takes the events of its subject line."""
        subject_events: set[str] = set()
        header_dates: list[tuple[float, str]] = []
        first_events: set[str] = set()
        first_pid = ""
        for m in ms:
            f = fold(normalise(m.text))
            if header_dates and not first_events and not f.startswith(("subject:", "objet", "date:")):
                hits = [(f.find(c), e) for e, cues in lexicon()["event"].items() for c in cues if c in f]
                first_events = {min(hits)[1]} if hits else set()
                first_pid = m.id if hits else ""
            if f.startswith(("subject:", "objet")):
                hits = [(f.find(c), e) for e, cues in lexicon()["event"].items() for c in cues if c in f]
                subject_events |= {min(hits)[1]} if hits else set()
            qs = [q for q in quantities(m.text) if q.kind == "date" and q.precision == "day"]
            if not qs:
                continue
            if f.startswith("date:") or re.match(r"^[a-z' -]+, le \d", f):
                header_dates.append((qs[0].value, m.id))
                continue
            for q in qs:
                ev = event_of_date(f, q)
                if ev:
                    self.events.setdefault(ev, []).append((q.value, m.id))
        for d, pid in header_dates[:1]:  # the document's own date, under "doc:<its act>" and "doc:"
            for ev in (subject_events or first_events) | {""}:
                self.events.setdefault(f"doc:{ev}", []).append((d, pid))
        for ev in subject_events or first_events:
            for d, pid in header_dates[:1]:
                self.events.setdefault(ev, []).append((d, pid))
                if first_pid and not subject_events:
                    self.statements[pid] = first_pid

    def _read_replies(self, documents: Sequence[Document], by_doc: dict[str, list[Memory]]) -> None:
        """A reply is an e-mail whose subject is "Re: <subject of another dated e-mail>"."""
        dated: dict[str, tuple[float, str]] = {}  # subject -> (date, passage id)
        replies: list[tuple[str, float, str]] = []
        for doc in documents:
            ms = by_doc.get(doc.id, [])
            d = self._header_date(ms)
            subj = next((m.text.split(":", 1)[1].strip() for m in ms if m.text.lower().startswith("subject:")), None)
            if d is None or subj is None:
                continue
            m = re.match(r"(?i)(?:re|tr|fwd?)\s*:\s*(.+)", subj)
            if m:
                replies.append((m.group(1).strip(), d[0], d[1]))
            else:
                dated[subj] = (d[0], d[1])
        for subj, when, pid in replies:
            if subj in dated:
                self.replies.append((when - dated[subj][0], pid))

    @staticmethod
    def _header_date(ms: list[Memory]) -> tuple[float, str, str] | None:
        for m in ms:
            if m.text.lower().startswith("date:"):
                qs = [q for q in quantities(m.text) if q.kind == "date"]
                if qs:
                    return (qs[0].value, m.id, "")
        return None

    def passages_for(self, claim: str) -> list[str]:
        """Passages a derivation for ``claim`` would read: dates of the events it names, the table."""
        f = fold(normalise(claim))
        named = sorted(
            (min(f.find(c) for c in cues if c in f), ev)
            for ev, cues in lexicon()["event"].items()
            if any(c in f for c in cues)
        )
        out: list[str] = []
        for _, ev in named:  # the earliest sentence stating the act, and the earliest document dated by it
            dated = self._dated(ev)
            heads = [pid for _, pid in dated if self._is_header(pid)]
            out.extend([pid for _, pid in dated if not self._is_header(pid)][:1] + heads[:1])
        if re.search(r"depuis|relation|ensemble|anciennete|durant", f):
            out.extend(pid for _, pid in self._dated("contract_start")[:1])
            out.extend(pid for _, pid in self._dated("termination_notice")[:1])
        if re.search(r"repon|repond", f):
            out.extend(pid for _, pid in self.replies)
        if self.table_source and any(c in f for col in self.columns for c in lexicon()[col.kind].get(col.role, [])):
            out.insert(0, self.table_source)
        return list(dict.fromkeys(out))

    # --- derivations ------------------------------------------------------------------------------
    def column(self, kind: str, role: str) -> Column | None:
        for c in self.columns:
            if c.role == role and (c.kind == kind or kind == "percent"):
                return c
        return None

    def _dated(self, event: str) -> list[tuple[float, str]]:
        """The dates of an act, stated in a sentence ("le 15 mars, X a annoncé") or as the date of the
        document that does it ("par courriel du 15 mars"), earliest first; sentences before headers."""
        hit = self._dated_cache.get(event)
        if hit is None:
            hit = self._dated_cache[event] = self._sort_dated(event)
        return hit

    def _sort_dated(self, event: str) -> list[tuple[float, str]]:
        said = sorted(self.events.get(event, []) + self.events.get(f"doc:{event}", []))
        return sorted(
            said,
            key=lambda t: (
                t[0] // 1,
                self.passages[t[1]].text.lower().startswith("date:") if t[1] in self.passages else False,
            ),
        )

    def _is_header(self, pid: str) -> bool:
        m = self.passages.get(pid)
        return m is not None and (m.text.lower().startswith("date:") or bool(re.match(r"^[\w' -]+, le \d", m.text)))

    def first(self, event: str) -> tuple[float, str] | None:
        vals = self._dated(event)
        return vals[0] if vals else None

    def table_value(self, q: Quantity, claim: str) -> Derived | None:
        """A claim's count or amount over the table's years: one year, a sum, an average, a ratio."""
        f = fold(normalise(claim))
        years = [int(y) for y in re.findall(r"\b(19[5-9]\d|20[0-4]\d)\b", f)]
        src = [self.table_source]
        if q.kind == "percent" and "marge" in f and ("chiffre" in f or "ventes" in f):
            margin, revenue = self.column("amount", "margin"), self.column("amount", "revenue")
            if margin and revenue and len(years) == 1 and years[0] in margin.values and years[0] in revenue.values:
                y = years[0]
                return Derived(100 * margin.values[y] / revenue.values[y], f"marge/CA {y}", src)
            return None
        if q.kind not in ("count", "amount"):
            return None
        col = self.column(q.kind, q.role)
        if col is None or not col.values:
            return None
        all_years = sorted(col.values)
        complete = self._complete_years(all_years)
        m = re.search(r"(\d+) (?:derniers?|dernieres?) (?:exercices?|annees?|ans)", f)
        if re.search(r"\bmoyen", f):
            pool = (
                complete[-int(m.group(1)) :]
                if m
                else ([y for y in all_years if years and years[0] <= y <= years[-1]] or complete)
            )
            if not pool:
                return None
            return Derived(sum(col.values[y] for y in pool) / len(pool), f"moyenne {pool[0]}-{pool[-1]}", src)
        if re.search(r"au total|en tout|l'ensemble de la relation|sur l'ensemble|cumul|depuis le debut|total", f) or (
            not years and re.search(r"\bdepuis\b|relation", f)
        ):
            if len(years) == 2:
                pool = [y for y in all_years if years[0] <= y <= years[1]]
            else:
                pool = all_years
            return Derived(sum(col.values[y] for y in pool), f"somme {pool[0]}-{pool[-1]}", src)
        if m:
            pool = complete[-int(m.group(1)) :]
            return Derived(sum(col.values[y] for y in pool), f"somme {pool[0]}-{pool[-1]}", src)
        if len(years) == 1 and years[0] in col.values:
            return Derived(col.values[years[0]], f"année {years[0]}", src)
        return None

    def trend(self, claim: str, role: str) -> tuple[bool, str] | None:
        """ "a plus que doublé entre Y1 et Y2", "a augmenté", "a baissé": checked on the table's column."""
        f = fold(normalise(claim))
        years = [int(y) for y in re.findall(r"\b(19[5-9]\d|20[0-4]\d)\b", f)]
        col = self.column("amount", role) or self.column("count", role)
        if col is None or len(years) != 2 or not all(y in col.values for y in years):
            return None
        a, b = col.values[years[0]], col.values[years[1]]
        ratio = b / a if a else float("inf")
        how = f"{years[0]} : {a:g} → {years[1]} : {b:g} (×{ratio:.2f})"
        if re.search(r"plus que double|plus du double", f):
            return ratio > 2, how
        if re.search(r"\bdouble", f):
            return abs(ratio - 2) < 0.1 or ratio > 2, how
        if re.search(r"tripl", f):
            return ratio >= 3, how
        if re.search(r"augment|hausse|progress|cru\b|croissan", f):
            return ratio > 1, how
        if re.search(r"baiss|diminu|recul|chute|decru", f):
            return ratio < 1, how
        return None

    def _complete_years(self, years: list[int]) -> list[int]:
        """The table's last year is partial when its count (or first column) is under 3/4 of the median."""
        col = self.column("count", "orders") or (self.columns[0] if self.columns else None)
        if col is None or len(years) < 3:
            return years
        vals = sorted(col.values[y] for y in years[:-1])
        return years[:-1] if col.values[years[-1]] < 0.75 * vals[len(vals) // 2] else years

    def duration(self, q: Quantity, claim: str) -> Derived | None:
        """A duration the claim states, computed from the dossier's dates of the events it names."""
        f = fold(normalise(claim))
        if q.role == "reply" or re.search(r"repon|repond", f):
            if self.replies:
                days, pid = self.replies[0]
                return Derived(days, "délai entre le courriel et sa réponse", [pid])
            return None
        named = []
        for ev, cues in lexicon()["event"].items():
            pos = [f.find(c) for c in cues if c in f]
            if pos:
                named.append((min(pos), ev))
        named.sort()
        if q.role == "relation":
            start = self.first("contract_start")
            end_ev = next((ev for _, ev in named if ev not in ("contract_start",)), "termination_notice")
            end = self.first(end_ev) or self.first("termination_notice")
            if start and end:
                return Derived(end[0] - start[0], f"du {_d(start[0])} au {_d(end[0])}", [start[1], end[1]])
            return None
        evs = [ev for _, ev in named if self.first(ev)]
        if len(evs) >= 2 and q.role in ("interval", "", "lateness"):
            a, b = self.first(evs[0]), self.first(evs[1])
            assert a and b
            lo, hi = sorted([a, b])
            return Derived(hi[0] - lo[0], f"du {_d(lo[0])} au {_d(hi[0])}", [lo[1], hi[1]])
        return None


def _d(ordinal: float) -> str:
    return date.fromordinal(int(ordinal)).strftime("%d/%m/%Y")
