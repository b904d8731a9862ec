"""The main job on a dossier directory: ingest → perceive → plan → analyse → evaluate → (question) →
verdict, persisted at every transition and resumable after a kill -9.

The case id is derived from the dossier's absolute path; a run is keyed by the digest of its INPUTS (every
file of the dossier and the pack's content). Running the same command again resumes the last snapshot only
when the inputs are the same; when a piece was added, edited or removed, or the pack changed, the run starts
afresh and says why (``DossierRun.restarted_because``). ``fresh=True`` always restarts; ``resume=True``
resumes even over changed inputs (and says so). No terminal I/O here: the caller passes an
``answer_provider`` (questions) and an ``on_transition`` (progress).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from lexlogic.engine.case.evaluation import CaseEvaluator, Evaluator
from lexlogic.engine.case.machine import AnswerProvider, CaseState, Orchestrator, Phase, RunInputs
from lexlogic.engine.packs.library import LoadedPack, PackLibrary
from lexlogic.engine.store.cases import CaseStore, LeaseTimes
from lexlogic.engine.verdict.model import Verdict
from lexlogic.logic.facts import read_answer
from lexlogic.logic.model_defaults import new_list
from lexlogic.settings import Settings


class DossierRun(BaseModel):
    """Where a dossier run stands after this call (also written as ``result.json`` beside the report)."""

    case_id: str
    status: str = Field(description="verdict | awaiting_answer | inconsistent | stopped_budget | stopped_loop")
    phase: str
    message: str = ""
    resumed_from: int | None = Field(default=None, description="the snapshot this call resumed from")
    restarted_because: str | None = Field(
        default=None, description="why an earlier run of this dossier was not resumed (its inputs changed)"
    )
    verdict: Verdict | None = None
    question: dict[str, Any] | None = Field(default=None, description="the question the run waits on")
    case_file: dict[str, Any] | None = None
    plan: dict[str, Any] | None = None
    answers: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=new_list)
    states: int = 0
    report: str = Field(description="the HTML report's path ('' when no renderer was given)")
    json_path: str
    seconds: float


def dossier_inputs(directory: Path, loaded: LoadedPack) -> RunInputs:
    """The digest of what a run reads: each file of the dossier (hidden ones aside) and the pack's content."""
    documents: dict[str, str] = {}
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            documents[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256()
    for name, sha in documents.items():
        h.update(f"{name}\0{sha}\n".encode())
    h.update(f"{loaded.name}\0{loaded.digest}".encode())
    return RunInputs(
        digest=h.hexdigest(),
        documents=documents,
        pack=loaded.name,
        pack_version=loaded.digest,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def _pieces(n: int, word: str) -> str:
    return f"{n} pièce{'s' if n > 1 else ''} {word}{'s' if n > 1 else ''}"


def inputs_changed(before: RunInputs | None, now: RunInputs) -> str | None:
    """Why the earlier run is not this one (None when its inputs are the same), in the user's words."""
    if before is None:
        return "l'analyse antérieure ne garde pas l'empreinte de ses pièces"
    if before.digest == now.digest:
        return None
    when = datetime.fromisoformat(before.recorded_at).strftime("%d/%m/%Y %H:%M") if before.recorded_at else "?"
    old, new = before.documents, now.documents
    parts = []
    for n, word, names in (
        (len(set(new) - set(old)), "ajoutée", sorted(set(new) - set(old))),
        (len(set(old) - set(new)), "retirée", sorted(set(old) - set(new))),
        (
            len([k for k in new if k in old and old[k] != new[k]]),
            "modifiée",
            [k for k in new if k in old and old[k] != new[k]],
        ),
    ):
        if n:
            parts.append(f"{_pieces(n, word)} ({', '.join(names[:5])}{', …' if n > 5 else ''})")
    if before.pack != now.pack:
        parts.append(f"pack {before.pack} → {now.pack}")
    elif before.pack_version != now.pack_version:
        parts.append(f"règles du pack {now.pack} modifiées")
    return " ; ".join(parts or ["entrées modifiées"]) + f" depuis l'analyse du {when}"


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
    packs: PackLibrary,
    settings: Settings | None = None,
    db_url: str | None = None,
    case_id: str | None = None,
    answers: dict[str, Any] | None = None,
    answer_provider: AnswerProvider | None = None,
    on_transition: Any = None,
    on_start: Any = None,
    fresh: bool = False,
    resume: bool = False,
    out_dir: str | Path | None = None,
    report_path: str | Path | None = None,
    evaluator: Evaluator | None = None,
    llm: Any = None,
    max_steps: int | None = None,
    inference: str = "auto",
    render_report: Callable[[dict[str, Any], list[Any], Any], str] | None = None,
    on_progress: Callable[[str, int, int, str], None] | None = None,
) -> DossierRun:
    """Run (or resume) the analysis of ``directory`` with the rule packs ``packs``.

    ``answers``: answers given up front (asked questions are answered from them first);
    ``answer_provider(question, state)``: asked when a question has no given answer (None: stop there);
    ``on_transition(state, seq)``: called after every persisted transition; ``on_start(case_id, resumed_from,
    state, restarted_because)``: called once before the run; ``report_path``: where the HTML report goes
    (default ``<out_dir>/report.html``); ``render_report(state, documents, pack)``: the report's HTML (the faces
    own the markup: ``lexlogic.api.report_html.render_report``), written only when given; ``on_progress(stage,
    done, total, item)``: inside a long phase (each document read).
    """
    t0 = time.perf_counter()
    settings = settings or Settings.defaults()
    directory = Path(directory)
    case_id = case_id or case_id_for(directory)
    store = CaseStore(db_url or settings.database, LeaseTimes.from_settings(settings))
    given = dict(answers or {})

    def provide(question: dict[str, Any], state: CaseState) -> Any:
        if question["fact"] in given:
            return given.pop(question["fact"])
        return answer_provider(question, state) if answer_provider is not None else None

    if llm is None and settings.llm_base_url:  # an OpenAI-compatible endpoint when configured; offline otherwise
        from lexlogic.bridges.llm import LLMClient

        llm = LLMClient(settings.llm_base_url, settings.llm_model, settings.llm_api_key)
    orch = Orchestrator(
        store,
        evaluator or CaseEvaluator(packs, inference=inference),
        packs=packs,
        llm=llm,
        answer_provider=provide,
        on_transition=on_transition,
        step_delay=settings.step_delay,
        documents_cache=settings.documents_cache,
    )
    orch.on_progress = on_progress
    pack_name = packs.for_dossier(directory)
    inputs = dossier_inputs(directory, packs.get(pack_name))
    state, resumed_from, because = _start_or_resume(orch, store, case_id, directory, pack_name, inputs, fresh, resume)
    if on_start is not None:
        on_start(case_id, resumed_from, state, because)
    if max_steps is not None:
        state.budget.max_steps = max_steps
    if state.status in ("stopped_budget", "stopped_loop") and (max_steps or fresh):
        state.status = "running"
    if state.phase is Phase.INIT and state.status == "running":  # ingest and perceive (a facts file starts after)
        if settings.nlp_warmup:  # spaCy loads while the documents are read
            from lexlogic.engine.perception.nlp import warm_up

            warm_up(settings.nlp_cache)
        state = orch.run(state, until=lambda s: s.phase is not Phase.INIT)
    if given and state.phase is not Phase.INIT:  # given answers are volunteered right after perception
        volunteered = {k: v for k, v in given.items() if state.answers.get(k) != v}
        given.clear()
        if volunteered:
            state = orch.add_answers(state, volunteered)
            orch.persist(state, "answers: " + ", ".join(volunteered))
    state = orch.reconsider(state)  # asked with other options (what-if, dynamic rules): not the saved verdict
    if state.status == "running" or (state.status == "awaiting_answer" and (given or answer_provider)):
        state = orch.run(state)
    return _finish(
        orch, store, state, settings, case_id, resumed_from, because, out_dir, report_path, t0, render_report
    )


def _start_or_resume(
    orch: Orchestrator,
    store: CaseStore,
    case_id: str,
    directory: Path,
    pack_name: str,
    inputs: RunInputs,
    fresh: bool,
    resume: bool,
) -> tuple[CaseState, int | None, str | None]:
    """The state to run from: the last snapshot when its inputs are these (or ``resume``), else a new run."""
    latest = None if fresh else store.latest(case_id)
    because = None
    if latest is not None:
        try:
            previous = CaseState.model_validate(latest[1])
        except ValidationError as exc:  # written by another version: its snapshots stay, a new run starts
            latest, because = (
                None,
                f"l'analyse enregistrée n'est pas lisible par cette version ({exc.error_count()} écarts)",
            )
    if latest is not None:
        because = inputs_changed(previous.inputs, inputs)
        if because is None or resume:
            if because is not None:
                previous.log.append(f"reprise demandée malgré : {because}")
            return previous, latest[0], None
    state = orch.start(case_id, str(directory.resolve()), pack=pack_name, inputs=inputs)
    if because is not None:
        state.log.append(f"nouvelle analyse : {because}")
    return state, None, because


def _finish(
    orch: Orchestrator,
    store: CaseStore,
    state: CaseState,
    settings: Settings,
    case_id: str,
    resumed_from: int | None,
    because: str | None,
    out_dir: str | Path | None,
    report_path: str | Path | None,
    t0: float,
    render_report: Callable[[dict[str, Any], list[Any], Any], str] | None = None,
) -> DossierRun:
    """Write the report (when a renderer is given) and ``result.json``; the run's summary."""
    out = Path(out_dir) if out_dir else settings.runs_dir / case_id
    out.mkdir(parents=True, exist_ok=True)
    report = Path(report_path) if report_path else out / "report.html"
    if render_report is not None:
        t = time.perf_counter()
        documents = orch.documents(state) if state.documents else []
        html = render_report(state.model_dump(mode="json"), documents, orch.packs.pack(state.pack))
        report.write_text(html, encoding="utf-8")
        state.timings["report"] = round(time.perf_counter() - t, 6)
    result = DossierRun(
        case_id=case_id,
        status=state.status,
        phase=state.phase.value,
        message=state.message,
        resumed_from=resumed_from,
        restarted_because=because,
        verdict=state.evaluation,
        question=state.pending_question,
        case_file=state.case_file,
        plan=state.plan.model_dump(mode="json") if state.plan else None,
        answers=state.answers,
        timings=state.timings,
        log=list(state.log),
        states=store.head_seq(case_id),
        report=str(report) if render_report is not None else "",
        json_path=str(out / "result.json"),
        seconds=round(time.perf_counter() - t0, 4),
    )
    (out / "result.json").write_text(result.model_dump_json(indent=1), encoding="utf-8")
    store.close()
    return result
