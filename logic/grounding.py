"""Where a fact came from: the exact span of a source document, or the person/prior that gave it.

Every leaf of a proof tree carries one of these, so a verdict can be traced to the quoted text.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field


class SourceKind(str, Enum):
    DOCUMENT = "document"  # a span of an ingested document
    USER_ANSWER = "user_answer"  # an answer given to a question
    PRIOR = "prior"  # an expert prior from the rule pack
    CASE_FILE = "case_file"  # a structured facts file (JSON path)
    DYNAMIC_RULE = "dynamic_rule"  # computed by a sandboxed dynamic rule (interpretation, not law)
    REPAIR = "repair"  # introduced by FOL sort repair (not a given)
    PARAMETER = "parameter"  # a dated legal parameter of the rule pack (value, period, reference)


class BBox(BaseModel):
    """Bounding box on a page, PDF points, origin top-left."""

    x0: float
    top: float
    x1: float
    bottom: float


class Grounding(BaseModel):
    """The provenance of one fact."""

    kind: SourceKind = SourceKind.DOCUMENT
    document_id: str | None = None
    page: int | None = Field(default=None, description="1-based page number")
    bbox: BBox | None = None
    char_start: int | None = Field(default=None, description="offset in the document's text")
    char_end: int | None = None
    quote: str | None = Field(default=None, description="exact text of the span")
    json_path: str | None = Field(default=None, description="for CASE_FILE: where in the facts file")
    note: str | None = None

    def describe(self) -> str:
        if self.kind is SourceKind.DOCUMENT:
            where = f"{self.document_id}"
            if self.page is not None:
                where += f" p.{self.page}"
            if self.char_start is not None:
                where += f" [{self.char_start}:{self.char_end}]"
            return f"{where} «{self.quote}»" if self.quote else where
        if self.kind is SourceKind.CASE_FILE:
            return f"facts file {self.json_path or ''}".strip()
        return f"{self.kind.value}{': ' + self.note if self.note else ''}"
