"""Chunking for retrieval: pack whole layout units into chunks of about ``max_chars``.

An article or a clause is atomic: it is never cut, even when longer than ``max_chars`` (then it is a
chunk on its own). Only plain paragraphs longer than the limit are split, at sentence ends. A title
is glued to the unit that follows it, so a chunk carries its section heading.
"""

from __future__ import annotations

import re

from lexlogic.engine.documents.model import Block, BlockKind, Chunk, Document

SENTENCE_END = re.compile(r"(?<=[.!?;:»])\s+")


def _units(doc: Document) -> list[tuple[int, int, str | None, bool]]:
    """Top-level spans (start, end, section, atomic) covering the text's blocks in order."""
    tops: list[Block] = []
    for b in sorted(doc.blocks, key=lambda b: (b.char_start, -b.char_end)):
        if tops and b.char_start < tops[-1].char_end:  # nested (clause inside article)
            continue
        tops.append(b)
    if not tops and doc.text.strip():
        tops = [Block(kind=BlockKind.PARAGRAPH, char_start=0, char_end=len(doc.text))]
    units = []
    section = None
    pending_title: tuple[int, str | None] | None = None
    for b in tops:
        if b.kind is BlockKind.TITLE:
            if pending_title is None:
                pending_title = (b.char_start, b.title)
            section = b.title
            continue
        start = pending_title[0] if pending_title else b.char_start
        pending_title = None
        atomic = b.kind in (BlockKind.ARTICLE, BlockKind.CLAUSE, BlockKind.TABLE, BlockKind.HEADER)
        units.append((start, b.char_end, b.title if b.kind is BlockKind.ARTICLE else section, atomic))
    if pending_title is not None:
        units.append((pending_title[0], len(doc.text.rstrip()), section, True))
    return units


def _split_paragraph(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    if end - start <= max_chars:
        return [(start, end)]
    cuts = [start] + [start + m.end() for m in SENTENCE_END.finditer(text[start:end])] + [end]
    pieces, cur = [], start
    for i in range(1, len(cuts)):
        if cuts[i] - cur > max_chars and cuts[i - 1] > cur:
            pieces.append((cur, cuts[i - 1]))
            cur = cuts[i - 1]
    pieces.append((cur, end))
    return pieces


def chunk_document(doc: Document, max_chars: int = 1200) -> list[Chunk]:
    spans: list[tuple[int, int, str | None]] = []
    for start, end, section, atomic in _units(doc):
        if atomic:
            spans.append((start, end, section))
        else:
            spans += [(s, e, section) for s, e in _split_paragraph(doc.text, start, end, max_chars)]
    chunks: list[Chunk] = []
    cur: list[tuple[int, int, str | None]] = []

    def flush() -> None:
        if not cur:
            return
        s, e = cur[0][0], cur[-1][1]
        # trim whitespace without leaving the span
        while s < e and doc.text[s].isspace():
            s += 1
        while e > s and doc.text[e - 1].isspace():
            e -= 1
        if e > s:
            chunks.append(
                Chunk(
                    id=f"{doc.id}#{len(chunks)}",
                    document_id=doc.id,
                    text=doc.text[s:e],
                    char_start=s,
                    char_end=e,
                    page=doc.page_of(s),
                    section=cur[0][2],
                )
            )
        cur.clear()

    for span in spans:
        if cur and span[1] - cur[0][0] > max_chars:
            flush()
        cur.append(span)
    flush()
    return chunks
