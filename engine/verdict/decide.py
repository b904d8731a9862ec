"""The verdict of a case: the symbolic analysis, then the probabilistic model over its root facts.

The model is built by ``engine.prob.case_model`` (every uncertain input fact a random variable, every
derived value a deterministic function of them, evaluated world by world), inferred by ``engine.prob``
(exact contraction, enumeration, sampling or Pyro's importance sampling: ``inference``), and completed
by ``engine.prob.numbers`` (the reasonable notice and the damages as distributions, the questions
worth asking about the damages once liability is settled). Probabilities and proof trees come from the
same rules, so they cannot disagree.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.prob import ProbProgram, ProbVerdict
from lexlogic.engine.prob import analyse as prob_analyse
from lexlogic.engine.prob.case_model import NOT_ASKABLE_COST
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.prob.model_cache import case_model
from lexlogic.engine.prob.numbers import WorldsSource, finish_verdict, may_ask_about_outputs
from lexlogic.engine.symbolic.analysis import Analysis, analyse
from lexlogic.engine.symbolic.values import ValueInfo
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack

__all__ = ["INFERENCE_METHODS", "NOT_ASKABLE_COST", "CaseVerdict", "build_program", "decide"]

INFERENCE_METHODS = ("auto", "exact", "sampling", "pyro", "enumerate")


class CaseVerdict(BaseModel):
    """Symbolic analysis + probabilistic verdict + the questions worth asking."""

    analysis: Analysis
    probability: ProbVerdict | None = None
    status: str = Field(description="VERDICT or NEEDS_INFORMATION")
    questions: list[dict[str, Any]] = Field(default_factory=new_list)
    variables: dict[str, str] = Field(default_factory=dict, description="variable -> the fact it asks about")
    note: str | None = None


def build_program(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    values: dict[str, ValueInfo] | None = None,
    whatif: dict[str, Any] | None = None,
    memos: Memos | None = None,
) -> tuple[ProbProgram, dict[str, str]]:
    """The case's discrete model (engine.prob.case_model) and, per variable, the fact a question asks.
    ``values`` is accepted for compatibility: the model evaluates its own worlds. ``memos``: the owner's (the
    same model serves the what-ifs)."""
    m = case_model(pack, case, answers, dynamic, whatif, memos=memos)
    return m.program, m.asks


def decide(
    pack: RulePack,
    program: CompiledProgram,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    whatif: dict[str, Any] | None = None,
    entropy_threshold: float = 0.3,
    dynamic: list[Any] | None = None,
    inference: str | None = None,
    seed: int = 0,
    samples: int = 1 << 18,
    numbers: bool | Literal["questions"] = True,
    analysis: Analysis | None = None,
    limits: InferenceLimits | None = None,
    draw_worlds: WorldsSource | None = None,
    memos: Memos | None = None,
) -> CaseVerdict:
    """Symbolic analysis (``analysis`` when the caller already has it for this case and these answers),
    then the probabilistic verdict over what is still uncertain. ``numbers``: True, the outputs' distributions
    (damages, notice) and the questions about them; False, neither; "questions" (portfolio results), the
    outputs only when a question about them can be asked (liability settled and an askable input behind
    them) — the same questions as True, without the distributions nobody reads. ``draw_worlds``: where the
    numbers' sampled worlds come from (a portfolio group's case axis), None: ``sampled_worlds``. ``memos``: the
    owner's memoised results (the run's, the verdict service's; none: this call's own)."""
    memos = own(memos)
    inference = inference or "auto"
    if inference not in INFERENCE_METHODS:
        raise ValueError(f"--inference {inference!r}: expected one of {', '.join(INFERENCE_METHODS)}")
    if analysis is None:
        analysis = analyse(pack, program, case, answers, dynamic, memos=memos)
    whatif = dict(whatif or {})
    # a prior-only what-if: no rebuild; the case's values gathered once (the analysis's)
    model = case_model(pack, case, answers, dynamic, whatif, values=analysis.values, memos=memos)
    prob_program, asks = model.program, model.asks
    rest = {k: v for k, v in whatif.items() if k not in model.consumed}
    unknown_whatif = sorted(
        set(rest)
        - {v.name for v in prob_program.variables}
        - {f"{r.id}.{k}" for r in prob_program.soft_rules for k in ("I1", "W1", "R1", "I2", "W2", "R2")}
        - {k for k in rest if k.split(".")[0] in {r.id for r in prob_program.soft_rules}}
    )
    if unknown_whatif:
        raise ValueError(
            f"--whatif: {', '.join(unknown_whatif)} is neither an uncertain fact of this case "
            f"({', '.join(v.name for v in prob_program.variables) or 'none'}) nor a soft-rule "
            "magnitude (<rule>.I1|W1|R1|I2|W2|R2)"
        )
    verdict = prob_analyse(
        prob_program,
        whatif=rest,
        entropy_threshold=entropy_threshold,
        method=inference,  # type: ignore[arg-type]
        samples=samples,
        seed=seed,
        limits=limits,
        memos=memos,
    )
    questions = _target_questions(pack, verdict, asks)
    status = verdict.status
    if status == "NEEDS_INFORMATION" and not questions:
        status = "VERDICT"  # what remains uncertain is the judge's appreciation: asking cannot settle it
    settled = status == "VERDICT" and verdict.p_target >= 0.5  # liability settled: what narrows the damages
    if numbers is True or (numbers == "questions" and settled and may_ask_about_outputs(pack, model)):
        # a what-if's numbers: the case's own draws re-weighted when only priors moved (its model, cached)
        proposal = (
            case_model(pack, case, answers, None, None, values=analysis.values, memos=memos)
            if whatif and not dynamic
            else None
        )
        verdict = finish_verdict(
            pack,
            model,
            verdict,
            rest,
            seed=seed,
            summaries=numbers is True,
            proposal=proposal,
            draw_worlds=draw_worlds,
            memos=memos,
        )
    else:  # no numbers (or none a question could come from): the model's folded factors only
        verdict = verdict.model_copy(update={"soft_factors": {**model.folded, **verdict.soft_factors}})
        if numbers == "questions":
            verdict.unmodelled = dict(model.unmodelled)  # as finish_verdict says it
    if settled:
        questions += _output_questions(pack, verdict)
    return CaseVerdict(analysis=analysis, probability=verdict, status=status, questions=questions, variables=asks)


def _target_questions(pack: RulePack, verdict: ProbVerdict, asks: dict[str, str]) -> list[dict[str, Any]]:
    """The model's questions about the target, one per fact, by EIG per unit of cost."""
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    for q in verdict.questions:
        fact = asks.get(q.variable)
        if fact is None or fact in seen or q.eig <= 1e-12:
            continue
        seen.add(fact)
        spec = pack.facts[fact]
        questions.append(
            {
                "fact": fact,
                "question": spec.question,
                "eig": round(q.eig, 6),
                "cost": spec.cost,
                "utility": round(q.eig / spec.cost, 6),
                "variable": q.variable,
                "about": verdict.target,
            }
        )
    questions.sort(key=lambda q: -q["utility"])
    return questions


def _output_questions(pack: RulePack, verdict: ProbVerdict) -> list[dict[str, Any]]:
    """The questions that narrow the damages (their EIG on the remedy), once liability is settled."""
    out = []
    for dq in verdict.output_questions:
        spec = pack.facts[dq.variable]
        out.append(
            {
                "fact": dq.variable,
                "question": spec.question,
                "eig": round(dq.eig, 6),
                "cost": spec.cost,
                "utility": round(dq.utility, 6),
                "variable": dq.variable,
                "about": verdict.output_questions_about,
            }
        )
    return out
