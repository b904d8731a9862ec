"""Symbolic analysis of one case: values → input assignment → clingo (via the bridge) → outcomes with proofs.

Three-valued by construction: an unknown input atom is left free on the pack's one grounding, so the
answer sets cover both of its values; an outcome is `yes` if it holds in every answer set (cautious), `no`
if in none (brave), `unknown` otherwise — and then names the missing facts (or the open appreciation) it
depends on. The engine speaks to clingo only through `bridges/clingo_bridge.py`, in plain data.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from lexlogic.bridges.clingo_bridge import CompiledProgram, Solution
from lexlogic.engine.symbolic.explain import Explainer, solution_key
from lexlogic.engine.symbolic.values import ValueInfo, gather_values
from lexlogic.engine.text import formatting
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import FactType, Remedy, RulePack
from lexlogic.logic.proof import NodeKind, ProofNode

Tri = Literal["yes", "no", "unknown"]


class Outcome(BaseModel):
    atom: str
    label: str
    status: Tri
    value: Any = None
    missing: list[str] = Field(default_factory=new_list, description="facts whose absence leaves it undecided")
    open_reasons: list[str] = Field(default_factory=new_list, description="appreciation zones that leave it open")
    proof: ProofNode | None = None


class CheckResult(BaseModel):
    id: str
    label: str
    kind: str
    outcome: str
    status: Tri
    fatal: bool = False


class Analysis(BaseModel):
    pack: str
    case_id: str
    verdict: Literal["LIABLE", "NOT_LIABLE", "UNDETERMINED", "INCONSISTENT"]
    summary: str
    applicable_law: str | None = None
    outcomes: dict[str, Outcome]
    checks: list[CheckResult]
    decisive_check: str | None = None
    remedy: str | None = Field(default=None, description="the outcome holding the remedy range (pack's `remedy`)")
    missing_facts: list[str] = Field(default_factory=new_list)
    questions: list[dict[str, Any]] = Field(default_factory=new_list)
    values: dict[str, ValueInfo] = Field(default_factory=dict)
    why_not: ProofNode | None = None


def input_assignment(pack: RulePack, values: dict[str, ValueInfo]) -> dict[str, bool | None]:
    """Truth of every input atom (as text): known facts True/False, unknown ones None (left free)."""
    out: dict[str, bool | None] = {}
    for name, info in values.items():
        t = pack.value_type(name)
        if t is FactType.BOOL:
            out[name] = bool(info.value) if info.known else None
        elif t is FactType.ENUM:
            for v in pack.facts[name].values or []:
                out[f"{name}({v})"] = (info.value == v) if info.known else None
    return out


SOLVED_SIZE = 512
# explainers kept per solution: a new case of the same solution resumes its trees from the last one (``Explainer``)
EXPLAINERS_SIZE = 32


def consequences(program: CompiledProgram, assignment: dict[str, bool | None], memos: Memos | None = None) -> Solution:
    """The solution of an input assignment, solved once per (program, assignment) by the owner of ``memos`` (a
    run, a batch chunk): cases of a portfolio group mostly share their assignments (their numbers differ, the
    yes/no values they yield do not). For the analysis without proofs only: its brave and cautious consequences
    (every status, missing fact and open reason) are fixed by the assignment; the reference model, which the
    proofs walk, is whichever the solver found first for it."""
    if memos is None:
        return program.solve(assignment)
    solved = memos.lru("symbolic.solved", SOLVED_SIZE)
    key = (id(program), frozenset(assignment.items()))
    hit = solved.get(key)
    if hit is not None and hit[0] is program:  # the program is held: its id is not reused
        return cast(Solution, hit[1])
    solution = program.solve(assignment)
    solved.put(key, (program, solution))
    return solution


def analyse(
    pack: RulePack,
    program: CompiledProgram,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    *,
    proofs: bool = True,
    memos: Memos | None = None,
) -> Analysis:
    """The case's outcomes, checks, summary and questions (``memos``: the owner's memoised results, see
    ``logic/memos.py``; none, this call's own). ``proofs=False`` (portfolio mode without
    ``--proofs``): no proof or why-not tree is built (about half of the analysis); every status, missing fact,
    open reason, summary and question is the same — none of them is read from a tree."""
    memos = own(memos)
    values = gather_values(pack, case, answers, dynamic, memos=memos)
    assignment = input_assignment(pack, values)
    solution = program.solve(assignment) if proofs else consequences(program, assignment, memos)
    if not solution.satisfiable:
        return Analysis(
            pack=pack.name,
            case_id=case.case_id,
            verdict="INCONSISTENT",
            summary="Les faits violent une contrainte du pack : aucune issue cohérente.",
            outcomes={},
            checks=[],
            values=values,
        )
    explainers = memos.lru("symbolic.explainers", EXPLAINERS_SIZE) if proofs else None
    key = (id(pack), id(program), *solution_key(solution))
    before = explainers.get(key) if explainers is not None else None
    if before is not None and (before.pack is not pack or before.program is not program):
        before = None
    explainer = Explainer(pack, program, solution, values, memos=memos, after=before)
    outcomes: dict[str, Outcome] = {}
    target = pack.manifest.target
    remedy = pack.manifest.remedy
    atoms = [target] + [a for a in pack.manifest.outcomes if a != target and (remedy is None or a != remedy.outcome)]
    for atom in atoms:
        outcomes[atom] = _outcome(pack, atom, solution, explainer, proofs)
    if remedy is not None:
        outcomes[remedy.outcome] = _remedy(pack, remedy, outcomes[target], values, proofs)
    checks: list[CheckResult] = []
    decisive = None
    for check in pack.manifest.checks:
        status = outcomes[check.outcome].status if check.outcome in outcomes else "unknown"
        fatal = check.fatal_if is not None and status == check.fatal_if
        checks.append(
            CheckResult(
                id=check.id, label=check.label, kind=check.kind, outcome=check.outcome, status=status, fatal=fatal
            )
        )
        if fatal and decisive is None:
            decisive = check.id
    main = outcomes[target]
    verdict = {"yes": "LIABLE", "no": "NOT_LIABLE", "unknown": "UNDETERMINED"}[main.status]
    law = _applicable_law(pack, outcomes, values)
    missing = list(dict.fromkeys(main.missing))
    questions: list[dict[str, Any]] = [
        {"fact": f, "question": pack.facts[f].question, "cost": pack.facts[f].cost}
        for f in missing
        if f in pack.facts and pack.facts[f].question
    ]
    questions.sort(key=lambda q: q["cost"])
    summary = _summary(pack, verdict, checks, decisive, main, outcomes.get(remedy.outcome) if remedy else None, values)
    why = None if main.status == "yes" or not proofs else explainer.why_not(target)
    if explainers is not None:  # asked every question: the next case of this solution resumes from it
        explainers.put(key, explainer)
    return Analysis(
        pack=pack.name,
        case_id=case.case_id,
        verdict=verdict,
        summary=summary,
        applicable_law=law,
        outcomes=outcomes,
        remedy=remedy.outcome if remedy else None,
        checks=checks,
        decisive_check=decisive,
        missing_facts=missing,
        questions=questions,
        values=values,
        why_not=why,
    )


def _outcome(pack: RulePack, atom: str, solution: Solution, explainer: Explainer, proofs: bool = True) -> Outcome:
    label = pack.label_of(atom)
    truth = solution.status(atom)
    status: Tri = "yes" if truth else "no" if truth is False else "unknown"
    missing: list[str] = []
    open_reasons: list[str] = []
    if status == "unknown":
        missing, open_reasons = explainer.live_unknowns(atom)
    holds_in_reference = atom in solution.reference
    proof = None
    if proofs:
        proof = explainer.prove(atom) if holds_in_reference and status != "no" else explainer.why_not(atom)
    return Outcome(
        atom=atom,
        label=label,
        status=status,
        missing=missing,
        open_reasons=list(dict.fromkeys(open_reasons)),
        proof=proof,
    )


def _remedy(
    pack: RulePack, remedy: Remedy, liable: Outcome, values: dict[str, ValueInfo], proofs: bool = True
) -> Outcome:
    """The remedy range: yes with [low, high] when liable, no when not liable; otherwise unknown, naming
    what the range lacks (or, when the range is known, what liability lacks)."""
    label = pack.label_of(remedy.outcome)
    proof = _remedy_proof(pack, remedy, liable, values, label) if proofs else None
    if liable.status == "no":
        return Outcome(atom=remedy.outcome, label=label, status="no", proof=proof)
    low, high = values.get(remedy.low), values.get(remedy.high)
    if low is not None and high is not None and low.known and high.known:
        status: Tri = "yes" if liable.status == "yes" else "unknown"
        return Outcome(
            atom=remedy.outcome,
            label=label,
            status=status,
            proof=proof,
            value=[round(low.value, 2), round(high.value, 2)],
            missing=[] if status == "yes" else liable.missing,
        )
    missing = list(dict.fromkeys(m for info in (low, high) if info for m in info.missing))
    return Outcome(
        atom=remedy.outcome,
        label=label,
        status="unknown",
        missing=missing,
        proof=proof,
        open_reasons=["montant incalculable : " + ", ".join(missing)] if missing else [],
    )


def _remedy_proof(
    pack: RulePack, remedy: Remedy, liable: Outcome, values: dict[str, ValueInfo], label: str
) -> ProofNode:
    """The remedy's tree: its two bounds as computed values, known or naming what they lack."""
    children = []
    for name in (remedy.low, remedy.high):
        info = values.get(name)
        comp = pack.computation_for(name)
        children.append(
            ProofNode(
                atom=name,
                label=pack.label_of(name),
                kind=NodeKind.COMPUTED,
                holds=bool(info and info.known),
                value=info.value if info else None,
                rule_id=comp.id if comp else None,
                sources=[s for sid in (comp.sources if comp else []) if (s := pack.source(sid))],
                note=None
                if info and info.known
                else "inconnu faute de : " + ", ".join(info.missing if info else [name]),
            )
        )
    return ProofNode(
        atom=remedy.outcome, label=label, kind=NodeKind.COMPUTED, holds=liable.status == "yes", children=children
    )


def _applicable_law(pack: RulePack, outcomes: dict[str, Outcome], values: dict[str, ValueInfo]) -> str | None:
    """The version of the text that applies, and why (the pack's `versions`: decided by a date)."""
    versions = pack.manifest.versions
    if versions is None:
        return None
    date = values.get(versions.date_fact)
    for text in versions.texts:
        if text.outcome in outcomes and outcomes[text.outcome].status == "yes":
            src = pack.source(text.source)
            when = formatting.date(date.value) if date is not None and date.known else "?"
            return f"{src.cite() if src else text.source} — {pack.label_of(versions.date_fact).lower()} : {when} ({text.reason})"
    return f"indéterminé : {pack.label_of(versions.date_fact).lower()} inconnue"


def _summary(
    pack: RulePack,
    verdict: str,
    checks: list[CheckResult],
    decisive: str | None,
    main: Outcome,
    damages: Outcome | None,
    values: dict[str, ValueInfo] | None = None,
) -> str:
    """One sentence in the pack's own words (its outcome templates and remedy wording)."""
    target = pack.manifest.target
    if verdict == "LIABLE":
        s = pack.outcome_sentence(target, True, values, render=formatting.prose)
        if damages is not None and damages.value:
            extra = pack.remedy_sentence(damages.value[0], damages.value[1], money=formatting.money)
        else:
            missing = [pack.label_of(m) for m in damages.missing] if damages is not None else None
            extra = pack.remedy_sentence(None, None, missing)
        return f"{s} {extra}" if extra else s
    if verdict == "NOT_LIABLE":
        s = pack.outcome_sentence(target, False, values, render=formatting.prose).rstrip(".")
        check = next((c for c in checks if c.id == decisive), None)
        return (
            f"{s} : {check.label[:1].lower()}{check.label[1:]} ({STATE_WORDS.get(check.status, check.status)})."
            if check
            else s + "."
        )
    reasons = []
    if main.missing:
        reasons.append("faits manquants : " + ", ".join(pack.label_of(m) for m in main.missing))
    if main.open_reasons:
        reasons.append("appréciation : " + "; ".join(main.open_reasons))
    return "Indéterminé — " + ("; ".join(reasons) if reasons else "plusieurs issues possibles") + "."


STATE_WORDS = {"yes": "établi", "no": "non établi", "unknown": "indéterminé"}


def analyse_case_file(
    loaded: Any, case: CaseFile, answers: dict[str, Any] | None = None, memos: Memos | None = None
) -> dict[str, Any]:
    """The pipeline's entry: the typed case analysed against its loaded pack (a ``LoadedPack``), as JSON
    (``memos``: the caller's owner's, e.g. the verdict service's)."""
    return analyse(loaded.pack, loaded.program, case, answers, memos=memos).model_dump(mode="json")
