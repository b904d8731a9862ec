"""Running a case through the orchestrator FSM (progress as server-sent events) and time travel.

A run first claims the case's lease (``engine.store.cases``): a second run, a restart or a restore while it
works answers 409 before anything is written, on this replica or any other. With a broker configured
(``LEXLOGIC_BROKER_URL``) the run is enqueued (``engine.tasks``) and this replica follows it in the database:
the event stream, the states and the verdict are the same whether the run is local or on a worker.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Services, Svc
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.api.routers._state import fresh_head, head, orchestrator
from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase, read_state
from lexlogic.engine.jobs import tasks
from lexlogic.engine.store.api_cases import ApiCase
from lexlogic.engine.store.cases import RunBusyError, new_owner
from lexlogic.logic.errors import UnavailableError
from lexlogic.logic.model_defaults import new_list

router = APIRouter(prefix="/v1/cases/{case_id}", tags=["runs"])


class StateSummary(BaseModel):
    seq: int
    phase: str = Field(examples=["EVALUATING"])
    status: str = Field(examples=["running"])
    hash: str
    note: str
    at: str | None = None


class StateSnapshot(BaseModel):
    seq: int
    state: dict[str, Any]


class RunResult(BaseModel):
    case_id: str
    phase: str
    status: str
    message: str
    head_seq: int
    pending_question: dict[str, Any] | None = None
    log: list[str] = Field(default_factory=new_list)


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _transition(state: CaseState, seq: int) -> dict[str, Any]:
    return {
        "seq": seq,
        "phase": state.phase.value,
        "status": state.status,
        "message": state.message,
        "log": state.log[-1] if state.log else "",
    }


def _prepare(svc: Services, case: ApiCase, restart: bool) -> CaseState:
    _, state = fresh_head(svc, case)
    if case.origin == "documents" and not svc.cases.list_documents(case.tenant_id, case.id):
        raise ProblemError(409, "upload at least one document before running this case", slug="no-documents")
    if restart:
        fresh = CaseState(case_id=case.run_id, pack=case.pack, source=state.source, answers=state.answers)
        if case.origin == "facts":
            fresh.phase, fresh.case_file = Phase.PLANNING, state.case_file
        return fresh
    if state.status in ("stopped_budget", "stopped_loop", "error"):
        state.status = "running"
    return state


def api_job(case: ApiCase) -> tasks.Job:
    """A run of the API: its scope (the tenant) says whose document cache the worker reads through."""
    return tasks.Job(kind="api", scope=case.tenant_id)


def _busy() -> ProblemError:
    return ProblemError(409, "this case is already running", slug="busy", headers={"Retry-After": "2"})


def _claim(svc: Services, case: ApiCase, remote: bool, on_transition=None) -> Orchestrator:  # type: ignore[no-untyped-def]
    """The busy check, before any write: the case's lease, for this request's run."""
    orch = orchestrator(svc, case, on_transition)
    orch.job = api_job(case).model_dump()
    try:
        if remote:  # held for the queued run (a worker adopts it), no heartbeat from here
            orch.claim(case.run_id, owner=new_owner("queued"), ttl=svc.runs.leases.queued)
        else:
            orch.claim(case.run_id)
    except RunBusyError:
        raise _busy() from None
    return orch


def _run(orch: Orchestrator, case: ApiCase, state: CaseState) -> CaseState:
    """Advance under the lease claimed by ``_claim``; releases it at the end."""
    try:
        return orch.run(state) if state.status == "running" else state
    finally:
        orch.let_go(case.run_id)


def _enqueue(svc: Services, orch: Orchestrator, case: ApiCase, state: CaseState, head_status: str) -> int:
    """Hand the run to the workers (the lease passes to them with its token); returns the seq to follow from."""
    h = orch._holds[case.run_id]
    try:
        if state.status != head_status:  # a stopped run asked to go on: the worker starts from the head
            orch.persist(state, "resume")
        seq = h.seq
        orch.let_go(case.run_id, release=False)
        tasks.submit(case.run_id, api_job(case), settings=svc.settings.core, adopt=h.owner, store=svc.runs)
        return seq
    except UnavailableError as exc:
        svc.runs.release(case.run_id, h.owner)
        raise ProblemError(503, str(exc), slug="broker-unavailable", headers={"Retry-After": "5"}) from None
    except BaseException:
        svc.runs.release(case.run_id, h.owner)
        raise


def _follow(svc: Services, case: ApiCase, after: int) -> Iterator[tuple[int, CaseState]]:
    """The snapshots a remote run writes after ``after``, until its lease is released (or the settings'
    ``run_wait_seconds``)."""
    deadline = time.monotonic() + svc.settings.core.run_wait_seconds
    last = after
    while True:
        running = svc.runs.lease(case.run_id) is not None
        head_seq = svc.runs.head_seq(case.run_id)
        for seq in range(last + 1, head_seq + 1):
            yield seq, read_state(svc.runs.get(case.run_id, seq), f"case {case.id}, state {seq}")
        last = max(last, head_seq)
        if not running:
            return
        if time.monotonic() > deadline:
            raise ProblemError(
                504,
                "the run is still going on a worker: follow GET …/states",
                slug="timeout",
                headers={"Retry-After": "5"},
            )
        time.sleep(0.2)


def _result(svc: Services, case: ApiCase, state: CaseState) -> RunResult:
    seq, _ = head(svc, case)
    return RunResult(
        case_id=case.id,
        phase=state.phase.value,
        status=state.status,
        message=state.message,
        head_seq=seq,
        pending_question=state.pending_question,
        log=state.log[-20:],
    )


@router.post(
    "/run",
    summary="Run the case (server-sent events by default)",
    responses={
        200: {
            "description": "`text/event-stream` of `transition` events then one `done` (or "
            "`error`) event; `application/json` RunResult when stream=false",
            "content": {
                "text/event-stream": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/RunResult"}},
            },
        },
        **problem_responses(401, 404, 409, 422),
    },
)
def run_case(
    case: Case,
    svc: Svc,
    stream: bool = Query(True, description="SSE progress; false → one JSON result"),
    restart: bool = Query(False, description="start again from the documents / facts (history kept)"),
):
    remote = svc.settings.core.broker_url is not None
    events: queue.Queue[str | None] = queue.Queue()
    orch = _claim(svc, case, remote, lambda s, seq: events.put(_event("transition", _transition(s, seq))))
    try:
        head_status = head(svc, case)[1].status
        state = _prepare(svc, case, restart)  # read under the lease: nobody else writes now
        if restart:
            orch.persist(state, "restart")
    except BaseException:
        orch.let_go(case.run_id)
        raise
    if remote:
        return _remote(svc, case, orch, state, head_status, stream)
    if not stream:
        orch.on_transition = None
        final = _run(orch, case, state)
        return _result(svc, case, final)
    while not events.empty():  # the restart snapshot: the stream starts after it
        events.get_nowait()

    def work() -> None:
        try:
            final = _run(orch, case, state)
            events.put(_event("done", _result(svc, case, final).model_dump(mode="json")))
        except ProblemError as exc:
            events.put(_event("error", {"status": exc.status, "detail": exc.detail}))
        except Exception as exc:
            events.put(_event("error", {"status": 500, "detail": f"{type(exc).__name__}: {exc}"}))
        finally:
            events.put(None)

    # started now, not when the client reads: a client gone before reading must not leave the lease held
    threading.Thread(target=work, daemon=True, name=f"run-{case.id}").start()

    def gen() -> Iterator[str]:
        yield _event("start", {"case_id": case.id, "phase": state.phase.value, "status": state.status})
        while (item := events.get()) is not None:
            yield item

    return StreamingResponse(
        gen(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


def _remote(svc: Services, case: ApiCase, orch: Orchestrator, state: CaseState, head_status: str, stream: bool):  # type: ignore[no-untyped-def]
    """The run on a worker; this replica answers from the database (the same events and result)."""
    orch.on_transition = None
    after = _enqueue(svc, orch, case, state, head_status)
    if not stream:
        final = state
        for _, snapshot in _follow(svc, case, after):
            final = snapshot
        return _result(svc, case, final)

    def gen() -> Iterator[str]:
        yield _event("start", {"case_id": case.id, "phase": state.phase.value, "status": state.status})
        final = state
        try:
            for seq, final in _follow(svc, case, after):
                yield _event("transition", _transition(final, seq))
            yield _event("done", _result(svc, case, final).model_dump(mode="json"))
        except ProblemError as exc:
            yield _event("error", {"status": exc.status, "detail": exc.detail})

    return StreamingResponse(
        gen(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


@router.get(
    "/states",
    response_model=list[StateSummary],
    summary="History of persisted states",
    responses=problem_responses(401, 404, 422),
)
def list_states(case: Case, svc: Svc) -> list[StateSummary]:
    return [StateSummary(**s) for s in svc.runs.states(case.run_id)]


@router.get(
    "/states/{seq}",
    response_model=StateSnapshot,
    summary="One persisted state",
    responses=problem_responses(401, 404, 422),
)
def get_state(case: Case, svc: Svc, seq: int = Path(ge=1, le=2**31 - 1)) -> StateSnapshot:
    try:
        return StateSnapshot(seq=seq, state=svc.runs.get(case.run_id, seq))
    except KeyError:
        raise ProblemError(404, f"no state {seq} in this case", slug="not-found") from None


@router.post(
    "/states/{seq}/restore",
    response_model=StateSummary,
    summary="Make an old state the head again",
    responses=problem_responses(401, 404, 409, 422),
)
def restore_state(case: Case, svc: Svc, seq: int = Path(ge=1, le=2**31 - 1)) -> StateSummary:
    try:
        new = svc.runs.restore(case.run_id, seq)  # refused while a run holds the case's lease
    except RunBusyError:
        raise ProblemError(409, "this case is running", slug="busy", headers={"Retry-After": "2"}) from None
    except KeyError:
        raise ProblemError(404, f"no state {seq} in this case", slug="not-found") from None
    return StateSummary(**svc.runs.states(case.run_id)[new - 1])
