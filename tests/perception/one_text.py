"""One French text as a document of a dossier, read by offline perception: the helper the reader tests share."""

from __future__ import annotations

from typing import Any

from lexlogic.engine.documents.layout import detect_blocks
from lexlogic.engine.documents.model import Document, DocumentKind, Page
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from tests.support.packs import SHIPPED


def document(text: str, author: str = "neutral", kind: DocumentKind = DocumentKind.OTHER) -> Document:
    """``text`` as one page written by ``author`` (claimant, defence, neutral), dated 1 March 2023."""
    return Document(
        id="t",
        kind=kind,
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=detect_blocks(text, page=1),
        metadata={"author_party": author, "document_date": "2023-03-01"},
    )


def facts_of(text: str, author: str = "neutral", kind: DocumentKind = DocumentKind.OTHER) -> dict[str, Any]:
    """The case file's facts perception reads in ``text``."""
    return to_case_file(
        extract([document(text, author, kind)], SHIPPED.pack("rupture_brutale")), "t", SHIPPED.pack("rupture_brutale")
    )["facts"]  # type: ignore[no-any-return]
