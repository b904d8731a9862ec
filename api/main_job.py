"""The main job behind `lexlogic analyze`: symbolic analysis, probabilistic verdict, questions, output."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.prompt import Prompt

from lexlogic.api.render import render_analysis
from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.verdict import CaseVerdict, decide
from lexlogic.logic.facts import CaseFile, check_value, read_answer
from lexlogic.logic.pack import RulePack

err = Console(stderr=True, highlight=False)


def verdict_json(v: CaseVerdict) -> dict[str, Any]:
    """The JSON contract of `lexlogic analyze --format json`."""
    a = v.analysis
    payload = a.model_dump(mode="json", exclude={"values", "questions"})
    payload["values"] = {
        k: {"status": x.status.value, "value": x.value, "missing": x.missing} for k, x in a.values.items()
    }
    p = v.probability
    payload["status"] = v.status
    payload["questions"] = v.questions or a.questions
    if p is not None:
        payload["probability"] = {
            "p_liability": p.p_target,
            "by_narrative": p.p_target_by_narrative,
            "p_narrative": p.p_narrative,
            "entropy": p.entropy,
            "entropy_threshold": p.entropy_threshold,
            "method": p.method,
            "error": p.error,
            "n_worlds": p.n_worlds,
            "evaluator": p.evaluator,
            "collapsed": [c.model_dump(mode="json") for c in p.collapsed],
            "p_outcomes": p.p_queries,
            "soft_factors": p.soft_factors,
            "whatif": p.whatif,
        }
    return payload


def render_verdict(v: CaseVerdict) -> str:
    text = render_analysis(v.analysis, v.probability)
    lines = [text]
    if v.probability is not None:
        p = v.probability
        lines.append("")
        by = ", ".join(f"{k}: {'—' if val is None else f'{val:.3f}'}" for k, val in p.p_target_by_narrative.items())
        lines.append(
            f"Statut : {v.status} — P(responsabilité) = {p.p_target:.3f}"
            + (f" ± {p.error:.3f}" if p.error else "")
            + f" [{p.method}, {p.n_worlds} mondes]"
            + (f" ; par récit : {by}" if by else "")
        )
        for c in p.collapsed:
            lines.append(f"Récit {c.narrative.value} écarté (probabilité {c.probability:.4f} < {c.epsilon})")
        if v.questions:
            lines.append("Questions classées par information attendue / coût :")
            for q in v.questions[:5]:
                lines.append(
                    f"  - [{q['fact']}] {q['question']}  (EIG {q['eig']:.3f} bit, coût {q['cost']}, "
                    f"utilité {q['utility']:.3f})"
                )
    return "\n".join(lines)


def analyse_facts(
    pack: RulePack,
    program: CompiledProgram,
    case: CaseFile,
    *,
    format: str,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    interactive: bool,
    html: Path | None,
    dynamic_rules: bool = False,
    evidence: Path | None = None,
    submissions: list[tuple[str, str]] | None = None,
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
            err.print(f"error: --answer {name}: {exc}")
            raise typer.Exit(code=2) from exc
    while True:
        try:
            verdict = decide(pack, program, case, answers, whatif, dynamic=dynamic)
        except ValueError as exc:
            err.print(f"error: {exc}")
            raise typer.Exit(code=2) from exc
        if not (interactive and verdict.status == "NEEDS_INFORMATION" and verdict.questions):
            break
        q = verdict.questions[0]
        print(render_verdict(verdict))
        raw = Prompt.ask(f"\n{q['question']} ({q['fact']})")
        try:
            answers[q["fact"]] = check_value(pack.facts[q["fact"]], read_answer(raw))
        except ValueError as exc:
            err.print(f"réponse invalide : {exc}")
    if format == "json":
        payload = verdict_json(verdict)
        if claims_report is not None:
            payload["submissions"] = claims_report.model_dump(mode="json")
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        if claims_report is not None:
            print(render_submissions(claims_report))
        print(render_verdict(verdict))


def apply_submissions(
    pack: RulePack, case: CaseFile, evidence: Path, submissions: list[tuple[str, str]]
) -> tuple[CaseFile, Any]:
    """Verify the parties' claims against the evidence folder and apply what the pieces support."""
    from lexlogic.engine.documents.ingest import IngestError, ingest_dossier
    from lexlogic.engine.submissions import weigh_submissions
    from lexlogic.logic.facts import CaseFileError, parse_case

    try:
        documents = ingest_dossier(evidence)
    except IngestError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(code=2) from exc
    home = Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic"))
    index_dir = home / "evidence" / hashlib.sha256(str(evidence.resolve()).encode()).hexdigest()[:16]
    updated, report = weigh_submissions(pack, case.model_dump(mode="json"), documents, submissions, index_dir=index_dir)
    try:
        return parse_case(updated, pack, "<submissions>"), report
    except CaseFileError as exc:  # pragma: no cover - updates are validated value by value
        err.print(f"error: {exc}")
        raise typer.Exit(code=2) from exc


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
        err.print(f"error: dynamic rules could not run: {exc}")
        raise typer.Exit(code=2) from exc
    for failure in evaluation.failures:
        err.print(f"dynamic rule {failure.rule_id} skipped: {failure.kind}/{failure.code}: {failure.message}")
    return list(evaluation.facts)


def analyse_dossier(
    source: Path,
    *,
    format: str,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    interactive: bool,
    html: Path | None,
    **_: Any,
) -> None:
    """The case pipeline on a folder: documents → facts with grounding → verdict (resumable)."""
    from lexlogic.engine.documents.ingest import IngestError
    from lexlogic.engine.dossier import run_dossier

    if whatif:
        err.print("error: --whatif applies to a facts file; for a dossier, answer with --answer")
        raise typer.Exit(code=2)
    out_dir = html.parent if html else None
    try:
        result = run_dossier(
            source, answers=answers, interactive=interactive, out_dir=out_dir, progress=format != "json"
        )
    except IngestError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(code=2) from exc
    if format == "json":
        print(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    else:
        print(render_dossier_result(result))
    raise typer.Exit(code=0)


def render_dossier_result(result: dict[str, Any]) -> str:
    """Terminal view of a dossier run: the verdict with its proof (re-derived from the extracted case
    file and the answers, which is deterministic), the question, and the HTML report's path."""
    from lexlogic.engine.packs import pack_by_name
    from lexlogic.logic.facts import parse_case

    lines = [f"Affaire {result.get('case_id', '?')} — état {result.get('phase', '?')} / {result.get('status', '?')}"]
    case_file = result.get("case_file")
    if isinstance(case_file, dict) and case_file.get("pack"):
        pack, program = pack_by_name(case_file["pack"])
        case = parse_case(case_file, pack)
        answers = {
            k: check_value(pack.facts[k], v) for k, v in (result.get("answers") or {}).items() if k in pack.facts
        }
        lines.append(render_verdict(decide(pack, program, case, answers)))
    if result.get("message"):
        lines.append(str(result["message"]))
    if result.get("report"):
        lines.append(f"Rapport HTML (faits reliés à leur passage exact) : {result['report']}")
    return "\n".join(lines)
