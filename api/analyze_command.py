"""`lexlogic analyze`: a case facts file or a dossier folder → the typed verdict, printed as text or JSON.

Terminal I/O (prompts, progress) lives here, not in the engine: the engine takes an answer provider and a
transition callback.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lexlogic.api.cli_common import LazyConsole, fail, parse_assignments
from lexlogic.api.context import AppContext
from lexlogic.api.verdict_text import render_verdict
from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.case.given import run_given
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.verdict.model import Verdict
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import (
    CaseFile,
    CaseFileError,
    check_merged_date_order,
    check_value,
    load_case,
    read_answer,
)
from lexlogic.logic.pack import PackError, RulePack
from lexlogic.settings import Settings

err = LazyConsole(stderr=True, highlight=False)


Party = Literal["claimant", "defence"]


@dataclass(frozen=True)
class AnalyzeFlags:
    """`lexlogic analyze`'s flags, read and checked once; they mean the same on a facts file and a dossier."""

    format: str
    answers: dict[str, Any]
    whatif: dict[str, Any]
    inference: str
    interactive: bool
    html: Path | None
    evidence: Path | None
    parties: tuple[tuple[Party, Path | None], ...]
    dynamic_rules: bool
    proof: bool
    debug: bool
    fresh: bool
    resume: bool

    @classmethod
    def checked(cls, *, format: str, answer: list[str], whatif: list[str], inference: str, **rest: Any) -> AnalyzeFlags:
        """The flags both kinds of input read (format, answers, what-if overrides, inference), checked."""
        from lexlogic.engine.verdict.decide import INFERENCE_METHODS

        if format not in ("text", "json"):
            fail(f"--format {format!r}: expected text or json")
        answers = parse_assignments(answer, "--answer")
        overrides = parse_assignments(whatif, "--whatif")
        if inference not in INFERENCE_METHODS:
            fail(f"--inference {inference!r}: expected one of {', '.join(INFERENCE_METHODS)}")
        return cls(format=format, answers=answers, whatif=overrides, inference=inference, **rest)

    def refuse_inapplicable(self, is_dossier: bool) -> None:
        """A flag that cannot apply to this kind of input is an error with its reason, never ignored."""
        if is_dossier:
            given = [("--evidence", self.evidence is not None)]
            given += [(f"--{party}-submission", path is not None) for party, path in self.parties]
            for flag, present in given:
                if present:
                    fail(
                        f"{flag} applies to a facts file: a dossier's pieces are its evidence, read by the pipeline "
                        "(analyse the facts file with --evidence DOSSIER_DIR instead)"
                    )
        elif self.fresh or self.resume:
            fail("--fresh/--resume apply to a dossier folder (a facts file is analysed afresh every time)")


def analyse_source(source: Path, flags: AnalyzeFlags, ctx: AppContext) -> None:
    """A facts file or a dossier folder, through the one driver (the case state machine)."""
    flags.refuse_inapplicable(source.is_dir())
    if source.is_dir():
        analyse_dossier(
            source,
            packs=ctx.packs,
            settings=ctx.settings,
            inference=flags.inference,
            fresh=flags.fresh,
            resume=flags.resume,
            format=flags.format,
            answers=flags.answers,
            whatif=flags.whatif,
            interactive=flags.interactive,
            html=flags.html,
            proof=flags.proof,
            debug=flags.debug,
            dynamic_rules=flags.dynamic_rules,
        )
        return
    case, pack = facts_file(source, flags.answers, ctx)
    analyse_facts(
        pack,
        case,
        packs=ctx.packs,
        settings=ctx.settings,
        inference=flags.inference,
        format=flags.format,
        answers=flags.answers,
        whatif=flags.whatif,
        interactive=flags.interactive,
        html=flags.html,
        dynamic_rules=flags.dynamic_rules,
        evidence=flags.evidence,
        submissions=read_submissions(flags.parties, flags.evidence),
        proof=flags.proof,
        debug=flags.debug,
        source=str(source),
    )


def facts_file(source: Path, answers: dict[str, Any], ctx: AppContext) -> tuple[CaseFile, RulePack]:
    """The facts file, typed against its pack (exit 2 with file and JSON path); answers name its facts."""
    try:
        case, pack = load_case(source, ctx.packs.pack)
    except (CaseFileError, PackError) as exc:
        fail(str(exc))
    for name in answers:
        if name not in pack.facts:
            fail(f"--answer {name}: unknown fact (not declared in pack {pack.name})")
    return case, pack


def read_submissions(parties: tuple[tuple[Party, Path | None], ...], evidence: Path | None) -> list[tuple[Party, str]]:
    """The parties' written submissions, read; they are verified against ``--evidence`` (a folder)."""
    submissions: list[tuple[Party, str]] = []
    for party, path in parties:
        if path is None:
            continue
        try:
            submissions.append((party, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{path}: cannot read the submission: {exc}")
    if submissions and (evidence is None or not evidence.is_dir()):
        fail("--claimant-submission/--defence-submission need --evidence DOSSIER_DIR (a folder)")
    return submissions


def case_evaluator(
    packs: PackLibrary, settings: Settings, *, inference: str, whatif: dict[str, Any], dynamic_rules: bool
) -> CaseEvaluator:
    """The one evaluator of a run, facts file or dossier: the same options mean the same on both."""
    interpret = (lambda case: run_dynamic_rules(case, settings)) if dynamic_rules else None
    return CaseEvaluator(
        packs, inference=inference, whatif=whatif, interpret=interpret, limits=InferenceLimits.of(settings)
    )


def analyse_facts(
    pack: RulePack,
    case: CaseFile,
    *,
    packs: PackLibrary,
    settings: Settings,
    inference: str = "auto",
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
    source: str = "",
) -> None:
    """A facts file through the case state machine (entered after perception, kept in memory)."""
    claims_report = None
    if submissions and evidence is not None:
        case, claims_report = apply_submissions(pack, case, evidence, submissions, settings)
    answers = typed_answers(pack, answers)
    try:  # the order of dates on the case as answered, not only on the file
        check_merged_date_order(case, pack, answers, source="--answer")
    except CaseFileError as exc:
        fail(f"{source or case.case_id}: {exc}")
    evaluator = case_evaluator(packs, settings, inference=inference, whatif=whatif, dynamic_rules=dynamic_rules)
    try:
        state = run_given(
            case,
            packs=packs,
            evaluator=evaluator,
            answers=answers,
            answer_provider=facts_prompt(pack, debug) if interactive else None,
            source=source,
        )
    except LexlogicError as exc:
        fail(str(exc))
    verdict = state.evaluation
    if verdict is None:  # pragma: no cover - the machine stops at a verdict, a question or an error
        fail(f"{source or case.case_id}: {state.message or 'no verdict'}")
    if html is not None:  # the printable report of a facts file (no documents: the facts table names the file)
        write_report(html, state, pack)
    print_verdict(verdict, pack, format=format, claims_report=claims_report, proof=proof, debug=debug)


def typed_answers(pack: RulePack, answers: dict[str, Any]) -> dict[str, Any]:
    """``--answer`` values read against the pack (exit 2 with the fact's name on a bad value)."""
    out = {}
    for name, value in answers.items():
        try:
            out[name] = check_value(pack.facts[name], value)
        except ValueError as exc:
            fail(f"--answer {name}: {exc}")
    return out


def facts_prompt(pack: RulePack, debug: bool) -> Callable[[dict[str, Any], Any], Any]:
    """The question loop at the terminal: the verdict so far, then the question, until a valid answer."""

    from rich.prompt import Prompt

    def ask(question: dict[str, Any], state: Any) -> Any:
        if state.evaluation is not None:
            print(render_verdict(state.evaluation, pack, debug=debug))
        while True:
            raw = Prompt.ask(f"\n{question['question']} ({question['fact']})")
            try:
                return check_value(pack.facts[question["fact"]], read_answer(raw))
            except ValueError as exc:
                err.print(f"réponse invalide : {exc}")

    return ask


def write_report(html: Path, state: Any, pack: RulePack, documents: list[Any] | None = None) -> None:
    """The HTML report of a run's state, written where ``--html`` says (exit 2 when it cannot be)."""
    from lexlogic.api.report_html import render_report

    report = render_report(state.model_dump(mode="json"), documents or [], pack)
    try:
        html.write_text(report, encoding="utf-8")
    except OSError as exc:
        fail(f"--html {html}: {exc.strerror or exc}")


def print_verdict(
    verdict: Verdict, pack: RulePack, *, format: str, claims_report: Any, proof: bool, debug: bool
) -> None:
    """A facts file's result: the verdict as JSON (with the submissions' report), or as text."""
    if format == "json":
        payload = verdict.model_dump(mode="json")
        if claims_report is not None:
            payload["submissions"] = claims_report.model_dump(mode="json")
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if claims_report is not None:
        print(render_submissions(claims_report))
    print(render_verdict(verdict, pack, proof=proof, debug=debug))


def apply_submissions(
    pack: RulePack,
    case: CaseFile,
    evidence: Path,
    submissions: list[tuple[Literal["claimant", "defence"], str]],
    settings: Settings,
) -> tuple[CaseFile, Any]:
    """Verify the parties' claims against the evidence folder and apply what the pieces support."""
    from lexlogic.engine.case.submissions import weigh_submissions
    from lexlogic.engine.documents.ingest import ingest_dossier

    try:
        documents = ingest_dossier(evidence, cache=settings.documents_cache)
    except LexlogicError as exc:
        fail(str(exc))
    index_dir = settings.home / "evidence" / hashlib.sha256(str(evidence.resolve()).encode()).hexdigest()[:16]
    from lexlogic.bridges.llm import LLMClient

    llm = LLMClient.from_settings(settings)
    try:
        return weigh_submissions(pack, case, documents, submissions, index_dir=index_dir, llm=llm)
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


def run_dynamic_rules(case: CaseFile, settings: Settings) -> list[Any]:
    """Active dynamic rules of the store, run in the sandbox on the case's plain facts."""
    from lexlogic.engine.extensions.dynamic_rules import DeploymentPolicy, DynamicRuleStore, run_active_rules
    from lexlogic.sandbox.pool import default_pool

    facts = {name: fv.value for name, fv in case.facts.items()}
    try:
        store = DynamicRuleStore(settings.database, DeploymentPolicy.from_settings(settings))
        pool = default_pool(settings.sandbox_workers)
        evaluation = run_active_rules(store, facts, case_id=case.case_id, pool=pool)
    except Exception as exc:
        fail(f"dynamic rules could not run: {exc}")
    for failure in evaluation.failures:
        err.print(f"dynamic rule {failure.rule_id} skipped: {failure.kind}/{failure.code}: {failure.message}")
    return evaluation.resolved()


def dossier_console(progress: bool, interactive: bool) -> dict[str, Any]:
    """The terminal side of a dossier run: named steps with fixed totals, the current document or check,
    elapsed time and ETA (a rich display on a terminal, plain lines otherwise); questions at the prompt."""
    from rich.console import Console

    from lexlogic.api.progress_view import DossierView
    from lexlogic.engine.case.dossier import coerce_answer

    console = Console(stderr=True, quiet=not progress, soft_wrap=True)
    view = DossierView(console) if progress else None

    def on_start(case_id: str, resumed_from: int | None, state: Any, because: str | None = None) -> None:
        if because is not None:
            console.print(f"lexlogic : nouvelle analyse — {because}", highlight=False, markup=False)
        elif resumed_from is None:
            console.print(f"lexlogic : nouveau dossier ({state.source})", highlight=False, markup=False)
        else:
            console.print(f"lexlogic : reprise du dossier à l'état n° {resumed_from}", highlight=False)

    def on_transition(state: Any, seq: int) -> None:
        if view is not None:
            view.on_transition(state, seq)
            if state.status != "running":
                view.p.stop(RUN_END.get(state.status, state.status))

    def on_progress(stage: str, done: int, total: int, item: str) -> None:
        if view is not None:
            view.on_progress(stage, done, total, item)

    def ask(question: dict[str, Any], state: Any) -> Any:
        if not (interactive and sys.stdin.isatty()):
            return None
        if view is not None:
            view.pause()
        eig = question.get("eig") or 0
        console.print(f"Question : {question['question']} (gain d'information attendu {eig:.3f} bit)", highlight=False)
        reply = console.input("réponse (vide pour arrêter) > ")
        return coerce_answer(reply, question) if reply.strip() else None

    return {"on_start": on_start, "on_transition": on_transition, "on_progress": on_progress, "answer_provider": ask}


RUN_END = {
    "verdict": "terminé : verdict rendu",
    "awaiting_answer": "terminé : une question attend une réponse",
    "inconsistent": "terminé : faits incohérents",
    "stopped_budget": "arrêté : budget épuisé",
    "stopped_loop": "arrêté : boucle détectée",
}


def analyse_dossier(
    source: Path,
    *,
    packs: PackLibrary,
    settings: Settings,
    inference: str = "auto",
    resume: bool = False,
    format: str,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    interactive: bool,
    html: Path | None,
    db_url: str | None = None,
    fresh: bool = False,
    proof: bool = False,
    debug: bool = False,
    dynamic_rules: bool = False,
) -> None:
    """The case pipeline on a folder: documents → facts with grounding → verdict (resumable); the same state
    machine and the same evaluator options as a facts file."""
    from lexlogic.api.report_html import render_report
    from lexlogic.engine.case.dossier import run_dossier

    if fresh and resume:
        fail("--fresh and --resume: choose one")
    try:
        result = run_dossier(
            source,
            packs=packs,
            settings=settings,
            db_url=db_url,
            answers=answers,
            fresh=fresh,
            resume=resume,
            report_path=html,
            evaluator=case_evaluator(packs, settings, inference=inference, whatif=whatif, dynamic_rules=dynamic_rules),
            render_report=render_report,
            **dossier_console(progress=format != "json", interactive=interactive),
        )
    except LexlogicError as exc:
        fail(str(exc))
    if format == "json":
        print(result.model_dump_json(indent=2))
        return
    lines: list[str] = []
    if result.verdict is not None:
        lines.append(render_verdict(result.verdict, packs.pack(result.verdict.pack), proof=proof, debug=debug))
    if result.question and (result.verdict is None or result.verdict.best_question is None):
        lines.append(f"Question en attente : {result.question['question']}")
    if result.status not in ("verdict", "awaiting_answer") and result.message:
        lines.append(f"Arrêt : {result.message}")
    lines.append(f"Rapport HTML (faits reliés à leur passage exact) : {result.report}")
    print("\n".join(lines))


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of the verdict (`lexlogic schema verdict`)."""
    return Verdict.model_json_schema()
