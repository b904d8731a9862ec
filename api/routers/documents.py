"""Documents of a case: upload (read at once, or in the background when large), list, metadata, text with
page offsets. Every upload is read by a separate, limited process (engine.documents.isolated)."""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi import APIRouter, File, Query, UploadFile
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Svc, Tenant
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.api.uploads import DocumentJob, DocumentOut
from lexlogic.engine.documents.cache import scoped
from lexlogic.engine.documents.ingest import SUPPORTED, IngestError, document_id
from lexlogic.engine.documents.isolated import IngestLimits, ingest_isolated
from lexlogic.engine.store.api_cases import DocumentExists

router = APIRouter(prefix="/v1/cases/{case_id}/documents", tags=["documents"])


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


def _ingest_and_store(
    svc: Svc,
    tenant: str,
    case: Case,
    name: str,
    doc_id: str,
    staged: Path,
    data: bytes,
    progress=None,  # type: ignore[no-untyped-def]
    replace: bool = False,
) -> DocumentOut:
    """Read the staged file in the limited child process, then record it and move it into the dossier in
    one step (engine.store.api_cases.put_document): the file is renamed into place (atomic) inside the
    transaction that records it, under the row's lock, so a half-written upload is never in the dossier and
    of two uploads of one name the file beside the row is always the recorded one's. Any refusal removes
    only this request's staged file."""
    try:
        # a separate, limited process: time, memory, pages, decompressed size (engine.documents.isolated)
        core = svc.settings.core
        cache = scoped(core.documents_cache, tenant)  # the tenant's own readings (engine.documents.cache)
        doc = ingest_isolated(staged, IngestLimits.from_settings(core), cache=cache, progress=progress)
    except IngestError as exc:
        staged.unlink(missing_ok=True)
        message = _no_paths(str(exc).replace(staged.name, name), staged.parent)
        raise ProblemError(422, f"cannot read {message}", slug="ingest-failed") from None
    except Exception as exc:
        staged.unlink(missing_ok=True)
        raise ProblemError(422, f"cannot read {name}: {type(exc).__name__}", slug="ingest-failed") from None
    folder = svc.dossier_dir(case)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        row = svc.cases.put_document(
            tenant,
            case.id,
            replace=replace,
            place=lambda: staged.replace(folder / name),
            doc_id=doc_id,
            filename=name,
            media_type=doc.media_type,
            kind=doc.kind.value,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            text=doc.text.replace("\x00", " "),  # PostgreSQL refuses NUL; offsets kept
            pages=[{"number": p.number, "char_start": p.char_start, "char_end": p.char_end} for p in doc.pages],
        )
    except DocumentExists as exc:
        raise ProblemError(409, str(exc), slug="duplicate-document") from None
    finally:
        staged.unlink(missing_ok=True)  # still staged: refused (or the database is down); placed: gone already
    return DocumentOut(**row.as_dict())


@router.post(
    "",
    status_code=201,
    response_model=DocumentOut,
    summary="Upload a document",
    responses={
        202: {"model": DocumentJob, "description": "a large upload (or background=true): read in the background"},
        **problem_responses(401, 404, 409, 413, 415, 422),
    },
)
def upload_document(
    case: Case,
    tenant: Tenant,
    svc: Svc,
    file: UploadFile = File(description="txt, md, csv, eml, pdf or image"),
    background: bool = Query(False, description="read in the background (always, above the synchronous size)"),
    replace: bool = Query(False, description="replace the case's document of the same name (else 409)"),
) -> Any:
    """Read at once (201) or, for a file over `sync_upload_bytes` or with background=true, in the background
    (202 with a job to poll or follow). Either way in a separate, limited process."""
    name = _safe_name(file.filename)
    doc_id = document_id(Path(name))
    if not replace and (
        svc.cases.has_document(tenant, case.id, doc_id) or svc.upload_jobs.pending(tenant, case.id, doc_id)
    ):
        raise ProblemError(409, f"document {doc_id!r} already exists in this case", slug="duplicate-document")
    data = file.file.read(svc.settings.max_upload_bytes + 1)
    if len(data) > svc.settings.max_upload_bytes:
        raise ProblemError(413, f"file exceeds {svc.settings.max_upload_bytes} bytes", slug="too-large")
    if not data:
        raise ProblemError(422, "the uploaded file is empty", slug="empty-file")
    staging = svc.dossier_dir(case).parent / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    staged = staging / f"{uuid.uuid4().hex[:8]}-{name}"
    staged.write_bytes(data)
    if not background and len(data) <= svc.settings.sync_upload_bytes:
        return _ingest_and_store(svc, tenant, case, name, doc_id, staged, data, replace=replace)
    job_id = f"{uuid.uuid4().hex[:12]}-{doc_id}"
    events = f"/v1/cases/{case.id}/documents/jobs/{job_id}/events"
    jobs = svc.upload_jobs
    jobs.add(DocumentJob(id=job_id, status="queued", filename=name, events=events), tenant, case.id)

    def work() -> None:
        jobs.update(job_id, status="reading")
        try:
            out = _ingest_and_store(
                svc,
                tenant,
                case,
                name,
                doc_id,
                staged,
                data,
                progress=lambda done, total: jobs.update(job_id, pages_done=done, pages_total=total),
                replace=replace,
            )
            jobs.update(job_id, status="done", document=out)
        except ProblemError as exc:
            jobs.update(job_id, status="failed", error=exc.detail)
        except Exception as exc:
            staged.unlink(missing_ok=True)
            jobs.update(job_id, status="failed", error=f"internal error ({type(exc).__name__})")

    threading.Thread(target=work, daemon=True, name=f"upload-{job_id}").start()
    return JSONResponse(jobs.get(tenant, case.id, job_id).model_dump(mode="json"), status_code=202)  # type: ignore[union-attr]


@router.get(
    "/jobs/{job_id}",
    response_model=DocumentJob,
    summary="A background upload's state",
    responses=problem_responses(401, 404, 422),
)
def get_job(case: Case, tenant: Tenant, svc: Svc, job_id: str = PathParam(max_length=120)) -> DocumentJob:
    job = svc.upload_jobs.get(tenant, case.id, job_id)
    if job is None:
        raise ProblemError(404, f"no upload job {job_id!r} in this case", slug="not-found")
    return job


@router.get(
    "/jobs/{job_id}/events",
    summary="A background upload's progress (server-sent events)",
    responses={
        200: {
            "description": "`progress` events {pages_done, pages_total}, then one `done` (DocumentOut) or `error`",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **problem_responses(401, 404, 422),
    },
)
def job_events(case: Case, tenant: Tenant, svc: Svc, job_id: str = PathParam(max_length=120)) -> StreamingResponse:
    jobs = svc.upload_jobs
    if jobs.get(tenant, case.id, job_id) is None:
        raise ProblemError(404, f"no upload job {job_id!r} in this case", slug="not-found")

    def gen() -> Iterator[str]:
        last: tuple[int, int | None] | None = None
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            with jobs.cond:
                job = jobs.get(tenant, case.id, job_id)
                if (
                    job is not None
                    and job.status in ("queued", "reading")
                    and (job.pages_done, job.pages_total) == last
                ):
                    jobs.cond.wait(timeout=5)
                    job = jobs.get(tenant, case.id, job_id)
            if job is None:
                return
            if (job.pages_done, job.pages_total) != last:
                last = (job.pages_done, job.pages_total)
                yield _sse(
                    "progress", {"status": job.status, "pages_done": job.pages_done, "pages_total": job.pages_total}
                )
            if job.status == "done":
                yield _sse("done", job.document.model_dump(mode="json") if job.document else {})
                return
            if job.status == "failed":
                yield _sse("error", {"status": 422, "detail": job.error})
                return

    return StreamingResponse(gen(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def _sse(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


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


@router.delete(
    "/{doc_id}",
    status_code=204,
    summary="Delete a document",
    responses=problem_responses(401, 404, 409, 422),
)
def delete_document(case: Case, doc_id: str, tenant: Tenant, svc: Svc) -> Response:
    """Remove the document from the case: its record and its file in the dossier, together. Refused (409)
    while the case runs. Earlier runs keep their history (their snapshots hold what they read); the next
    run reads the dossier without it (a run is keyed by its documents' content, so it is a new run)."""
    _doc(svc, tenant, case.id, doc_id)
    lease = svc.runs.lease(case.run_id)
    if lease is not None and lease["live"]:
        raise ProblemError(409, "this case is running: delete its documents once the run ends", slug="busy")
    row = svc.cases.get_document(tenant, case.id, doc_id)
    path = svc.dossier_dir(case) / row.filename if row is not None else None
    if path is None or not svc.cases.delete_document(
        tenant, case.id, doc_id, remove=lambda: path.unlink(missing_ok=True)
    ):
        raise ProblemError(404, f"no document {doc_id!r} in this case", slug="not-found")
    return Response(status_code=204)
