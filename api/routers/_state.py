"""Reading and advancing a case's orchestrator state (snapshots under the run id ``api-<case id>``)."""

from __future__ import annotations

from typing import Any

from lexlogic.api.deps import Services
from lexlogic.api.problems import ProblemError
from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.case.machine import CaseState, Orchestrator, read_state
from lexlogic.engine.documents.cache import scoped
from lexlogic.engine.documents.isolated import IngestLimits, isolated_reader
from lexlogic.engine.store.api_cases import ApiCase, repair_answers


def head(svc: Services, case: ApiCase, seq: int | None = None) -> tuple[int, CaseState]:
    """The head state; parsed once per (case, seq): a read costs one small query when nothing changed, none when
    the caller has just read the head's number (``seq``). Callers that modify the returned state must copy it
    first (``fresh_head``)."""
    seq = svc.runs.head_seq(case.run_id) if seq is None else seq
    if not seq:
        return 0, CaseState(case_id=case.run_id, pack=case.pack)
    hit = svc.heads.get(case.run_id)
    if hit is not None and hit[0] == seq and isinstance(hit[1], CaseState):
        return hit[0], hit[1]
    state = read_state(svc.runs.get(case.run_id, seq), f"case {case.id}, state {seq}")  # 409 if unreadable
    repair_answers(state, svc.packs)  # a case broken by bad stored data recovers (saved with the next state)
    svc.heads[case.run_id] = (seq, state)
    return seq, state


def fresh_head(svc: Services, case: ApiCase) -> tuple[int, CaseState]:
    """A private, mutable copy of the head state (to advance it)."""
    seq, state = head(svc, case)
    return seq, state.model_copy(deep=True)


def case_file_of(svc: Services, case: ApiCase, seq: int | None = None) -> tuple[CaseState, dict[str, Any]]:
    _, state = head(svc, case, seq)
    if not state.case_file:
        raise ProblemError(409, "this case has no facts yet: upload its documents and POST …/run first", slug="not-run")
    return state, state.case_file


def evaluator(svc: Services) -> CaseEvaluator:
    """The orchestrator's default evaluator: the same typed verdict as GET …/verdict (the same limits: the
    deployment's ``Settings.inference_*``, built once in ``deps.Services``)."""
    return CaseEvaluator(svc.packs, limits=svc.verdicts.limits)


def orchestrator(svc: Services, case: ApiCase, on_transition=None) -> Orchestrator:  # type: ignore[no-untyped-def]
    """The case's orchestrator: its uploads are read once per content, by the limited child, through the
    tenant's own cache (what the upload read is not read again)."""
    core = svc.settings.core
    cache = scoped(core.documents_cache, case.tenant_id)
    return Orchestrator(
        svc.runs,
        evaluator(svc),
        packs=svc.packs,
        on_transition=on_transition,
        step_delay=core.step_delay,
        documents_cache=cache,
        read_document=isolated_reader(IngestLimits.from_settings(core), cache),
    )
