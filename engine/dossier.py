"""The main job on a dossier directory: ingest → perceive → plan → evaluate → (question) → verdict,
with a rich progress display, persisted at every transition and resumable after a kill -9.

The case id is derived from the dossier's absolute path, so running the same command again finds
the last snapshot and continues from it (a finished case is not recomputed; ``fresh=True`` restarts).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from lexlogic.engine.evaluators import Evaluator
from lexlogic.engine.orchestrator import CaseState, Orchestrator, Phase
from lexlogic.engine.report import render_report
from lexlogic.engine.store.cases import CaseStore
from lexlogic.logic.facts import read_answer


def case_id_for(directory: str | Path) -> str:
    return "dossier-" + hashlib.sha1(str(Path(directory).resolve()).encode()).hexdigest()[:12]


def _coerce(answer: str, question: dict[str, Any]) -> Any:
    """An answer typed in the terminal: one of the question's options, else as `read_answer` reads it
    (French decimal commas accepted)."""
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
    interactive: bool = False,
    fresh: bool = False,
    out_dir: str | Path | None = None,
    progress: bool = True,
    evaluator: Evaluator | None = None,
    llm: Any = None,
    max_steps: int | None = None,
) -> dict[str, Any]:
    """Run (or resume) the analysis of ``directory``; returns a summary dict (also written as JSON)."""
    t0 = time.perf_counter()
    directory = Path(directory)
    console = Console(stderr=True, quiet=not progress)
    case_id = case_id or case_id_for(directory)
    store = CaseStore(db_url)
    given = dict(answers or {})

    def provide(question: dict[str, Any], state: CaseState) -> Any:
        if question["fact"] in given:
            return given.pop(question["fact"])
        if interactive and sys.stdin.isatty():
            console.print(
                f"[bold]Question[/bold] ({question['fact']}, EIG {question.get('eig', 0):.3f} bit): "
                f"{question['question']}"
            )
            reply = console.input("réponse (vide pour arrêter) > ")
            return _coerce(reply, question) if reply.strip() else None
        return None

    def show(state: CaseState, seq: int) -> None:
        done = sum(1 for t in state.plan.tasks if t.status in ("done", "skipped")) if state.plan else 0
        total = len(state.plan.tasks) if state.plan else 0
        console.print(
            f"[dim]#{seq:>3}[/dim] [bold cyan]{state.phase.value:<11}[/bold cyan] "
            f"{state.status:<15} tâches {done}/{total}  {(state.log[-1] if state.log else '')[:70]}"
        )

    if llm is None:  # an OpenAI-compatible endpoint when LEXLOGIC_LLM_BASE_URL is set; offline otherwise
        from lexlogic.bridges.llm import LLMClient

        llm = LLMClient.from_env()
    orch = Orchestrator(store, evaluator, llm=llm, answer_provider=provide, on_transition=show)
    latest = None if fresh else store.latest(case_id)
    resumed_from = None
    if latest is None:
        state = orch.start(case_id, str(directory.resolve()))
        console.print(f"[bold]lexlogic[/bold] nouveau dossier {case_id} ({directory})")
    else:
        resumed_from, raw = latest
        state = CaseState.model_validate(raw)
        console.print(
            f"[bold]lexlogic[/bold] reprise de {case_id} à l'état #{resumed_from} ({state.phase.value}, {state.status})"
        )
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
    if state.status == "running" or (state.status == "awaiting_answer" and (given or interactive)):
        state = orch.run(state)
    t = time.perf_counter()
    documents = orch.documents(state) if state.documents else []
    html_report = render_report(state.model_dump(mode="json"), documents)
    state.timings["report"] = round(time.perf_counter() - t, 6)
    out = Path(out_dir) if out_dir else Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic")) / "runs" / case_id
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.html").write_text(html_report, encoding="utf-8")
    ev = state.evaluation or {}
    summary = {
        "case_id": case_id,
        "status": state.status,
        "phase": state.phase.value,
        "message": state.message,
        "resumed_from": resumed_from,
        "verdict": ev.get("verdict"),
        "question": state.pending_question,
        "questions": ev.get("questions", []),
        "posteriors": ev.get("posteriors"),
        "case_file": state.case_file,
        "plan": state.plan.model_dump(mode="json") if state.plan else None,
        "answers": state.answers,
        "timings": state.timings,
        "states": len(store.states(case_id)),
        "report": str(out / "report.html"),
        "json": str(out / "result.json"),
        "seconds": round(time.perf_counter() - t0, 4),
    }
    (out / "result.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    store.close()
    v = ev.get("verdict") or {}
    if state.phase is Phase.VERDICT:
        console.print(f"[bold green]Verdict[/bold green] : {v.get('label')} — {v.get('summary') or ''}")
    elif state.pending_question:
        console.print(
            f"[bold yellow]Question[/bold yellow] : {state.pending_question['question']} "
            f"(--answer {state.pending_question['fact']}=…)"
        )
    else:
        console.print(f"[bold red]{state.status}[/bold red] {state.message}")
    console.print(f"rapport : {out / 'report.html'}")
    return summary
