"""Hook for the case pipeline: what perception reads becomes explicit assertions of the evidence graph.

Why: the verdict, the report and the graph must share one evidence store — the same journal (the case's
``kg_raw_assertion`` rows, append-only) and the same provenance (document id, page, character span of the
document as ingested). The orchestrator calls ``record_documents`` once per case after perception::

    from lexlogic.engine.kg.from_case import record_documents
    record_documents(case_id, documents, db_url=None)   # documents: engine.documents.model.Document

Idempotent per case and document text: a document already journaled for the case (same id and text hash,
noted in each assertion's ``note``) is skipped, so a resumed or replayed run does not duplicate evidence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.kg.extract import extract
from lexlogic.engine.kg.model import Abstention, AttributedAssertion, EvidenceBundle, EvidenceSpan, RawAssertion
from lexlogic.engine.kg.patterns import ExtractionResult
from lexlogic.logic.model_defaults import new_list


class DocumentEvidence(BaseModel):
    """What the graph extracted from one document."""

    document_id: str
    fingerprint: str = Field(description="sha256 prefix of the document text (idempotent journaling)")
    assertions: list[RawAssertion] = Field(default_factory=new_list)
    abstentions: list[Abstention] = Field(default_factory=new_list)
    attributed: list[AttributedAssertion] = Field(default_factory=new_list)


def _with_pages(result: ExtractionResult, document: Any) -> ExtractionResult:
    """Add the page of each span (perception's provenance) when the document knows its pages."""
    page_of = getattr(document, "page_of", None)
    if page_of is None:
        return result

    def fix(span: EvidenceSpan) -> EvidenceSpan:
        page = page_of(span.char_start)
        return span if page is None else span.model_copy(update={"page": page})

    assertions = [
        a.model_copy(update={"bundle": EvidenceBundle(spans=tuple(fix(s) for s in a.bundle.spans))})
        for a in result.assertions
    ]
    abstentions = [x.model_copy(update={"span": fix(x.span)}) for x in result.abstentions]
    attributed = [
        x.model_copy(update={"span": fix(x.span), "content_span": fix(x.content_span)}) for x in result.attributed
    ]
    return ExtractionResult(assertions=assertions, abstentions=abstentions, attributed=attributed)


def _fingerprint(document: Any) -> str:
    return hashlib.sha256(document.text.encode("utf-8")).hexdigest()[:16]


def extract_documents(documents: Iterable[Any]) -> list[DocumentEvidence]:
    """Run the evidence-graph extractor over documents (anything with ``id`` and ``text``)."""
    out = []
    for document in documents:
        result = _with_pages(extract(document.text, document.id), document)
        fp = _fingerprint(document)
        assertions = [
            a.model_copy(update={"note": f"{a.note or ''} doc-sha256:{fp}".strip()}) for a in result.assertions
        ]
        out.append(
            DocumentEvidence(
                document_id=document.id,
                fingerprint=fp,
                assertions=assertions,
                abstentions=result.abstentions,
                attributed=result.attributed,
            )
        )
    return out


def record_documents(case_id: str, documents: Iterable[Any], db_url: str | None = None, store: Any = None) -> int:
    """Journal the explicit (and discursive) assertions of the case's documents; return how many were
    added. Abstentions (with their reasons and speakers) are recorded too. Documents already journaled for
    this case with the same text are skipped."""
    from lexlogic.engine.kg.store import KGStore

    kg = store or KGStore(db_url)
    seen: set[tuple[str, str]] = set()
    for a in kg.assertions(case_id):
        if a.note and "doc-sha256:" in a.note:
            fp = a.note.rsplit("doc-sha256:", 1)[-1]
            seen.update((s.doc_id, fp) for s in a.bundle.spans)
    added = 0
    for evidence in extract_documents(documents):
        if (evidence.document_id, evidence.fingerprint) in seen:
            continue
        added += kg.append(case_id, evidence.assertions)
        kg.record_abstentions(case_id, evidence.abstentions)
    return added
