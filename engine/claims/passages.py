"""Sentence-level passages of a dossier, each with its neighbours (what the judge reads around it).

Issue 10 indexed whole chunks: a short letter was one memory, so a sentence deep inside it competed
with everything else in the letter. Here every sentence (and every header line of an e-mail, every
article line of a contract) is a passage; a line wrapped by a PDF or OCR is joined back first. A table
(CSV) stays ONE passage (its rows are read together for counts and sums) unless it is long.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lexlogic.engine.claims.models import Memory
from lexlogic.engine.documents.model import Document

_END = re.compile(r"[.!?:;»)]\s*$")
_SENT = re.compile(
    r"(?<!\bart)(?<!\bn°)(?<!\bM)(?<!\bMme)(?<!\d)(?<!janv)(?<!févr)(?<!avr)(?<!juil)(?<!sept)(?<!oct)(?<!nov)"
    r"(?<!déc)[.!?]+(?=\s+[«\"A-ZÀ-Ý0-9])"
)
TABLE_ROWS = 60
TAIL_WORDS = 6  # a sentence this short, after another on the same line, stays with it
_HEADING = re.compile(r"^(?:#+\s|Article\s+\d|ARTICLE\s+\d|Subject\s*:|Objet\s*:|[IVX]+[.)]\s)")


def _is_table(doc: Document) -> bool:
    lines = [ln for ln in doc.text.splitlines() if ln.strip()]
    return len(lines) >= 2 and sum(ln.count(";") >= 2 or ln.count(",") >= 3 for ln in lines) >= 0.8 * len(lines)


def _units(text: str) -> list[tuple[int, int]]:
    """Line-aware units: a line continues the previous one when that did not end a sentence and this one
    starts in lower case (PDF/OCR wraps, even across a blank line); header, list and article lines stand alone."""
    lines: list[tuple[int, int]] = []
    pos = 0
    for raw in text.split("\n"):
        s, e = pos, pos + len(raw)
        pos = e + 1
        if raw.strip():
            lines.append((s + len(raw) - len(raw.lstrip()), s + len(raw.rstrip())))
    units: list[list[int]] = []
    for s, e in lines:
        line = text[s:e]
        if units and not _END.search(text[units[-1][0] : units[-1][1]]) and line[:1].islower():
            units[-1][1] = e
        else:
            units.append([s, e])
    units = _signatures(text, units)
    out: list[tuple[int, int]] = []
    for s, e in units:
        start = s
        sents: list[tuple[int, int]] = []
        for m in _SENT.finditer(text, s, e):
            sents.append((start, m.end()))
            start = m.end()
            while start < e and text[start].isspace():
                start += 1
        if start < e:
            sents.append((start, e))
        for a, b in sents:  # a short sentence after another of the same line is read with it
            if out and sents[0][0] != a and len(text[a:b].split()) <= TAIL_WORDS and out[-1][0] >= s:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return [(s, e) for s, e in out if text[s:e].strip()]


_PERSON = re.compile(r"^[A-ZÀ-Ý][a-zà-ÿ'-]+(?: (?:Le|La|De|Du|Van|Von) )?(?: ?[A-ZÀ-Ý][\w'-]+){1,2}$")


def _signatures(text: str, units: list[list[int]]) -> list[list[int]]:
    """A signature is one passage: a person's name line and the title line under it (« Sophie Garnier /
    Directrice des achats »), so a claim about who signed or sent a piece meets both."""
    out: list[list[int]] = []
    i = 0
    while i < len(units):
        s, e = units[i]
        if i + 1 < len(units) and _PERSON.match(text[s:e]):
            ns, ne = units[i + 1]
            title = text[ns:ne]
            if len(title.split()) <= 8 and not _END.search(title) and ":" not in title and not _PERSON.match(title):
                out.append([s, ne])
                i += 2
                continue
        out.append([s, e])
        i += 1
    return out


def passages_of(documents: Sequence[Document]) -> list[Memory]:
    out: list[Memory] = []
    for doc in documents:
        if _is_table(doc):
            lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", doc.text) if m.group().strip()]
            header, rows = lines[0], lines[1:]
            for i in range(0, max(len(rows), 1), TABLE_ROWS):
                part = rows[i : i + TABLE_ROWS]
                s = header[0] if i == 0 else part[0][0]
                e = part[-1][1] if part else header[1]
                ctx = doc.text[header[0] : header[1]]
                out.append(
                    Memory(
                        id=f"{doc.id}#t{i // TABLE_ROWS}",
                        document_id=doc.id,
                        text=doc.text[s:e],
                        context=ctx,
                        grounding=doc.ground(s, e, note="table"),
                    )
                )
            continue
        spans = _units(doc.text)
        heading = ""
        for i, (s, e) in enumerate(spans):
            line = doc.text[s:e]
            if _HEADING.match(line):
                heading = re.sub(r"^(?:subject|objet)\s*:\s*", "", line.lstrip("# "), flags=re.I)
            lo, hi = spans[max(0, i - 1)][0], spans[min(len(spans) - 1, i + 1)][1]
            out.append(
                Memory(
                    id=f"{doc.id}#s{i}",
                    document_id=doc.id,
                    text=doc.text[s:e],
                    context=doc.text[lo:hi],
                    heading=heading if heading != line.lstrip("# ") else "",
                    grounding=doc.ground(s, e),
                )
            )
    return out
