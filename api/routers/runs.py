"""Running a case through the orchestrator FSM (progress as server-sent events) and time travel."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from lexlogic.api.deps import Case, Services, Svc
from lexlogic.api.problems import ProblemError, problem_responses
from lexlogic.api.routers._state import fresh_head, head, orchestrator
from lexlogic.engine.orchestrator import CaseState, Phase
from lexlogic.engine.store.api_cases import ApiCase

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
    log: list[str] = Field(default_factory=list)


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


def _run(svc: Services, case: ApiCase, state: CaseState, on_transition=None) -> CaseState:  # type: ignore[no-untyped-def]
    lock = svc.case_lock(case.id)
    if not lock.acquire(blocking=False):
        raise ProblemError(409, "this case is already running", slug="busy")
    try:
        orch = orchestrator(svc, on_transition)
        return orch.run(state) if state.status == "running" else state
    finally:
        lock.release()


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
    state = _prepare(svc, case, restart)
    if restart:
        orchestrator(svc).persist(state, "restart")
    if not stream:
        final = _run(svc, case, state)
        return _result(svc, case, final)
    lock = svc.case_lock(case.id)
    if lock.locked():
        raise ProblemError(409, "this case is already running", slug="busy")
    events: queue.Queue[str | None] = queue.Queue()

    def work() -> None:
        try:
            final = _run(svc, case, state, lambda s, seq: events.put(_event("transition", _transition(s, seq))))
            events.put(_event("done", _result(svc, case, final).model_dump(mode="json")))
        except ProblemError as exc:
            events.put(_event("error", {"status": exc.status, "detail": exc.detail}))
        except Exception as exc:
            events.put(_event("error", {"status": 500, "detail": f"{type(exc).__name__}: {exc}"}))
        finally:
            events.put(None)

    def gen() -> Iterator[str]:
        yield _event("start", {"case_id": case.id, "phase": state.phase.value, "status": state.status})
        threading.Thread(target=work, daemon=True, name=f"run-{case.id}").start()
        while (item := events.get()) is not None:
            yield item

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
    lock = svc.case_lock(case.id)
    if not lock.acquire(blocking=False):
        raise ProblemError(409, "this case is running", slug="busy")
    try:
        new = svc.runs.restore(case.run_id, seq)
    except KeyError:
        raise ProblemError(404, f"no state {seq} in this case", slug="not-found") from None
    finally:
        lock.release()
    return StateSummary(**svc.runs.states(case.run_id)[new - 1])
