"""The main job on a dossier directory: ingest → perceive → plan → analyse → evaluate → (question) →
verdict, persisted at every transition and resumable after a kill -9.

The case id is derived from the dossier's absolute path, so running the same command again finds the last
snapshot and continues from it (a finished case is not recomputed; ``fresh=True`` restarts). No terminal
I/O here: the caller passes an ``answer_provider`` (questions) and an ``on_transition`` (progress).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.evaluation import Evaluator
from lexlogic.engine.orchestrator import AnswerProvider, CaseState, Orchestrator, Phase
from lexlogic.engine.packs import dossier_pack
from lexlogic.engine.report import render_report
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.verdict_model import Verdict
from lexlogic.logic.facts import read_answer


class DossierRun(BaseModel):
    """Where a dossier run stands after this call (also written as ``result.json`` beside the report)."""

    case_id: str
    status: str = Field(description="verdict | awaiting_answer | inconsistent | stopped_budget | stopped_loop")
    phase: str
    message: str = ""
    resumed_from: int | None = Field(default=None, description="the snapshot this call resumed from")
    verdict: Verdict | None = None
    question: dict[str, Any] | None = Field(default=None, description="the question the run waits on")
    case_file: dict[str, Any] | None = None
    plan: dict[str, Any] | None = None
    answers: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=list)
    states: int = 0
    report: str
    json_path: str
    seconds: float


def case_id_for(directory: str | Path) -> str:
    return "dossier-" + hashlib.sha1(str(Path(directory).resolve()).encode()).hexdigest()[:12]


def coerce_answer(answer: str, question: dict[str, Any]) -> Any:
    """A typed answer: one of the question's options, else as ``read_answer`` reads it (French decimal
    commas accepted)."""
    low = answer.strip().lower()
    for opt in question.get("options") or []:
        if str(opt).lower() == low:
            return opt
    value = read_answer(answer)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "."))
        except ValueError:
            return value
    return value


def run_dossier(
    directory: str | Path,
    *,
    db_url: str | None = None,
    case_id: str | None = None,
    answers: dict[str, Any] | None = None,
    answer_provider: AnswerProvider | None = None,
    on_transition: Any = None,
    on_start: Any = None,
    fresh: bool = False,
    out_dir: str | Path | None = None,
    evaluator: Evaluator | None = None,
    llm: Any = None,
    max_steps: int | None = None,
) -> DossierRun:
    """Run (or resume) the analysis of ``directory``.

    ``answers``: answers given up front (asked questions are answered from them first);
    ``answer_provider(question, state)``: asked when a question has no given answer (None: stop there);
    ``on_transition(state, seq)``: called after every persisted transition; ``on_start(case_id, resumed_from,
    state)``: called once before the run.
    """
    t0 = time.perf_counter()
    directory = Path(directory)
    case_id = case_id or case_id_for(directory)
    store = CaseStore(db_url)
    given = dict(answers or {})

    def provide(question: dict[str, Any], state: CaseState) -> Any:
        if question["fact"] in given:
            return given.pop(question["fact"])
        return answer_provider(question, state) if answer_provider is not None else None

    if llm is None:  # an OpenAI-compatible endpoint when LEXLOGIC_LLM_BASE_URL is set; offline otherwise
        from lexlogic.bridges.llm import LLMClient

        llm = LLMClient.from_env()
    orch = Orchestrator(store, evaluator, llm=llm, answer_provider=provide, on_transition=on_transition)
    latest = None if fresh else store.latest(case_id)
    resumed_from = None
    if latest is None:
        state = orch.start(case_id, str(directory.resolve()), pack=dossier_pack(directory))
    else:
        resumed_from, raw = latest
        state = CaseState.model_validate(raw)
    if on_start is not None:
        on_start(case_id, resumed_from, state)
    if max_steps is not None:
        state.budget.max_steps = max_steps
    if state.status in ("stopped_budget", "stopped_loop") and (max_steps or fresh):
        state.status = "running"
    if given and state.phase is not Phase.INIT:
        volunteered = {k: v for k, v in given.items() if state.answers.get(k) != v}
        given.clear()
        if volunteered:
            state = orch.add_answers(state, volunteered)
            orch.persist(state, "answers: " + ", ".join(volunteered))
    if state.status == "running" or (state.status == "awaiting_answer" and (given or answer_provider)):
        state = orch.run(state)
    t = time.perf_counter()
    documents = orch.documents(state) if state.documents else []
    html_report = render_report(state.model_dump(mode="json"), documents)
    state.timings["report"] = round(time.perf_counter() - t, 6)
    out = Path(out_dir) if out_dir else Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic")) / "runs" / case_id
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.html").write_text(html_report, encoding="utf-8")
    result = DossierRun(
        case_id=case_id,
        status=state.status,
        phase=state.phase.value,
        message=state.message,
        resumed_from=resumed_from,
        verdict=state.evaluation,
        question=state.pending_question,
        case_file=state.case_file,
        plan=state.plan.model_dump(mode="json") if state.plan else None,
        answers=state.answers,
        timings=state.timings,
        log=list(state.log),
        states=len(store.states(case_id)),
        report=str(out / "report.html"),
        json_path=str(out / "result.json"),
        seconds=round(time.perf_counter() - t0, 4),
    )
    (out / "result.json").write_text(result.model_dump_json(indent=1), encoding="utf-8")
    store.close()
    return result
