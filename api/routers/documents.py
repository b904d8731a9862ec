"""Documents of a case: upload (ingested at once), list, metadata, text with page offsets."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from pathlib import Path

from fastapi import APIRouter, File, UploadFile
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Svc, Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.engine.documents.ingest import SUPPORTED, IngestError, document_id
from lexlogic.engine.documents.isolated import ingest_isolated

router = APIRouter(prefix="/v1/cases/{case_id}/documents", tags=["documents"])


class DocumentOut(BaseModel):
    id: str = Field(examples=["01-contrat-cadre"], description="the id groundings use (from the file name)")
    filename: str
    media_type: str
    kind: str = Field(examples=["contract"])
    size: int
    sha256: str
    pages: int
    chars: int
    created_at: datetime


class PageSpan(BaseModel):
    number: int
    char_start: int
    char_end: int


class DocumentText(BaseModel):
    id: str
    text: str = Field(description="the reference text: every grounding span is text[char_start:char_end]")
    page_spans: list[PageSpan]


MAX_STEM = 100  # characters of the stored name before the extension (ids and names fit their columns)


def _safe_name(name: str | None) -> str:
    """The uploaded name made safe to store and show: last path component, Unicode NFC, control and
    path characters dropped, spaces collapsed, at most MAX_STEM characters before a supported extension."""
    raw = unicodedata.normalize("NFC", (name or "").replace("\\", "/"))
    base = raw.rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")  # controls, NUL, bidi marks
    base = re.sub(r"\s+", " ", base).strip().strip(".")
    ext = Path(base).suffix.lower()
    stem = base[: len(base) - len(ext)] if ext else base
    if not stem.strip() or not ext:
        raise ProblemError(422, "the uploaded file needs a name with an extension", slug="bad-filename")
    if ext not in SUPPORTED:
        raise ProblemError(
            415,
            f"unsupported file type {ext[:20]}; supported: {', '.join(sorted(SUPPORTED))}",
            slug="unsupported-type",
        )
    return stem.strip()[:MAX_STEM].strip() + ext


@router.post(
    "",
    status_code=201,
    response_model=DocumentOut,
    summary="Upload a document",
    responses=problem_responses(401, 404, 409, 413, 415, 422),
)
def upload_document(
    case: Case, tenant: Tenant, svc: Svc, file: UploadFile = File(description="txt, md, csv, eml, pdf or image")
) -> DocumentOut:
    name = _safe_name(file.filename)
    doc_id = document_id(Path(name))
    if svc.cases.has_document(tenant, case.id, doc_id):
        raise ProblemError(409, f"document {doc_id!r} already exists in this case", slug="duplicate-document")
    data = file.file.read(svc.settings.max_upload_bytes + 1)
    if len(data) > svc.settings.max_upload_bytes:
        raise ProblemError(413, f"file exceeds {svc.settings.max_upload_bytes} bytes", slug="too-large")
    if not data:
        raise ProblemError(422, "the uploaded file is empty", slug="empty-file")
    folder = svc.dossier_dir(case)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    try:
        # a separate, limited process: time, memory, pages, decompressed size (engine.documents.isolated)
        doc = ingest_isolated(path)
    except IngestError as exc:
        path.unlink(missing_ok=True)  # never left behind for the next run to trip on
        raise ProblemError(422, f"cannot read {_no_paths(str(exc), folder)}", slug="ingest-failed") from None
    except Exception as exc:
        path.unlink(missing_ok=True)
        raise ProblemError(422, f"cannot read {name}: {type(exc).__name__}", slug="ingest-failed") from None
    try:
        row = svc.cases.add_document(
            tenant,
            case.id,
            doc_id=doc_id,
            filename=name,
            media_type=doc.media_type,
            kind=doc.kind.value,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            text=doc.text.replace("\x00", " "),  # PostgreSQL refuses NUL; offsets kept
            pages=[{"number": p.number, "char_start": p.char_start, "char_end": p.char_end} for p in doc.pages],
        )
    except BaseException:
        path.unlink(missing_ok=True)  # the database refused it (or is down): no orphan file
        raise
    return DocumentOut(**row.as_dict())


def _no_paths(message: str, folder: Path) -> str:
    return message.replace(str(folder) + "/", "").replace(str(folder), "")


@router.get(
    "", response_model=list[DocumentOut], summary="List a case's documents", responses=problem_responses(401, 404, 422)
)
def list_documents(case: Case, tenant: Tenant, svc: Svc) -> list[DocumentOut]:
    return [DocumentOut(**d.as_dict()) for d in svc.cases.list_documents(tenant, case.id)]


def _doc(svc: Svc, tenant: str, case_id: str, doc_id: str):  # type: ignore[no-untyped-def]
    row = svc.cases.get_document(tenant, case_id, doc_id) if len(doc_id) <= 200 else None
    if row is None:
        raise ProblemError(404, f"no document {doc_id!r} in this case", slug="not-found")
    return row


@router.get(
    "/{doc_id}", response_model=DocumentOut, summary="A document's metadata", responses=problem_responses(401, 404, 422)
)
def get_document(case: Case, doc_id: str, tenant: Tenant, svc: Svc) -> DocumentOut:
    return DocumentOut(**_doc(svc, tenant, case.id, doc_id).as_dict())


@router.get(
    "/{doc_id}/text",
    response_model=DocumentText,
    summary="A document's text and page offsets",
    responses=problem_responses(401, 404, 422),
)
def get_document_text(case: Case, doc_id: str, tenant: Tenant, svc: Svc) -> DocumentText:
    row = _doc(svc, tenant, case.id, doc_id)
    return DocumentText(id=row.doc_id, text=row.text, page_spans=[PageSpan(**p) for p in row.pages or []])
