"""Runs as idempotent FSM steps: in this process without a broker, on Celery workers with one.

Why steps and not whole runs: every transition is already persisted (``engine.store.cases``), so a task
only has to *advance a run from its last persisted state*. Delivered twice, or redelivered after its worker
was killed -9 (tasks are acknowledged late), it resumes where the previous attempt stopped: nothing done is
lost and nothing persisted is done again. The case's lease (claimed before any write, renewed by a
heartbeat) keeps two attempts from ever writing into one history.

Queues: ``<prefix>.ingest`` (INIT: ingestion, OCR, perception; long, CPU-bound) and ``<prefix>.analysis``
(planning, symbolic and probabilistic evaluation), each with its own time limits. The prefix
(``LEXLOGIC_QUEUE_PREFIX``, default ``lexlogic``) isolates deployments, and tests, on one broker.
No result backend: PostgreSQL is the state store (runs, batch items).

Without ``LEXLOGIC_BROKER_URL`` nothing here needs a broker: ``advance`` runs in-process, and the
``Resumer`` (started by the API server and by every worker) takes over runs whose process died.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError

from lexlogic.engine.orchestrator import CaseState, Orchestrator, Phase
from lexlogic.engine.store.cases import QUEUED_LEASE_SECONDS, CaseStore, RunBusyError, new_owner
from lexlogic.logic.errors import LexlogicError, UnavailableError

log = logging.getLogger("lexlogic.tasks")
BROKER_ENV = "LEXLOGIC_BROKER_URL"
Stage = Literal["ingest", "analysis", "all"]
TERMINAL = ("verdict", "awaiting_answer", "stopped_budget", "stopped_loop", "error", "inconsistent")


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


class TaskError(LexlogicError):
    """A run cannot be advanced (unknown run, bad job)."""


class Job(BaseModel):
    """What a run is and what to do when it ends (kept with its lease, sent with its messages)."""

    kind: Literal["run", "api", "batch"] = "run"
    llm: bool = False
    batch_id: str | None = None
    key: str | None = None


def broker_url() -> str | None:
    return os.environ.get(BROKER_ENV) or None


def prefix() -> str:
    return os.environ.get("LEXLOGIC_QUEUE_PREFIX", "lexlogic") or "lexlogic"


def queue_name(stage: Literal["ingest", "analysis"]) -> str:
    return f"{prefix()}.{stage}"


def redact(url: str) -> str:
    """A broker URL without its password (for health and logs)."""
    parts = urlsplit(url)
    if parts.password:
        host = parts.hostname or ""
        netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


_made: list[CaseStore] = []


@lru_cache(maxsize=8)
def _store(url: str | None) -> CaseStore:
    store = CaseStore(url)
    _made.append(store)
    return store


def forget_stores() -> None:
    """In a forked child: drop the parent's engines without closing its connections (they are the parent's)."""
    for store in _made:
        store.engine.dispose(close=False)
    _made.clear()
    _store.cache_clear()


def store_for(url: str | None = None) -> CaseStore:
    """One CaseStore per database URL and process (the URL defaults to LEXLOGIC_DATABASE_URL / SQLite)."""
    return _store(url or os.environ.get("LEXLOGIC_DATABASE_URL") or None)


def orchestrator_for(store: CaseStore, job: Job) -> Orchestrator:
    llm = None
    if job.llm:
        from lexlogic.bridges.llm import LLMClient

        llm = LLMClient.from_env()
    return Orchestrator(store, llm=llm, job=job.model_dump())


# --- one step ----------------------------------------------------------------------------------------------
class Advance(BaseModel):
    """What one call of ``advance`` did: done (the run is terminal), next (INIT done, analysis to enqueue
    with the lease token ``token``), busy (another attempt holds the run), missing (no such run)."""

    outcome: Literal["done", "next", "busy", "missing"]
    status: str | None = None
    token: str | None = None


def advance(
    run_id: str,
    job: Job,
    *,
    stage: Stage = "all",
    adopt: str | None = None,
    store: CaseStore | None = None,
) -> Advance:
    """Advance ``run_id`` from its last persisted state. Idempotent: a terminal run is only finished
    (its batch result recorded, once); a busy run is left alone."""
    store = store or store_for()
    orch = orchestrator_for(store, job)
    try:
        orch.claim(run_id, adopt=adopt)
    except RunBusyError:
        return Advance(outcome="busy")
    try:
        if job.kind == "batch" and job.batch_id and job.key:
            from lexlogic.engine.batch import BatchStore

            BatchStore.on(store.engine).attempt(job.batch_id, job.key)
        latest = store.latest(run_id)
        if latest is None:
            return Advance(outcome="missing")
        state = CaseState.model_validate(latest[1])
        lease = store.lease(run_id)
        if state.status == "running" and lease and lease["attempts"] > max_attempts():
            # taken over again and again (a document that kills its worker?): stop instead of looping
            state = _fail(orch, run_id, f"interrupted {lease['attempts'] - 1} times: given up")
            finish(store, job, run_id, state)
            return Advance(outcome="done", status=state.status)
        try:
            if state.status == "running":
                if stage == "ingest" and state.phase is Phase.INIT:
                    state = orch.run(state, until=lambda s: s.phase is not Phase.INIT)
                    if state.status == "running":
                        token = new_owner("queued")
                        h = orch._holds[run_id]
                        store.handover(run_id, h.owner, token, QUEUED_LEASE_SECONDS)
                        orch.let_go(run_id, release=False)
                        return Advance(outcome="next", status=state.status, token=token)
                else:
                    state = orch.run(state)
        except Exception as exc:
            if _is_time_limit(exc):
                state = _fail(orch, run_id, f"time limit exceeded ({type(exc).__name__})")
            elif isinstance(exc, SQLAlchemyError | UnavailableError | OSError):
                # the database or a service is down: keep the lease (it expires, the resumer retries later)
                orch.let_go(run_id, release=False)
                raise
            else:  # the case itself fails (bad rule file, a bug): stop it with the reason, do not hang a batch
                log.exception("run %s failed", run_id)
                state = _fail(orch, run_id, f"{type(exc).__name__}: {exc}"[:500])
        finish(store, job, run_id, state)
        return Advance(outcome="done", status=state.status)
    finally:
        orch.let_go(run_id)


def max_attempts() -> int:
    """Takeovers of one run (each after its process died) before it is stopped with status ``error``."""
    return int(_env_float("LEXLOGIC_RESUME_MAX_ATTEMPTS", 5))


def _is_time_limit(exc: BaseException) -> bool:
    return type(exc).__name__ in ("SoftTimeLimitExceeded", "TimeLimitExceeded")


def _fail(orch: Orchestrator, run_id: str, message: str) -> CaseState:
    """Stop a run with status ``error`` (persisted under this attempt's lease)."""
    latest = orch.store.latest(run_id)
    assert latest is not None
    state = CaseState.model_validate(latest[1])
    state.status, state.message = "error", message
    orch.persist(state, message)
    return state


def finish(store: CaseStore, job: Job, run_id: str, state: CaseState) -> None:
    """What a job does when its run ends: a batch item records its result (once)."""
    if job.kind == "batch" and job.batch_id and job.key:
        from lexlogic.engine.batch import BatchStore

        BatchStore.on(store.engine).complete(job.batch_id, job.key, run_id, state)


# --- Celery ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _celery(url: str) -> Any:
    from celery import Celery

    app = Celery("lexlogic", broker=url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # a task is acknowledged once done: a killed worker's task is redelivered
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,  # a task that failed or hit its hard limit is not redelivered
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # PostgreSQL is the state store
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": 3600},  # Redis: redeliver unacked after 1 h
        worker_hijack_root_logger=False,
        task_default_queue=queue_name("analysis"),
        broker_heartbeat=10,
    )
    limits = {
        "ingest": (_env_float("LEXLOGIC_INGEST_SOFT_LIMIT", 900), _env_float("LEXLOGIC_INGEST_HARD_LIMIT", 960)),
        "analysis": (_env_float("LEXLOGIC_ANALYSIS_SOFT_LIMIT", 300), _env_float("LEXLOGIC_ANALYSIS_HARD_LIMIT", 330)),
    }
    busy_retry = _env_float("LEXLOGIC_BUSY_RETRY_SECONDS", 5)

    def body(task: Any, run_id: str, job: dict[str, Any], stage: Stage, adopt: str | None = None) -> str:
        j = Job.model_validate(job)
        res = advance(run_id, j, stage=stage, adopt=adopt)
        if res.outcome == "busy":  # another attempt holds it: look again later (it may have died elsewhere)
            raise task.retry(countdown=busy_retry, max_retries=None)
        if res.outcome == "next":
            send(run_id, j, "analysis", adopt=res.token)
        return res.outcome

    for stage, (soft, hard) in limits.items():
        app.task(
            bind=True,
            name=f"lexlogic.{stage}",
            acks_late=True,
            reject_on_worker_lost=True,
            soft_time_limit=soft,
            time_limit=hard,
        )(_named(body, stage))
    return app


def _named(fn: Any, stage: str) -> Any:
    def task(self: Any, run_id: str, job: dict[str, Any], stage_: Stage = "all", adopt: str | None = None) -> str:
        return fn(self, run_id, job, stage_, adopt)

    task.__name__ = f"{stage}_step"
    task.__qualname__ = task.__name__
    return task


def celery_app(url: str | None = None) -> Any:
    url = url or broker_url()
    if not url:
        raise UnavailableError(f"no broker configured ({BROKER_ENV} is not set)")
    return _celery(url)


def send(run_id: str, job: Job, stage: Literal["ingest", "analysis"], *, adopt: str | None = None) -> None:
    """Enqueue one step of a run on its queue."""
    try:
        celery_app().send_task(
            f"lexlogic.{stage}", args=[run_id, job.model_dump(), stage, adopt], queue=queue_name(stage)
        )
    except LexlogicError:
        raise
    except Exception as exc:
        raise UnavailableError(f"broker unreachable ({type(exc).__name__}: {exc})") from exc


def submit(run_id: str, job: Job, *, adopt: str | None = None, store: CaseStore | None = None) -> None:
    """Enqueue a run from its head: ingestion first if it has not left INIT, analysis otherwise."""
    store = store or store_for()
    latest = store.latest(run_id)
    if latest is None:
        raise TaskError(f"no run {run_id!r}")
    stage: Literal["ingest", "analysis"] = "ingest" if latest[1].get("phase") == Phase.INIT.value else "analysis"
    send(run_id, job, stage, adopt=adopt)


_health_cache: dict[str, tuple[float, dict[str, Any]]] = {}


def broker_status(timeout: float = 0.5, ttl: float = 5.0) -> dict[str, Any]:
    """For /v1/health: the mode, the broker (reachable?) and the workers answering a ping (cached a few s)."""
    url = broker_url()
    if not url:
        return {"mode": "embedded", "broker": None, "reachable": None, "workers": []}
    hit = _health_cache.get(url)
    if hit and time.monotonic() - hit[0] < ttl:
        return hit[1]
    out: dict[str, Any] = {"mode": "celery", "broker": redact(url), "reachable": False, "workers": []}
    try:
        from kombu import Connection

        app = celery_app(url)
        with Connection(url, connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.1, interval_max=0.1)
        out["reachable"] = True
        replies = app.control.ping(timeout=timeout) or []
        out["workers"] = sorted(name for r in replies for name in r)
        out["queues"] = [queue_name("ingest"), queue_name("analysis")]
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    _health_cache[url] = (time.monotonic(), out)
    return out


# --- the resumer -------------------------------------------------------------------------------------------
class Resumer:
    """Takes over interrupted runs (their lease's process died): once at start, then every ``interval`` s.

    With a broker it enqueues them (a worker resumes them); without, it advances them in its own thread.
    A run taken over ``max_attempts`` times is stopped with status ``error`` instead of looping forever."""

    def __init__(self, store: CaseStore | None = None, *, interval: float | None = None) -> None:
        self.store = store or store_for()
        self.interval = interval if interval is not None else _env_float("LEXLOGIC_RESUME_INTERVAL", 10)
        self.max_attempts = max_attempts()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def pass_once(self) -> list[str]:
        """One sweep; returns the run ids taken over."""
        taken = []
        for orphan in self.store.orphans():
            run_id = orphan["case_id"]
            try:
                job = Job.model_validate(orphan["job"] or {})
            except Exception:
                job = Job()
            try:
                if orphan["attempts"] >= self.max_attempts:
                    self._give_up(run_id, job, orphan["attempts"])
                elif broker_url():
                    token = new_owner("queued")
                    if self.store.claim(run_id, token, QUEUED_LEASE_SECONDS, adopt=None):
                        submit(run_id, job, adopt=token, store=self.store)
                    else:
                        continue
                else:
                    res = advance(run_id, job, store=self.store)
                    if res.outcome == "busy":
                        continue
                taken.append(run_id)
                log.info("resumed interrupted run %s", run_id)
            except Exception:
                log.exception("could not resume run %s", run_id)
            if self._stop.is_set():
                break
        return taken

    def _give_up(self, run_id: str, job: Job, attempts: int) -> None:
        orch = orchestrator_for(self.store, job)
        try:
            orch.claim(run_id)
        except RunBusyError:
            return
        try:
            state = _fail(orch, run_id, f"interrupted {attempts} times: given up")
            finish(self.store, job, run_id, state)
        finally:
            orch.let_go(run_id)

    def start(self) -> Resumer:
        if os.environ.get("LEXLOGIC_RESUME", "1") == "0":
            return self

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    self.pass_once()
                except Exception:
                    log.exception("resumer sweep failed")
                self._stop.wait(self.interval)

        self._thread = threading.Thread(target=loop, daemon=True, name="lexlogic-resumer")
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
