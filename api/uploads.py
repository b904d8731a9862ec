"""Background uploads of one API process: a large document is read while the client polls its job or
follows its event stream. The service container (api.deps) owns one registry and the documents router
fills it, so the registry lives here, apart from both (they used to import each other)."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


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


class DocumentJob(BaseModel):
    """A large upload read in the background: poll it, or follow its event stream."""

    id: str
    status: Literal["queued", "reading", "done", "failed"]
    filename: str
    pages_done: int = 0
    pages_total: int | None = None
    document: DocumentOut | None = None
    error: str | None = None
    events: str = Field(description="server-sent events: `progress` {pages_done, pages_total}, then `done` or `error`")


class UploadJobs:
    """Background uploads of this API process (in memory: a job is followed on the replica that took it)."""

    def __init__(self) -> None:
        self.jobs: dict[str, DocumentJob] = {}
        self.owner: dict[str, tuple[str, str]] = {}  # job id → (tenant, case)
        self.cond = threading.Condition()

    def add(self, job: DocumentJob, tenant: str, case_id: str) -> None:
        with self.cond:
            if len(self.jobs) > 1000:  # forget finished jobs first
                for jid in [j for j, v in self.jobs.items() if v.status in ("done", "failed")][:500]:
                    self.jobs.pop(jid, None)
                    self.owner.pop(jid, None)
            self.jobs[job.id] = job
            self.owner[job.id] = (tenant, case_id)

    def update(self, job_id: str, **fields: object) -> None:
        with self.cond:
            job = self.jobs[job_id]
            self.jobs[job_id] = job.model_copy(update=fields)
            self.cond.notify_all()

    def get(self, tenant: str, case_id: str, job_id: str) -> DocumentJob | None:
        with self.cond:
            return self.jobs.get(job_id) if self.owner.get(job_id) == (tenant, case_id) else None

    def pending(self, tenant: str, case_id: str, doc_id: str) -> bool:
        with self.cond:
            return any(
                self.owner.get(j) == (tenant, case_id)
                and v.status in ("queued", "reading")
                and v.id.split("-", 1)[1] == doc_id
                for j, v in self.jobs.items()
            )
