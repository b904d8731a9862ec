"""`lexlogic analyze`: a case facts file or a dossier folder → the typed verdict, printed as text or JSON.

Terminal I/O (prompts, progress) lives here, not in the engine: the engine takes an answer provider and a
transition callback.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.prompt import Prompt

from lexlogic.api.cli_common import fail
from lexlogic.api.verdict_text import render_verdict
from lexlogic.engine.verdict_model import Verdict
from lexlogic.engine.verdict_service import build_verdict
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import CaseFile, check_value, read_answer
from lexlogic.logic.pack import RulePack

err = Console(stderr=True, highlight=False)


def analyse_facts(
    pack: RulePack,
    case: CaseFile,
    *,
    format: str,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    interactive: bool,
    html: Path | None,
    dynamic_rules: bool = False,
    evidence: Path | None = None,
    submissions: list[tuple[Literal["claimant", "defence"], str]] | None = None,
    proof: bool = False,
    debug: bool = False,
) -> None:
    answers = dict(answers)
    dynamic = run_dynamic_rules(case) if dynamic_rules else None
    claims_report = None
    if submissions and evidence is not None:
        case, claims_report = apply_submissions(pack, case, evidence, submissions)
    for name, value in list(answers.items()):
        try:
            answers[name] = check_value(pack.facts[name], value)
        except ValueError as exc:
            fail(f"--answer {name}: {exc}")
    case_dict = case.model_dump(mode="json")
    while True:
        try:
            verdict = build_verdict(case_dict, answers, whatif=whatif, dynamic=dynamic, sliders=False)
        except LexlogicError as exc:
            fail(str(exc))
        if not (interactive and verdict.best_question is not None):
            break
        q = verdict.best_question
        print(render_verdict(verdict, pack, debug=debug))
        raw = Prompt.ask(f"\n{q.question} ({q.fact})")
        try:
            answers[q.fact] = check_value(pack.facts[q.fact], read_answer(raw))
        except ValueError as exc:
            err.print(f"réponse invalide : {exc}")
    if html is not None:  # the printable report of a facts file (no documents: the facts table names the file)
        from lexlogic.engine.report import render_report

        report = render_report({"case_id": case.case_id, "evaluation": verdict.model_dump(mode="json")}, [])
        try:
            html.write_text(report, encoding="utf-8")
        except OSError as exc:
            fail(f"--html {html}: {exc.strerror or exc}")
    if format == "json":
        payload = verdict.model_dump(mode="json")
        if claims_report is not None:
            payload["submissions"] = claims_report.model_dump(mode="json")
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        if claims_report is not None:
            print(render_submissions(claims_report))
        print(render_verdict(verdict, pack, proof=proof, debug=debug))


def apply_submissions(
    pack: RulePack, case: CaseFile, evidence: Path, submissions: list[tuple[Literal["claimant", "defence"], str]]
) -> tuple[CaseFile, Any]:
    """Verify the parties' claims against the evidence folder and apply what the pieces support."""
    from lexlogic.engine.documents.ingest import ingest_dossier
    from lexlogic.engine.submissions import weigh_submissions
    from lexlogic.logic.facts import parse_case

    try:
        documents = ingest_dossier(evidence)
    except LexlogicError as exc:
        fail(str(exc))
    home = Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic"))
    index_dir = home / "evidence" / hashlib.sha256(str(evidence.resolve()).encode()).hexdigest()[:16]
    updated, report = weigh_submissions(pack, case.model_dump(mode="json"), documents, submissions, index_dir=index_dir)
    try:
        return parse_case(updated, pack, "<submissions>"), report
    except LexlogicError as exc:  # pragma: no cover - updates are validated value by value
        fail(str(exc))


def render_submissions(report: Any) -> str:
    lines = ["Conclusions des parties (vérifiées contre les pièces) :"]
    for c in report.claims:
        who = "demanderesse" if c.party == "claimant" else "défense"
        lines.append(f"  [{c.status:<12}] ({who}) {c.claim}")
        if c.effect:
            lines.append(f"      → {c.effect}")
        if c.fallacies:
            lines.append(f"      sophisme(s) : {', '.join(c.fallacies)} — fiabilité {c.reliability:.2f}")
    return "\n".join(lines) + "\n"


def run_dynamic_rules(case: CaseFile) -> list[Any]:
    """Active dynamic rules of the store, run in the sandbox on the case's plain facts."""
    from lexlogic.engine.dynamic_rules import DynamicRuleStore, run_active_rules

    facts = {name: fv.value for name, fv in case.facts.items()}
    try:
        evaluation = run_active_rules(DynamicRuleStore(), facts, case_id=case.case_id)
    except Exception as exc:
        fail(f"dynamic rules could not run: {exc}")
    for failure in evaluation.failures:
        err.print(f"dynamic rule {failure.rule_id} skipped: {failure.kind}/{failure.code}: {failure.message}")
    return list(evaluation.facts)


PHASES = {
    "INIT": "lecture des pièces",
    "PLANNING": "plan des vérifications",
    "EXECUTING": "vérifications",
    "EVALUATING": "verdict",
    "INTERACTING": "question",
    "VERDICT": "verdict rendu",
    "INCONSISTENT": "faits incohérents",
}


def dossier_console(progress: bool, interactive: bool) -> dict[str, Any]:
    """The terminal side of a dossier run: a progress bar on a terminal (one line per phase otherwise, never
    wrapped), questions at the prompt."""
    from rich.progress import BarColumn, Progress, TextColumn

    from lexlogic.engine.dossier import coerce_answer

    console = Console(stderr=True, quiet=not progress, soft_wrap=True)
    bar: dict[str, Any] = {}
    last_phase: list[str] = []

    def on_start(case_id: str, resumed_from: int | None, state: Any) -> None:
        if resumed_from is None:
            console.print(f"lexlogic : nouveau dossier ({state.source})", highlight=False)
        else:
            console.print(f"lexlogic : reprise du dossier à l'état n° {resumed_from}", highlight=False)
        if progress and console.is_terminal:
            bar["p"] = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                console=console,
                transient=True,
            )
            bar["p"].start()
            bar["t"] = bar["p"].add_task("démarrage", total=1)

    def on_transition(state: Any, seq: int) -> None:
        phase = PHASES.get(state.phase.value, state.phase.value)
        done = sum(1 for t in state.plan.tasks if t.status in ("done", "skipped", "failed")) if state.plan else 0
        total = len(state.plan.tasks) if state.plan else 1
        if "p" in bar:
            bar["p"].update(bar["t"], description=phase, completed=done, total=max(total, 1))
            if state.status != "running":
                bar["p"].stop()
        elif not last_phase or last_phase[-1] != phase:
            last_phase.append(phase)
            console.print(f"[{len(last_phase)}] {phase}", highlight=False, markup=False)

    def ask(question: dict[str, Any], state: Any) -> Any:
        if not (interactive and sys.stdin.isatty()):
            return None
        if "p" in bar:
            bar["p"].stop()
        eig = question.get("eig") or 0
        console.print(f"Question : {question['question']} (gain d'information attendu {eig:.3f} bit)", highlight=False)
        reply = console.input("réponse (vide pour arrêter) > ")
        return coerce_answer(reply, question) if reply.strip() else None

    return {"on_start": on_start, "on_transition": on_transition, "answer_provider": ask}


def analyse_dossier(
    source: Path,
    *,
    format: str,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    interactive: bool,
    html: Path | None,
    db_url: str | None = None,
    fresh: bool = False,
    proof: bool = False,
    debug: bool = False,
) -> None:
    """The case pipeline on a folder: documents → facts with grounding → verdict (resumable)."""
    from lexlogic.engine.dossier import run_dossier

    if whatif:
        fail("--whatif applies to a facts file; for a dossier, answer with --answer")
    out_dir = html.parent if html else None
    try:
        result = run_dossier(
            source,
            db_url=db_url,
            answers=answers,
            fresh=fresh,
            out_dir=out_dir,
            **dossier_console(progress=format != "json", interactive=interactive),
        )
    except LexlogicError as exc:
        fail(str(exc))
    if format == "json":
        print(result.model_dump_json(indent=2))
        return
    lines: list[str] = []
    if result.verdict is not None:
        from lexlogic.engine.verdict_service import load_pack

        lines.append(render_verdict(result.verdict, load_pack(result.verdict.pack)[0], proof=proof, debug=debug))
    if result.question and (result.verdict is None or result.verdict.best_question is None):
        lines.append(f"Question en attente : {result.question['question']}")
    if result.status not in ("verdict", "awaiting_answer") and result.message:
        lines.append(f"Arrêt : {result.message}")
    lines.append(f"Rapport HTML (faits reliés à leur passage exact) : {result.report}")
    print("\n".join(lines))


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of the verdict (`lexlogic schema verdict`)."""
    return Verdict.model_json_schema()
