"""Cutting a document into sections and sentences, keeping character offsets and section context.

Sections start at heading lines (Article 5 — ..., Section 2, Chapitre III, # Title). Sentences are not
split at ';' on purpose: a ';' often joins a statement to the deduction drawn from it, which must be
judged together (Type-2 risk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING = re.compile(
    r"^\s*(?:#+\s*\S.*|(?:article|art\.|section|chapter|chapitre|titre|title|clause|annex|annexe|schedule)"
    r"\s+[\w.\-]+\b.*)$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ÖØ-Þ«\"(])")
_ABBREV = re.compile(r"(?:\b(?:art|al|cf|e\.g|i\.e|n°|no|p|pp|c|civ|com|etc|M|Mme|Dr|St)\.)$", re.IGNORECASE)


@dataclass(frozen=True)
class Heading:
    title: str
    start: int
    end: int

    def number(self) -> str | None:
        m = re.search(r"\b(\d[\w.\-]*|[IVXLC]+)\b", self.title)
        return m.group(1).lower() if m else None


@dataclass(frozen=True)
class SectionSentence:
    text: str
    start: int
    end: int
    section: Heading | None
    index: int  # position in the document


def _split_line(line: str, offset: int) -> list[tuple[str, int, int]]:
    pieces: list[tuple[str, int, int]] = []
    pos = 0
    for m in _SENTENCE_END.finditer(line):
        candidate = line[pos : m.start()]
        if _ABBREV.search(candidate):
            continue  # 'art. L.442-1' is not the end of a sentence
        pieces.append((candidate, offset + pos, offset + m.start()))
        pos = m.end()
    pieces.append((line[pos:], offset + pos, offset + len(line)))
    return [
        (t.strip(), s + (len(t) - len(t.lstrip())), e - (len(t) - len(t.rstrip()))) for t, s, e in pieces if t.strip()
    ]


_VERBISH = re.compile(
    r"\s(?:is|are|was|shall|must|may|applies|apply|means|est|sont|doit|doivent|peut|"
    r"s['’]applique|s['’]appliquent|désigne)\s",
    re.IGNORECASE,
)


def _is_heading(line: str) -> bool:
    if line.rstrip().endswith((".", "?", "!")) and len(line.split()) >= 6:
        return False  # "Section 8 requires a prior written consent." is a sentence, not a heading
    return bool(line) and len(line) <= 100 and HEADING.match(line) is not None and not _VERBISH.search(line)


_CONTINUES = re.compile(r"[a-zà-öø-ÿ]")


def segment(text: str) -> tuple[list[SectionSentence], list[Heading]]:
    """Sentences (with their section) and the headings of a document.

    A line that does not end a sentence and is followed by a line starting in lower case is the same
    sentence wrapped (text drawn from PDFs): the two are analysed together, offsets kept exact (the
    sentence text is the document's slice, line break included)."""
    sentences: list[SectionSentence] = []
    headings: list[Heading] = []
    current: Heading | None = None
    lines: list[tuple[str, int]] = []
    offset = 0
    for raw_line in text.splitlines(keepends=True):
        lines.append((raw_line.rstrip("\r\n"), offset))
        offset += len(raw_line)
    i = 0
    while i < len(lines):
        line, start = lines[i]
        stripped = line.strip()
        if _is_heading(stripped):
            title = stripped.lstrip("# ").strip()
            h_start = start + line.index(title)
            current = Heading(title=title, start=h_start, end=h_start + len(title))
            headings.append(current)
            i += 1
            continue
        if not stripped:
            i += 1
            continue
        end = start + len(line)
        while (
            i + 1 < len(lines)
            and not line.rstrip().endswith((".", "!", "?", ":", ";"))
            and _CONTINUES.match(lines[i + 1][0].lstrip())
            and not _is_heading(lines[i + 1][0].strip())
        ):
            i += 1
            line, _ = lines[i]
            end = lines[i][1] + len(line)
        for sent, s, e in _split_line(text[start:end], start):
            sentences.append(SectionSentence(text=sent, start=s, end=e, section=current, index=len(sentences)))
        i += 1
    return sentences, headings
