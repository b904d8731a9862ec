"""The document model shared by ingestion, perception, claim verification and the report.

A document's ``text`` is the single reference for character offsets: every span (word, block, chunk,
grounding) is ``text[char_start:char_end]``, so a quoted span can always be checked against the source.
"""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from lexlogic.logic.deferred import DeferredModel
from lexlogic.logic.grounding import BBox, Grounding, SourceKind
from lexlogic.logic.model_defaults import new_list


class Word(DeferredModel):
    text: str
    char_start: int
    char_end: int
    bbox: BBox | None = None


class Page(DeferredModel):
    number: int = Field(description="1-based")
    width: float | None = None
    height: float | None = None
    char_start: int = 0
    char_end: int = 0
    words: list[Word] = Field(default_factory=new_list)
    ocr: bool = False
    image_path: str | None = None


class BlockKind(str, Enum):
    TITLE = "title"
    ARTICLE = "article"  # "Article 5 – Résiliation" and its body
    CLAUSE = "clause"
    PARAGRAPH = "paragraph"
    HEADER = "header"  # e-mail headers
    TABLE = "table"


class Block(DeferredModel):
    kind: BlockKind
    char_start: int
    char_end: int
    page: int | None = None
    title: str | None = None


class DocumentKind(str, Enum):
    CONTRACT = "contract"
    LETTER = "letter"
    EMAIL = "email"
    INVOICE = "invoice"
    ORDER_HISTORY = "order_history"
    FORMAL_NOTICE = "formal_notice"
    SUBMISSION = "submission"
    OTHER = "other"


class Document(DeferredModel):
    id: str
    path: str | None = None
    media_type: str = "text/plain"
    kind: DocumentKind = DocumentKind.OTHER
    title: str | None = None
    text: str
    pages: list[Page] = Field(default_factory=new_list)
    blocks: list[Block] = Field(default_factory=new_list)
    metadata: dict[str, str] = Field(default_factory=dict)
    sha256: str | None = None

    def page_of(self, offset: int) -> int | None:
        for p in self.pages:
            if p.char_start <= offset < max(p.char_end, p.char_start + 1):
                return p.number
        return None

    def bbox_of(self, start: int, end: int) -> BBox | None:
        """Union of the word boxes overlapping [start, end) (None for text without layout)."""
        boxes = [
            w.bbox
            for p in self.pages
            for w in p.words
            if w.bbox is not None and w.char_start < end and w.char_end > start
        ]
        if not boxes:
            return None
        return BBox(
            x0=min(b.x0 for b in boxes),
            top=min(b.top for b in boxes),
            x1=max(b.x1 for b in boxes),
            bottom=max(b.bottom for b in boxes),
        )

    def ground(self, start: int, end: int, note: str | None = None) -> Grounding:
        """The grounding of a span of this document (quote taken from the text itself)."""
        return Grounding(
            kind=SourceKind.DOCUMENT,
            document_id=self.id,
            page=self.page_of(start),
            bbox=self.bbox_of(start, end),
            char_start=start,
            char_end=end,
            quote=self.text[start:end],
            note=note,
        )


class Chunk(DeferredModel):
    """A retrieval unit: never cuts an article or a clause in two."""

    id: str
    document_id: str
    text: str
    char_start: int
    char_end: int
    page: int | None = None
    section: str | None = None
