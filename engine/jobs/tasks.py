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

Every name, timing and limit here comes from the ``Settings`` the caller passes (``lexlogic worker`` builds the
worker's once and the Celery app's tasks close over it); nothing here reads the environment.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, Field
from sqlalchemy.exc import SQLAlchemyError

from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase, read_state
from lexlogic.engine.jobs.batch_store import BatchStore
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.store.cases import (
    CaseStore,
    LeaseLostError,
    LeaseTimes,
    RunBusyError,
    UnreadableState,
    host_id,
    new_owner,
)
from lexlogic.logic.errors import LexlogicError, UnavailableError
from lexlogic.settings import Settings

if TYPE_CHECKING:
    from lexlogic.engine.jobs.chunks import ChunkJob

log = logging.getLogger("lexlogic.tasks")
BROKER_ENV = "LEXLOGIC_BROKER_URL"
Stage = Literal["ingest", "analysis", "all"]
TERMINAL = ("verdict", "awaiting_answer", "stopped_budget", "stopped_loop", "error", "inconsistent")


class TaskError(LexlogicError):
    """A run cannot be advanced (unknown run, bad job)."""


class Job(BaseModel):
    """What a run is and what to do when it ends (kept with its lease, sent with its messages)."""

    kind: Literal["run", "api", "batch"] = "run"
    llm: bool = False
    batch_id: str | None = None
    key: str | None = None
    rules_dir: str | None = Field(default=None, description="the submitter's rules folder (None: the worker's)")
    scope: str | None = Field(default=None, description="an API run's tenant: whose document cache it reads")


def queue_name(stage: Literal["ingest", "analysis"], settings: Settings) -> str:
    return f"{settings.queue_prefix}.{stage}"


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
def _store(url: str, leases: LeaseTimes) -> CaseStore:
    store = CaseStore(url, leases)
    _made.append(store)
    return store


def forget_stores() -> None:
    """In a forked child: drop the parent's engines without closing its connections (they are the parent's)."""
    for store in _made:
        store.engine.dispose(close=False)
    _made.clear()
    _store.cache_clear()


def store_for(settings: Settings, url: str | None = None) -> CaseStore:
    """One CaseStore per database URL and process (the URL defaults to ``settings.database``), with the
    settings' lease times."""
    return _store(url or settings.database, LeaseTimes.from_settings(settings))


_libraries: dict[str, PackLibrary] = {}


def packs_for(job: Job, settings: Settings) -> PackLibrary:
    """The rule packs a job runs with: the submitter's rules folder (carried by the job), else this worker's.
    One library per folder and process, so a pack is loaded once per worker."""
    root = str(Path(job.rules_dir or settings.rules_dir).resolve())
    if root not in _libraries:
        _libraries[root] = PackLibrary(Path(root), settings.default_pack)
    return _libraries[root]


def orchestrator_for(store: CaseStore, job: Job, settings: Settings) -> Orchestrator:
    llm = None
    if job.llm and settings.llm_base_url:
        from lexlogic.bridges.llm import LLMClient

        llm = LLMClient(settings.llm_base_url, settings.llm_model, settings.llm_api_key)
    cache, read = settings.documents_cache, None
    if job.kind == "api":  # a dossier of uploads: read by the limited child, through the tenant's cache
        from lexlogic.engine.documents.cache import scoped
        from lexlogic.engine.documents.isolated import IngestLimits, isolated_reader

        cache = scoped(settings.documents_cache, job.scope or "")
        read = isolated_reader(IngestLimits.from_settings(settings), cache)
    packs = packs_for(job, settings)
    return Orchestrator(
        store,
        evaluator=CaseEvaluator(packs, limits=InferenceLimits.of(settings)),  # the deployment's thresholds
        packs=packs,
        llm=llm,
        job=job.model_dump(),
        step_delay=settings.step_delay,
        documents_cache=cache,
        read_document=read,
    )


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
    settings: Settings,
    stage: Stage = "all",
    adopt: str | None = None,
    owner: str | None = None,
    store: CaseStore | None = None,
) -> Advance:
    """Advance ``run_id`` from its last persisted state. Idempotent: a terminal run is only finished
    (its batch result recorded, once); a busy run is left alone. ``owner``: the lease owner id to use (a
    local batch client retries an item under the same id after an outage, so its own lease never blocks it).
    ``settings``: the caller's (the worker's, the API's, the batch client's)."""
    store = store or store_for(settings)
    if job.kind == "batch" and job.batch_id and job.key:
        if BatchStore.on(store.engine).is_done(job.batch_id, job.key):
            return Advance(outcome="done")  # finished by another attempt: nothing to claim
    orch = orchestrator_for(store, job, settings)
    try:
        orch.claim(run_id, owner=owner, adopt=adopt)
    except RunBusyError:
        return Advance(outcome="busy")
    try:
        if job.kind == "batch" and job.batch_id and job.key:
            BatchStore.on(store.engine).attempt(job.batch_id, job.key)
        latest = store.latest(run_id)
        if latest is None:
            return Advance(outcome="missing")
        try:
            state = read_state(latest[1], f"run {run_id}")
        except UnreadableState as exc:
            return _unreadable(store, job, run_id, exc)
        lease = store.lease(run_id)
        if state.status == "running" and lease and lease["attempts"] > settings.resume_max_attempts:
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
                        store.handover(run_id, h.owner, token)
                        orch.let_go(run_id, release=False)
                        return Advance(outcome="next", status=state.status, token=token)
                else:
                    state = orch.run(state)
        except LeaseLostError:
            # this attempt stalled past its lease and another took the run over: it is theirs to finish
            orch.let_go(run_id, release=False)
            return Advance(outcome="busy")
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


def _unreadable(store: CaseStore, job: Job, run_id: str, exc: UnreadableState) -> Advance:
    """A run whose last state this version cannot read (written by another version, or damaged): it cannot be
    continued here, and nothing is written over it (its states stay for the version that can read them). A
    batch item ends in ``error`` with the reason, so the batch does not wait for it forever."""
    log.warning("run %s: %s", run_id, exc)
    if job.kind == "batch" and job.batch_id and job.key:
        BatchStore.on(store.engine).fail(job.batch_id, job.key, str(exc)[:500], status="error")
    return Advance(outcome="done", status="error")


def _is_time_limit(exc: BaseException) -> bool:
    return type(exc).__name__ in ("SoftTimeLimitExceeded", "TimeLimitExceeded")


def _fail(orch: Orchestrator, run_id: str, message: str) -> CaseState:
    """Stop a run with status ``error`` (persisted under this attempt's lease). A run that already ended
    (read after the lease was claimed, so no earlier holder can still write) is returned untouched: a
    give-up never writes over a verdict."""
    latest = orch.db().latest(run_id)
    assert latest is not None
    state = read_state(latest[1], f"run {run_id}")
    if state.status != "running":
        return state
    state.status, state.message = "error", message
    orch.persist(state, message)
    return state


def finish(store: CaseStore, job: Job, run_id: str, state: CaseState) -> None:
    """What a job does when its run ends: a batch item records its result (once)."""
    if job.kind == "batch" and job.batch_id and job.key:
        BatchStore.on(store.engine).complete(job.batch_id, job.key, run_id, state)


# --- Celery ------------------------------------------------------------------------------------------------
VISIBILITY_FLOOR = 3600.0


def visibility_timeout(settings: Settings) -> float:
    """Redis only: how long a message taken by a worker stays invisible before Redis hands it to another
    (Redis has no connection-bound acknowledgement, unlike RabbitMQ). It must outlast the longest time a
    live worker may legitimately hold a message unacknowledged — a step up to its hard time limit, then a
    retry countdown (held unacknowledged until due) — else a long step is delivered twice while it still
    runs. Twice the longest hard limit plus the longest countdown, never under an hour. A killed worker's
    message coming back that late costs nothing: the resumer takes the run over when its lease lapses
    (docs/deployment.md, « Broker settings »)."""
    longest = max(settings.ingest_hard_limit, settings.analysis_hard_limit)
    countdown = max(settings.outage_retry_max_seconds, settings.busy_retry_seconds)
    return max(VISIBILITY_FLOOR, 2 * longest + countdown)


@lru_cache(maxsize=4)
def _celery(url: str, settings: Settings) -> Any:
    """The Celery app of a broker; its tasks advance runs with ``settings`` (the worker's, built at its edge)."""
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
        broker_transport_options={"visibility_timeout": visibility_timeout(settings)},  # Redis only
        worker_hijack_root_logger=False,
        task_default_queue=queue_name("analysis", settings),
        broker_heartbeat=10,
    )
    limits = {
        "ingest": (settings.ingest_soft_limit, settings.ingest_hard_limit),
        "analysis": (settings.analysis_soft_limit, settings.analysis_hard_limit),
    }
    busy_retry = settings.busy_retry_seconds
    outage_cap = settings.outage_retry_max_seconds

    def body(task: Any, run_id: str, job: dict[str, Any], stage: Stage, adopt: str | None = None) -> str:
        j = Job.model_validate(job)
        try:
            res = advance(run_id, j, settings=settings, stage=stage, adopt=adopt)
        except (SQLAlchemyError, UnavailableError, OSError) as exc:
            # the database (or a service) is down: not done, so not acknowledged as done. Retried with
            # capped exponential backoff; the run's lease stays, so the resumer recovers it even if this
            # retry cannot be sent (the broker down too).
            delay = min(outage_cap, 2.0 ** min(task.request.retries, 10))
            log.warning("run %s: %s unavailable, retry in %.0f s", run_id, type(exc).__name__, delay)
            raise task.retry(exc=exc, countdown=delay) from exc
        if res.outcome == "busy":  # another attempt holds it: look again later (it may have died elsewhere)
            raise task.retry(countdown=busy_retry)
        if res.outcome == "next":
            send(run_id, j, "analysis", settings=settings, adopt=res.token)
        return res.outcome

    _chunk_task(app, settings)
    for stage, (soft, hard) in limits.items():
        app.task(
            bind=True,
            name=f"lexlogic.{stage}",
            acks_late=True,
            reject_on_worker_lost=True,
            # never give up retrying (an outage, a busy run): ``retry(max_retries=None)`` would fall back to
            # Celery's default of 3, after which the task failed and was acknowledged — its item stranded
            max_retries=None,
            soft_time_limit=soft,
            time_limit=hard,
        )(_named(body, stage))
    return app


def _chunk_task(app: Any, settings: Settings) -> None:
    """``lexlogic.chunk``: a portfolio chunk (``engine.jobs.chunks``), with the analysis step's limits and the
    per-case task's policy: acknowledged late, retried through outages with capped backoff, retried later
    while another attempt holds it."""

    from celery.utils.log import get_task_logger

    chunk_log = get_task_logger("lexlogic.chunks")

    def chunk_step(self: Any, cid: str, job: dict[str, Any], adopt: str | None = None) -> str:
        from lexlogic.engine.jobs import chunks

        store = store_for(settings)
        # one owner per task and process: a retry after an outage, here, takes its own lease back at once
        owner = f"{host_id()}:{os.getpid()}:{(self.request.id or new_owner())[:12]}"
        try:
            out = chunks.run_chunk(
                cid, chunks.ChunkJob.model_validate(job), settings=settings, store=store, adopt=adopt, owner=owner
            )
        except (SQLAlchemyError, UnavailableError, OSError) as exc:
            delay = min(settings.outage_retry_max_seconds, 2.0 ** min(self.request.retries, 10))
            log.warning("chunk %s: %s unavailable, retry in %.0f s", cid, type(exc).__name__, delay)
            raise self.retry(exc=exc, countdown=delay) from exc
        if out.outcome == "busy":
            raise self.retry(countdown=settings.busy_retry_seconds)
        if out.cases:  # the per-chunk figures benchmarks/batch.py reads (the task logger: in the worker's log)
            chunk_log.info("chunk %s: %d case(s) in %.4f s wall, %.4f s CPU", cid, out.cases, out.seconds, out.cpu)
        return out.outcome

    app.task(
        bind=True,
        name="lexlogic.chunk",
        acks_late=True,
        reject_on_worker_lost=True,
        max_retries=None,  # never give up (see the step tasks)
        soft_time_limit=settings.analysis_soft_limit,
        time_limit=settings.analysis_hard_limit,
    )(chunk_step)


def _named(fn: Any, stage: str) -> Any:
    def task(self: Any, run_id: str, job: dict[str, Any], stage_: Stage = "all", adopt: str | None = None) -> str:
        return fn(self, run_id, job, stage_, adopt)

    task.__name__ = f"{stage}_step"
    task.__qualname__ = task.__name__
    return task


def celery_app(settings: Settings, url: str | None = None) -> Any:
    url = url or settings.broker_url
    if not url:
        raise UnavailableError(f"no broker configured ({BROKER_ENV} is not set)")
    return _celery(url, settings)


def send(
    run_id: str, job: Job, stage: Literal["ingest", "analysis"], *, settings: Settings, adopt: str | None = None
) -> None:
    """Enqueue one step of a run on its queue."""
    _send_task(f"lexlogic.{stage}", [run_id, job.model_dump(), stage, adopt], stage, settings)


def send_chunk(cid: str, job: ChunkJob, *, settings: Settings, adopt: str | None = None) -> None:
    """Enqueue a portfolio chunk on the analysis queue (its lease, queued under ``adopt``, is the caller's)."""
    from lexlogic.engine.jobs.chunks import TASK

    _send_task(TASK, [cid, job.model_dump(), adopt], "analysis", settings)


def _send_task(name: str, args: list[Any], stage: Literal["ingest", "analysis"], settings: Settings) -> None:
    """One message on a stage's queue; a broker that cannot take it is an outage (``UnavailableError``)."""
    try:
        celery_app(settings).send_task(name, args=args, queue=queue_name(stage, settings))
    except LexlogicError:
        raise
    except Exception as exc:
        raise UnavailableError(f"broker unreachable ({type(exc).__name__}: {exc})") from exc


def resume_chunk(store: CaseStore, settings: Settings, cid: str, job: dict[str, Any]) -> bool:
    """The resumer's takeover of an interrupted portfolio chunk: sent again under a new queued lease with a
    broker, evaluated here without one. False when another process got there first."""
    from lexlogic.engine.jobs import chunks

    chunk = chunks.ChunkJob.model_validate(job)
    if settings.broker_url:
        token = new_owner("queued")
        if not store.claim(cid, token, store.leases.queued, adopt=None):
            return False
        send_chunk(cid, chunk, settings=settings, adopt=token)
        return True
    return chunks.run_chunk(cid, chunk, settings=settings, store=store).outcome == "done"


def submit(
    run_id: str, job: Job, *, settings: Settings, adopt: str | None = None, store: CaseStore | None = None
) -> None:
    """Enqueue a run from its head: ingestion first if it has not left INIT, analysis otherwise."""
    store = store or store_for(settings)
    latest = store.latest(run_id)
    if latest is None:
        raise TaskError(f"no run {run_id!r}")
    stage: Literal["ingest", "analysis"] = "ingest" if latest[1].get("phase") == Phase.INIT.value else "analysis"
    send(run_id, job, stage, settings=settings, adopt=adopt)


_health_cache: dict[str, tuple[float, dict[str, Any]]] = {}


def broker_status(settings: Settings, timeout: float = 0.5, ttl: float = 5.0) -> dict[str, Any]:
    """For /v1/health: the mode, the broker (reachable?) and the workers answering a ping (cached a few s)."""
    url = settings.broker_url
    if not url:
        return {"mode": "embedded", "broker": None, "reachable": None, "workers": []}
    hit = _health_cache.get(url)
    if hit and time.monotonic() - hit[0] < ttl:
        return hit[1]
    out: dict[str, Any] = {"mode": "celery", "broker": redact(url), "reachable": False, "workers": []}
    try:
        from kombu import Connection

        app = celery_app(settings, url)
        with Connection(url, connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.1, interval_max=0.1)
        out["reachable"] = True
        replies = app.control.ping(timeout=timeout) or []
        out["workers"] = sorted(name for r in replies for name in r)
        out["queues"] = [queue_name("ingest", settings), queue_name("analysis", settings)]
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    _health_cache[url] = (time.monotonic(), out)
    return out


def _is_chunk(job: dict[str, Any] | None) -> bool:
    """A lease of a portfolio chunk (``engine.jobs.chunks``), not of a run."""
    return isinstance(job, dict) and job.get("kind") == "chunk"


# --- the resumer -------------------------------------------------------------------------------------------
class Resumer:
    """Takes over interrupted runs (their lease's process died): once at start, then every ``interval`` s.

    With a broker it enqueues them (a worker resumes them); without, it advances them in its own thread.
    A run taken over ``max_attempts`` times is stopped with status ``error`` instead of looping forever."""

    def __init__(self, store: CaseStore, settings: Settings, *, interval: float | None = None) -> None:
        self.store = store
        self.settings = settings
        self.interval = interval if interval is not None else settings.resume_interval
        self.max_attempts = settings.resume_max_attempts
        self.lost_grace = settings.lost_message_grace_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def pass_once(self) -> list[str]:
        """One sweep; returns the run ids taken over."""
        taken = []
        for orphan in self.store.orphans():
            run_id = orphan["case_id"]
            if _is_chunk(orphan["job"]):
                if self._resume_chunk(orphan):
                    taken.append(run_id)
                continue
            try:
                job = Job.model_validate(orphan["job"] or {})
            except Exception:
                job = Job()
            try:
                if orphan["attempts"] >= self.max_attempts:
                    self._give_up(run_id, job, orphan["attempts"])
                elif self.settings.broker_url:
                    token = new_owner("queued")
                    if self.store.claim(run_id, token, self.store.leases.queued, adopt=None):
                        submit(run_id, job, settings=self.settings, adopt=token, store=self.store)
                    else:
                        continue
                else:
                    res = advance(run_id, job, settings=self.settings, store=self.store)
                    if res.outcome == "busy":
                        continue
                taken.append(run_id)
                log.info("resumed interrupted run %s", run_id)
            except Exception:
                log.exception("could not resume run %s", run_id)
            if self._stop.is_set():
                break
        if self.settings.broker_url and not self._stop.is_set():
            taken += self.requeue_lost()
        return taken

    def _resume_chunk(self, orphan: dict[str, Any]) -> bool:
        """An interrupted portfolio chunk (its worker died): sent again, or given up after ``max_attempts``."""
        from lexlogic.engine.jobs import chunks

        cid = orphan["case_id"]
        try:
            if orphan["attempts"] >= self.max_attempts:
                chunks.give_up(self.store, cid, chunks.ChunkJob.model_validate(orphan["job"]), orphan["attempts"])
                return True
            if resume_chunk(self.store, self.settings, cid, orphan["job"]):
                log.info("resumed interrupted chunk %s", cid)
                return True
        except Exception:
            log.exception("could not resume chunk %s", cid)
        return False

    def requeue_lost(self) -> list[str]:
        """Runs whose message the broker lost (a restart without persistence), sent again: see jobs.lost."""
        from lexlogic.engine.jobs import lost

        url = self.settings.broker_url
        if not url or not self.store.queued(self.lost_grace):  # nothing queued long enough: no broker call
            return []
        queues: dict[Literal["ingest", "analysis"], str] = {
            "ingest": queue_name("ingest", self.settings),
            "analysis": queue_name("analysis", self.settings),
        }
        depths = lost.queue_depths(url, queues)
        if depths is None:
            return []
        taken = []
        for lease in lost.lost_leases(self.store, depths, self.lost_grace):
            run_id = lease["case_id"]
            try:
                if lost.requeue(self.store, lease, self._sender(lease["job"])):
                    taken.append(run_id)
                    log.warning("run %s: its message was lost by the broker: sent again", run_id)
            except Exception:
                log.exception("could not send run %s again", run_id)
        return taken

    def _sender(self, raw: dict[str, Any] | None) -> Any:
        """How to send a lost message again: a portfolio chunk as a chunk, a run from its head."""
        if _is_chunk(raw):
            from lexlogic.engine.jobs import chunks

            chunk = chunks.ChunkJob.model_validate(raw)
            return lambda cid, token: send_chunk(cid, chunk, settings=self.settings, adopt=token)
        try:
            job = Job.model_validate(raw or {})
        except Exception:
            job = Job()
        return lambda rid, token: submit(rid, job, settings=self.settings, adopt=token, store=self.store)

    def _give_up(self, run_id: str, job: Job, attempts: int) -> None:
        orch = orchestrator_for(self.store, job, self.settings)
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
        if not self.settings.resume:
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
