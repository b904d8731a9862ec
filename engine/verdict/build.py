"""Building the typed verdict of a case, and a cache of verdicts for the API and the page.

``build_verdict`` is the one place where the symbolic analysis and the probabilistic verdict
(``engine.verdict.decide``) become a ``Verdict``: the CLI, the orchestrator and the HTTP API all call it,
so their outputs carry the same numbers under the same names.

Why a cache (``VerdictService``): a saved case's verdict is a pure function of (case file, answers, prior
overrides, Alexy magnitudes); the page asks for it again and again. The per-narrative symbolic analyses
are cached on the case file without confidences (the symbolic result does not read them).
"""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from lexlogic.engine.packs.library import LoadedPack, PackLibrary
from lexlogic.engine.prob import BoolVar, ProbProgram
from lexlogic.engine.prob.case_model import weights_of
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.prob.numbers import PRIOR_PROPOSAL, WorldsSource
from lexlogic.engine.symbolic.analysis import Outcome, analyse_case_file
from lexlogic.engine.symbolic.memo import RunMemo
from lexlogic.engine.symbolic.narratives import (
    ambiguous_facts,
    apply_answers,
    apply_priors,
    split_worlds,
    without_confidences,
)
from lexlogic.engine.text import formatting
from lexlogic.engine.text.inference_words import method_phrase
from lexlogic.engine.verdict import epistemic, serialise, wording
from lexlogic.engine.verdict.decide import CaseVerdict, build_program, decide
from lexlogic.engine.verdict.epistemic import Epistemic, Knowledge
from lexlogic.engine.verdict.model import (
    Confirmable,
    Distribution,
    FactRow,
    Probability,
    Question,
    Slider,
    ValueOut,
    Verdict,
    VerdictLabel,
    VerdictStatus,
    WorldVerdict,
)
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.errors import FieldIssue, InvalidInput
from lexlogic.logic.facts import (
    CaseFile,
    CaseFileError,
    FactValue,
    World,
    check_date_order,
    check_merged_date_order,
    check_value,
    parse_case,
)
from lexlogic.logic.identity_memo import IdentityMemo
from lexlogic.logic.memos import Memos
from lexlogic.logic.pack import FactType, PackError, RulePack
from lexlogic.logic.weights import ALEXY_LEVELS, Beta, Fixed, Scale

MAGNITUDES = ("I1", "W1", "R1", "I2", "W2", "R2")
MAGNITUDE_NAMES = {"I": "intensité", "W": "poids abstrait", "R": "fiabilité"}
Analyser = Callable[[CaseFile, dict[str, Any]], dict[str, Any]]  # one narrative's case → its analysis (JSON)
# (case, answers, analyser) → each narrative's (world, reading weight, case file, analysis): ``narrative_analyses``
Narratives = Callable[[CaseFile, dict[str, Any], Analyser], "list[tuple[World, float, CaseFile, dict[str, Any]]]"]


class UnknownPack(InvalidInput):
    """The case names a pack that is not installed."""


def case_file_error(exc: CaseFileError) -> InvalidInput:
    return InvalidInput(exc.message, [FieldIssue("case", exc.path, exc.message)], kind="case-file")


def load_pack(packs: PackLibrary, name: str) -> LoadedPack:
    """The case's pack from the library it was given (UnknownPack, a 4xx, when it is not there)."""
    try:
        return packs.get(name)
    except PackError as exc:
        raise UnknownPack(str(exc), kind="unknown-pack") from exc


def parse(stored: dict[str, Any], pack: RulePack) -> CaseFile:
    """The edge: a case file as stored (JSON) → the typed case (InvalidInput with its JSON path)."""
    try:
        return parse_case(copy.deepcopy(stored), pack)
    except CaseFileError as exc:
        raise case_file_error(exc) from exc


def read_case(packs: PackLibrary, stored: dict[str, Any]) -> CaseFile:
    """A case file as stored, typed against the pack it names (UnknownPack, InvalidInput)."""
    return parse(stored, load_pack(packs, str(stored.get("pack"))).pack)


def magnitude(value: Any) -> float:
    return ALEXY_LEVELS[value] if isinstance(value, str) else float(value)


def _mean(m: Fixed | Beta | Scale) -> float:
    if isinstance(m, Fixed):
        return m.value
    if isinstance(m, Beta):
        return m.mean
    return float(sum(v * p for v, p in zip(m.values, m.probs)))


def model_of(pack: RulePack, case: CaseFile, answers: dict[str, Any], memos: Memos | None = None) -> ProbProgram:
    """The probabilistic program of the case (its variables name what the what-if may move; ``memos``: the
    owner's, where the case model is kept)."""
    return build_program(pack, case, answers, memos=memos)[0]


def soft_rules(pack: RulePack) -> list[Any]:
    """The pack's Alexy soft rules (weights.yaml): what-if magnitudes, whether the model keeps a rule as a
    factor or folds it into the judge's call."""
    weights = weights_of(pack)  # read once per file version, not at every verdict (35 ms of a what-if)
    return list(weights.soft_rules) if weights else []


def split_priors(
    case: CaseFile, prog: ProbProgram, priors: dict[str, float]
) -> tuple[dict[str, float], dict[str, float]]:
    """(ambiguity weights → case file, variable priors → what-if): a model variable wins a name clash."""
    names = {v.name for v in prog.variables}
    amb = set(ambiguous_facts(case))
    return (
        {k: v for k, v in priors.items() if k in amb and k not in names},
        {k: v for k, v in priors.items() if k in names},
    )


def validate_inputs(
    case: CaseFile,
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any] | None = None,
    saved: dict[str, Any] | None = None,
    *,
    packs: PackLibrary,
    memos: Memos | None = None,
) -> dict[str, Any]:
    """Answers against the pack's vocabulary; priors against the case's ambiguities and uncertain yes/no
    variables; weights against the pack's soft-rule magnitudes. Returns the answers as typed values;
    raises ``InvalidInput`` with the JSON path of every problem."""
    pack = load_pack(packs, case.pack).pack
    issues: list[FieldIssue] = []
    clean: dict[str, Any] = {}
    for fact, value in answers.items():
        spec = pack.facts.get(fact)
        if spec is None:
            issues.append(FieldIssue("body", f"$.answers.{fact}", f"unknown fact {fact!r}"))
            continue
        try:
            clean[fact] = check_value(spec, value)
        except ValueError as exc:
            issues.append(FieldIssue("body", f"$.answers.{fact}", str(exc)))
    if clean and not issues:
        issues.extend(_date_order_issues(pack, case, saved or {}, clean))
    if (priors or weights) and not issues:
        given = {**(saved or {}), **clean}  # the model the verdict will use: saved answers + these
        prog = model_of(pack, case, given, memos)
        bools = {v.name for v in prog.variables if isinstance(v, BoolVar)}
        amb = set(ambiguous_facts(case)) - set(given)
        for name, p in priors.items():
            if name not in bools and name not in amb:
                accepted = sorted(amb | bools) or "none"
                issues.append(
                    FieldIssue(
                        "body",
                        f"$.priors.{name}",
                        f"{name!r} is neither an ambiguous fact nor an uncertain yes/no variable of this case "
                        f"(accepted: {accepted})",
                    )
                )
            elif not 0.0 <= float(p) <= 1.0:
                issues.append(FieldIssue("body", f"$.priors.{name}", "must be within [0, 1]"))
        allowed = {f"{r.id}.{k}" for r in soft_rules(pack) for k in MAGNITUDES}
        for name, m in (weights or {}).items():
            if name not in allowed:
                issues.append(
                    FieldIssue(
                        "body",
                        f"$.weights.{name}",
                        f"{name!r} is not a soft-rule magnitude of this pack (accepted: {sorted(allowed) or 'none'})",
                    )
                )
            elif not 0 < magnitude(m) < float("inf"):
                issues.append(FieldIssue("body", f"$.weights.{name}", "must be a finite number > 0"))
    if issues:
        raise InvalidInput(f"{issues[0].path}: {issues[0].message}", issues)
    return clean


def _date_order_issues(
    pack: RulePack, case: CaseFile, saved: dict[str, Any], clean: dict[str, Any]
) -> list[FieldIssue]:
    """The pack's date order on the case as it will be evaluated (file + saved answers + these answers)."""
    try:
        check_merged_date_order(case, pack, clean, settled=saved)
    except CaseFileError as exc:
        return [FieldIssue("body", exc.path, exc.message)]
    return []


def _question(pack: RulePack, case: CaseFile, fact: str, q: dict[str, Any]) -> Question:
    spec = pack.facts[fact]
    fv = case.facts.get(fact)
    options: list[Any]
    if fv is not None and fv.alternatives:
        options = [r.value for r in [fv, *fv.alternatives]]
    elif spec.type is FactType.ENUM:
        options = list(spec.values or [])
    elif spec.type is FactType.BOOL:
        options = [True, False]
    else:
        options = []
    # an answer may take every value of the enum, not only the readings in dispute
    choices = list(dict.fromkeys([*options, *(spec.values or [])])) if spec.type is FactType.ENUM else options
    return Question(
        fact=fact,
        question=q.get("question") or spec.question,
        type=spec.type.value,
        options=options,
        choices=choices,
        choice_labels=[formatting.value(spec, o) for o in choices],
        cost=float(q.get("cost") or spec.cost or 1),
        eig=q.get("eig"),
        utility=q.get("utility"),
        variable=q.get("variable"),
    )


def _sliders(
    pack: RulePack, case: CaseFile, prog: ProbProgram, priors: dict[str, float], weights: dict[str, Any]
) -> list[Slider]:
    """What the what-if may move: each two-narrative ambiguity's weight, each uncertain yes/no variable's
    prior, each soft rule's Alexy magnitudes."""
    names = {v.name for v in prog.variables}
    pairs = [f for f in ambiguous_facts(case) if {f"{f}__A", f"{f}__B"} <= names]  # else answered, or not A/B
    in_pair = {f"{f}__{w}" for f in pairs for w in "AB"}
    return [
        *(_ambiguity_slider(pack, case, fact) for fact in pairs),
        *_prior_sliders(pack, prog, priors, in_pair),
        *_alexy_sliders(pack, weights),
    ]


def _ambiguity_slider(pack: RulePack, case: CaseFile, fact: str) -> Slider:
    fv = case.facts[fact]
    readings = [
        {
            "value": r.value,
            "text": formatting.value(pack.facts.get(fact), r.value),
            "world": r.world.value,
            "confidence": r.confidence,
            "note": r.note,
        }
        for r in [fv, *fv.alternatives]
    ]
    total = sum(float(r["confidence"]) for r in readings) or 1.0
    first = round(float(readings[0]["confidence"]) / total, 4)
    label = pack.facts[fact].label if fact in pack.facts else fact
    return Slider(
        name=fact,
        group="priors",
        kind="ambiguity",
        fact=fact,
        world=World(readings[0]["world"]),
        label=f"{label} : {formatting.value(pack.facts.get(fact), readings[0]['value'])}",
        value=first,
        default=first,
        min=0,
        max=1,
        readings=readings,
    )


def slider_list(
    packs: PackLibrary,
    case: CaseFile,
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any],
    memos: Memos | None = None,
) -> list[Slider]:
    """The verdict's ``sliders`` without the verdict: what the slider ranking reads (the case model is the
    cached one, ``engine.prob.model_cache``), so a ranking under new hypotheses computes no verdict."""
    pack = load_pack(packs, case.pack).pack
    prog = build_program(pack, case, answers, memos=memos)[0]
    fact_priors, _ = split_priors(case, prog, priors)
    return _sliders(pack, apply_priors(case, fact_priors), prog, priors, weights)


def _prior_sliders(pack: RulePack, prog: ProbProgram, priors: dict[str, float], in_pair: set[str]) -> list[Slider]:
    out = []
    for var in prog.variables:
        if not isinstance(var, BoolVar) or var.name in in_pair:
            continue
        spec = pack.facts.get(var.name)
        base = var.name.split("__")[0]  # a model variable of a fact or computation (``x__open``, ``x__p0``)
        label = (spec.label or spec.question if spec else None) or pack.label_of(base)
        out.append(
            Slider(
                name=var.name,
                group="priors",
                kind="prior",
                fact=var.name if spec else None,
                world=World(var.world.value),
                label=label,
                value=round(float(priors.get(var.name, var.p)), 4),
                default=round(var.p, 4),
                min=0,
                max=1,
            )
        )
    return out


def _alexy_sliders(pack: RulePack, weights: dict[str, Any]) -> list[Slider]:
    out = []
    for rule in soft_rules(pack):
        for key in MAGNITUDES:
            side = rule.principle_claimant if key[1] == "1" else rule.principle_defence
            m = getattr(side, {"I": "intensity", "W": "weight", "R": "reliability"}[key[0]])
            default = round(_mean(m), 4)
            name = f"{rule.id}.{key}"
            who = "demanderesse" if key[1] == "1" else "défense"
            out.append(
                Slider(
                    name=name,
                    group="weights",
                    kind="alexy",
                    fact=rule.condition_atom,
                    label=f"{MAGNITUDE_NAMES[key[0]]} ({who} : {side.principle or rule.id})",
                    value=magnitude(weights[name]) if name in weights else default,
                    default=default,
                    scale="log2",
                    min=0.125 if key[0] == "R" else 0.5,
                    max=1.0 if key[0] == "R" else 8.0,
                )
            )
    return out


def _distribution(name: str, raw: Any, *, given_target: bool = False) -> Distribution:
    data = raw.model_dump() if hasattr(raw, "model_dump") else dict(raw)
    return Distribution(
        name=name,
        mean=data.get("mean"),
        p10=data.get("p10"),
        p50=data.get("p50"),
        p90=data.get("p90"),
        unit=data.get("unit") or "",
        condition=data.get("condition"),
        given_target=given_target,
        probability=data.get("probability") if given_target else None,
        method=None if data.get("method") in (None, PRIOR_PROPOSAL) else data.get("method"),
    )


def probability_of(cv: CaseVerdict) -> Probability:
    """The probabilistic layer's numbers under their one name each."""
    p = cv.probability
    if p is None:
        return Probability()
    given = dict(getattr(p, "outputs_given_target", {}) or {})
    outputs = dict(getattr(p, "outputs", {}) or {})
    return Probability(
        p_target=p.p_target,
        p_target_by_narrative=dict(p.p_target_by_narrative),
        p_narrative=dict(p.p_narrative),
        p_outcomes=dict(p.p_queries),
        entropy=p.entropy,
        entropy_threshold=p.entropy_threshold,
        method=str(getattr(p.method, "value", p.method)),
        error=p.error,
        n_worlds=p.n_worlds,
        plan=p.plan,
        interval=p.interval,
        method_text=method_phrase(p.model_dump(include={"method", "error", "n_worlds", "plan"})),
        evaluator=p.evaluator,
        p_evidence=p.p_evidence,
        collapsed=[c.model_copy() for c in p.collapsed],
        soft_factors=dict(p.soft_factors),
        whatif=dict(p.whatif),
        unweighed=sorted({m for names in (getattr(p, "unmodelled", None) or {}).values() for m in names}),
        distributions=[
            _distribution(name, given[name], given_target=True) if name in given else _distribution(name, raw)
            for name, raw in outputs.items()
        ],
        unconditional=[_distribution(name, outputs[name]) for name in given if name in outputs],
    )


def verdict_status(cv: CaseVerdict) -> VerdictStatus:
    if cv.analysis.verdict == "INCONSISTENT":
        return VerdictStatus.INCONSISTENT
    return VerdictStatus.NEEDS_INFORMATION if cv.status == "NEEDS_INFORMATION" else VerdictStatus.VERDICT


@dataclass
class _Decided:
    """What the decision step hands to the rest of the verdict: the case as weighed, the model, the numbers."""

    case: CaseFile  # the case with the ambiguity weights applied
    prog: ProbProgram | None  # the case model, when priors or sliders need its variables
    cv: CaseVerdict
    probability: Probability
    status: VerdictStatus


def build_verdict(
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    *,
    packs: PackLibrary,
    case_id: str | None = None,
    priors: dict[str, float] | None = None,
    weights: dict[str, Any] | None = None,
    whatif: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    analyser: Analyser | None = None,
    narratives: Narratives | None = None,
    sliders: bool = True,
    probabilistic: bool = True,
    inference: str = "auto",
    memo: RunMemo | None = None,
    limits: InferenceLimits | None = None,
    draw_worlds: WorldsSource | None = None,
) -> Verdict:
    """The typed verdict of a typed case, given typed answers.

    ``priors``: an ambiguous fact → weight of narrative A's reading, or a model variable → its prior;
    ``weights``: Alexy magnitudes (``<rule>.I1`` …); ``whatif``: raw what-if overrides (CLI ``--whatif``);
    ``dynamic``: interpretations of dynamic rules; ``analyser``: the (cached) symbolic analysis of one
    narrative's case file; ``narratives``: the narratives' analyses (default ``narrative_analyses``: a caller
    that keeps them, the API's verdict service, passes its own); ``memo``: the run's one-pass memo (a case and its answers analysed once);
    ``inference``: exact | sampling | pyro | auto; ``limits``: the route's thresholds (the caller's
    ``Settings.inference_*``, none: the defaults); ``probabilistic=False``: the symbolic analysis alone (the
    orchestrator's fast path when a fatal defeater is established: the target's probability is then 0 or 1
    without a model). ``draw_worlds``: where the numbers' sampled worlds come from (a portfolio group's case
    axis, ``engine.jobs.portfolio_axis``); None: ``sampled_worlds``.
    """
    answers = dict(answers or {})
    priors, weights = dict(priors or {}), dict(weights or {})
    memo = memo if memo is not None else RunMemo(memos=packs.memos)  # the library's memoised results
    loaded = load_pack(packs, case.pack)
    pack = loaded.pack
    d = _decide(
        loaded,
        case,
        answers,
        priors,
        weights,
        whatif,
        dynamic,
        sliders,
        probabilistic,
        inference,
        memo,
        limits=limits,
        draw_worlds=draw_worlds,
    )
    knowledge = epistemic.fact_knowledge(pack, d.case, answers, d.cv.analysis.values, memo.memos)

    def analyse_world(c: CaseFile, ans: dict[str, Any]) -> dict[str, Any]:  # a world's line reads these two only
        return memo.analyse(pack, loaded.program, c, ans or None).model_dump(mode="json", include=_WORLD_READS)

    worlds = _world_verdicts(
        pack, d.case, answers, d.probability, _dated(pack, analyser or analyse_world), narratives or narrative_analyses
    )
    verdict = _verdict(
        loaded, d, answers, knowledge, worlds, case_id=case_id, priors=priors, weights=weights, memos=memo.memos
    )
    return worded(
        pack,
        verdict.model_copy(
            update={
                "sliders": _sliders(pack, d.case, d.prog, priors, weights) if d.prog is not None and sliders else [],
                "outcome_knowledge": outcomes_known(loaded, d.case, answers, d.cv.analysis, dynamic, knowledge, memo),
            }
        ),
        memo.memos,
    )


_WORLD_READS = {"verdict", "summary"}  # what a narrative's line reads of its analysis (not a whole dump)


def _verdict(
    loaded: LoadedPack,
    d: _Decided,
    answers: dict[str, Any],
    knowledge: dict[str, Knowledge],
    worlds: list[WorldVerdict],
    *,
    case_id: str | None,
    priors: dict[str, float],
    weights: dict[str, Any],
    memos: Memos,
) -> Verdict:
    """The verdict's record: the analysis's outcomes, checks, proof and values, the numbers, the questions,
    the narratives and the facts table (the words come after, from the pack: ``worded``)."""
    pack, a = loaded.pack, d.cv.analysis
    target = a.outcomes.get(pack.manifest.target)
    return Verdict(
        **_record(loaded, d, answers, knowledge, case_id),
        proof=target.proof if target is not None else None,
        why_not=a.why_not,
        **_tables(pack, d.case, answers, a.values, memos),
        main_world=max(worlds, key=lambda w: w.weight).world if worlds else World.SHARED,
        worlds=worlds,
        priors=priors,
        weights=weights,
    )


TABLES_SIZE = 16


def _tables(
    pack: RulePack, case: CaseFile, answers: dict[str, Any], values: dict[str, Any], memos: Memos
) -> dict[str, Any]:
    """The verdict's values and facts table, kept for the same objects (pack, case, the analysis's values) and
    answers: a what-if that moves a prior shares them (~15 % of its CPU when rebuilt). Fresh containers each
    call; their rows are shared, never mutated. Kept by the owner of ``memos`` (the run, the verdict service)."""
    tables = memos.lru("verdict.tables", TABLES_SIZE)
    key = (id(pack), id(case), id(values), repr(sorted(answers.items())))
    hit = tables.get(key)
    if hit is not None and hit[0] is pack and hit[1] is case and hit[2] is values:
        return {"values": dict(hit[3]), "facts": list(hit[4])}
    out = {k: ValueOut(status=x.status, value=x.value, missing=list(x.missing)) for k, x in values.items()}
    rows = fact_rows(pack, case, answers, values)
    tables.put(key, (pack, case, values, out, rows))  # held: their ids are not reused while kept
    return {"values": dict(out), "facts": list(rows)}


def _record(
    loaded: LoadedPack, d: _Decided, answers: dict[str, Any], knowledge: dict[str, Knowledge], case_id: str | None
) -> dict[str, Any]:
    """The verdict's decision (its fields): status, label, summary, outcomes and checks, the numbers, the
    questions — what ``build_verdict`` and ``result_verdict`` share."""
    pack, a = loaded.pack, d.cv.analysis
    questions = _questions(pack, d, answers, knowledge)
    remedy = a.outcomes.get(a.remedy) if a.remedy else None
    return dict(
        case_id=case_id or a.case_id,
        pack=a.pack,
        status=d.status,
        label=VerdictLabel(a.verdict),
        summary=a.summary,
        applicable_law=a.applicable_law,
        target=pack.manifest.target,
        outcomes=a.outcomes,
        checks=a.checks,
        decisive_check=a.decisive_check,
        missing_facts=list(a.missing_facts),
        remedy=a.remedy,
        remedy_range=remedy.value if remedy is not None and isinstance(remedy.value, list) else None,
        probability=d.probability,
        questions=questions,
        best_question=questions[0] if questions and d.status is VerdictStatus.NEEDS_INFORMATION else None,
        answers=answers,
        knowledge=knowledge,
    )


def result_verdict(
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    *,
    packs: PackLibrary,
    case_id: str | None = None,
    whatif: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    probabilistic: bool = True,
    inference: str = "auto",
    memo: RunMemo | None = None,
    limits: InferenceLimits | None = None,
    draw_worlds: WorldsSource | None = None,
) -> Verdict:
    """The verdict as far as a portfolio's result line and the state machine read it (``lexlogic batch
    --portfolio`` without ``--proofs``): status, label, summary, outcomes (without trees), checks, P(target),
    missing facts, questions, remedy range, the outcomes' knowledge and states in words, the status badge —
    each by the code ``build_verdict`` runs, so they are its values (tests/pipeline/test_portfolio.py).
    Not built: proof and why-not trees, the outputs' distributions (unless a question about the damages can
    come from them), the facts table and values, the narratives' lines, the headline, reasons and remedy in
    words, the sliders. The knowledge of facts is built only for a case a reader wrote or with dynamic rules
    (otherwise no fact is « lu » and no outcome rests on one: nothing the line reads depends on it). Such a
    verdict is never stored or shown: portfolio mode keeps result lines, not states."""
    answers = dict(answers or {})
    memo = memo if memo is not None else RunMemo(memos=packs.memos)  # the library's memoised results
    loaded = load_pack(packs, case.pack)
    pack = loaded.pack
    d = _decide(
        loaded,
        case,
        answers,
        {},
        {},
        whatif,
        dynamic,
        False,
        probabilistic,
        inference,
        memo,
        numbers="questions",
        proofs=False,
        limits=limits,
        draw_worlds=draw_worlds,
    )
    a = d.cv.analysis
    read_or_interpreted = epistemic.machine_read(d.case) or bool(dynamic)
    knowledge = epistemic.fact_knowledge(pack, d.case, answers, a.values, memo.memos) if read_or_interpreted else {}
    known = outcomes_known(loaded, d.case, answers, a, dynamic, knowledge, memo, proofs=False)
    verdict = Verdict(**_record(loaded, d, answers, knowledge, case_id), outcome_knowledge=known)
    return verdict.model_copy(update=state_words(pack, verdict))


def _decide(
    loaded: LoadedPack,
    case: CaseFile,
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any],
    whatif: dict[str, Any] | None,
    dynamic: list[Any] | None,
    sliders: bool,
    probabilistic: bool,
    inference: str,
    memo: RunMemo,
    *,
    numbers: bool | Literal["questions"] = True,
    proofs: bool = True,
    limits: InferenceLimits | None = None,
    draw_worlds: WorldsSource | None = None,
) -> _Decided:
    """The symbolic analysis (the memo's), then the probabilistic verdict unless a defeater settled it
    (``numbers``, ``proofs``: as ``decide`` and ``analyse`` take them; a result line needs neither)."""
    pack, program = loaded.pack, loaded.program
    # decide() builds the case model itself: build it here too only when priors or sliders need its variables
    prog = build_program(pack, case, answers, memos=memo.memos)[0] if priors or sliders else None
    fact_priors, var_priors = split_priors(case, prog, priors) if prog is not None else ({}, {})
    cf = apply_priors(case, fact_priors)
    overrides: dict[str, Any] = {**(whatif or {}), **var_priors, **{k: magnitude(m) for k, m in weights.items()}}
    try:
        analysis = memo.analyse(pack, program, cf, answers, dynamic, proofs=proofs)
        if probabilistic:
            cv = decide(
                pack,
                program,
                cf,
                answers,
                overrides,
                dynamic=dynamic,
                inference=inference,
                analysis=analysis,
                numbers=numbers,
                limits=limits,
                draw_worlds=draw_worlds,
                memos=memo.memos,
            )
        else:
            cv = CaseVerdict(analysis=analysis, status="VERDICT")
    except CaseFileError as exc:
        raise case_file_error(exc) from exc
    except ValueError as exc:  # an unknown what-if name, a bad magnitude, answers the rules exclude
        raise InvalidInput(str(exc), [FieldIssue("body", "$.whatif", str(exc))], kind="what-if") from exc
    probability = probability_of(cv)
    probability.unweighed = [f for f in probability.unweighed if f in pack.facts]  # what an answer can give
    if not probabilistic:
        settled = cv.analysis.outcomes.get(pack.manifest.target)
        if settled is not None and settled.status in ("yes", "no"):
            p = 1.0 if settled.status == "yes" else 0.0
            probability = Probability(p_target=p, entropy=0.0, method="symbolic", error=0.0)
    return _Decided(case=cf, prog=prog, cv=cv, probability=probability, status=verdict_status(cv))


def _dated(pack: RulePack, analyse_world: Analyser) -> Analyser:
    """A narrative's case file keeps the pack's date order (each reading was checked, their mix was not)."""

    def checked(c: CaseFile, ans: dict[str, Any]) -> dict[str, Any]:
        try:
            check_date_order(c, pack)
        except CaseFileError as exc:
            raise case_file_error(exc) from exc
        return analyse_world(c, ans)

    return checked


def _world_verdicts(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any],
    probability: Probability,
    analyse_world: Analyser,
    narratives: Narratives,
) -> list[WorldVerdict]:
    """One line per narrative: its weight, P(target) in it, its symbolic label and summary."""
    worlds = [(w, rw, an) for w, rw, _, an in narratives(case, answers, analyse_world)]
    single = len(worlds) == 1
    return [
        WorldVerdict(
            world=w,
            weight=round(probability.p_narrative.get(w.value, 1.0 if single else rw), 6),
            p_target=probability.p_target_by_narrative.get(w.value, probability.p_target if single else None),
            label=VerdictLabel(an["verdict"]),
            summary=an["summary"],
        )
        for w, rw, an in worlds
    ]


def _questions(pack: RulePack, d: _Decided, answers: dict[str, Any], knowledge: dict[str, Knowledge]) -> list[Question]:
    """The model's questions (by EIG / cost), else the symbolic ones; a machine reading asks to be confirmed."""
    a = d.cv.analysis
    questions = [_question(pack, d.case, q["fact"], q) for q in d.cv.questions if q["fact"] not in answers]
    if not questions and d.status is VerdictStatus.NEEDS_INFORMATION:  # symbolic questions when the model ranks none
        questions = [
            _question(pack, d.case, q["fact"], {})
            for q in a.questions
            if q.get("fact") in pack.facts and q["fact"] not in answers
        ]
    return [confirm_reading(pack, q, knowledge.get(q.fact), a.values.get(q.fact)) for q in questions]


def confirm_reading(pack: RulePack, q: Question, known: Knowledge | None, info: Any) -> Question:
    """A question about a fact the machine read asks to confirm the reading (« J'ai lu … dans … »)."""
    if known is None or known.status is not Epistemic.READ or info is None or not known.read_in:
        return q
    said = formatting.value(pack.facts.get(q.fact), info.value)
    label = pack.facts[q.fact].label if q.fact in pack.facts else q.fact
    where = known.read_in[0] + (f" et {len(known.read_in) - 1} autre(s) pièce(s)" if len(known.read_in) > 1 else "")
    return q.model_copy(
        update={"question": f"J'ai lu « {label} : {said} » dans {where} : confirmez-vous ? ({q.question})"}
    )


def outcomes_known(
    loaded: LoadedPack,
    case: CaseFile,
    answers: dict[str, Any],
    a: Any,
    dynamic: list[Any] | None,
    facts: dict[str, Knowledge],
    memo: RunMemo,
    *,
    proofs: bool = True,
) -> dict[str, Knowledge]:
    """``_outcomes_known`` kept by the owner of ``memo.memos`` for the same objects (pack, case, analysis, the
    facts' knowledge) and answers: a what-if that moves a prior shares all of them (the memo's analysis,
    ``fact_knowledge``'s table), so the outcomes' table is the one already made (~4 % of a new what-if's server
    CPU). Not kept with dynamic interpretations. Entries shared, never mutated (a fresh dict each call)."""
    if dynamic:
        return _outcomes_known(loaded, case, answers, a, dynamic, facts, memo, proofs=proofs)
    kept = memo.memos.identity("verdict.outcomes_known", epistemic.KNOWN_SIZE)
    held = (loaded, case, a, *facts.values())
    rest = (json.dumps(answers, sort_keys=True, default=repr), tuple(facts), proofs)
    return dict(
        kept.get(held, rest, lambda: _outcomes_known(loaded, case, answers, a, None, facts, memo, proofs=proofs))
    )


def _outcomes_known(
    loaded: LoadedPack,
    case: CaseFile,
    answers: dict[str, Any],
    a: Any,
    dynamic: list[Any] | None,
    facts: dict[str, Knowledge],
    memo: RunMemo,
    *,
    proofs: bool = True,
) -> dict[str, Knowledge]:
    """How each outcome is known: the analysis is run again on the established facts alone (readings
    removed, no interpretation) and, with interpretations, without them; an outcome whose status changes
    rests on what was removed. ``proofs=False``: those analyses without trees, so an open outcome's
    ``rests_on`` (read from its proof) is not filled; status, basis and ``on_record`` are the same."""
    pack = loaded.pack
    statuses = {k: str(o.status) for k, o in a.outcomes.items()}
    open_reasons = {k: list(o.open_reasons) for k, o in a.outcomes.items()}
    if a.verdict == "INCONSISTENT":
        return epistemic.outcome_knowledge(statuses, open_reasons, None, None, facts)

    def run(c: Callable[[], CaseFile], dyn: list[Any] | None) -> dict[str, str] | None:
        try:
            variant = c()
            check_date_order(variant, pack)
            analysis = memo.analyse(pack, loaded.program, variant, answers, dyn, proofs=proofs)
            return {k: str(o.status) for k, o in analysis.outcomes.items()}
        except (InvalidInput, CaseFileError, ValueError):
            return None

    def record_only() -> CaseFile:
        # every burden-of-proof default left open: a reader's silence (or a reading removed) is no allegation
        opened = {
            n: check_value(spec, spec.default)
            for n, spec in pack.facts.items()
            if read and spec.burden and spec.default is not None
        }
        return epistemic.without_readings(case, opened)

    read = epistemic.machine_read(case)
    base = run(record_only, None) if read or dynamic else statuses
    plain = run(lambda: case, None) if dynamic else None
    out = epistemic.outcome_knowledge(statuses, open_reasons, base, plain, facts)
    for name, k in out.items():  # what an outcome rests on: the unestablished facts of its proof
        proof = a.outcomes[name].proof
        if k.on_record or proof is None:
            continue
        leaves = {n.atom.removeprefix("not ").split("(")[0] for n in proof.walk()}
        mine = [f for f in leaves if f in facts and not facts[f].on_record and facts[f].status is not Epistemic.UNKNOWN]
        if mine:
            out[name] = k.model_copy(update={"rests_on": sorted(mine)})
    return out


VALUE_STATUS_WORDS = {
    "given": "donné",
    "defaulted": "présumé (non allégué)",
    "computed": "calculé",
    "unknown": "inconnu",
    "open": "à apprécier par le juge",
    "dynamic": "interprétation (pas une règle de droit)",
    "parameter": "paramètre légal en vigueur",
}

VALUE_KNOWLEDGE = {
    "given": Epistemic.GIVEN,
    "defaulted": Epistemic.DEFAULT,
    "computed": Epistemic.COMPUTED,
    "unknown": Epistemic.UNKNOWN,
    "open": Epistemic.APPRECIATION,
    "dynamic": Epistemic.INTERPRETATION,
    "parameter": Epistemic.GIVEN,
}

ALLEGATION_WORDS = {"not_alleged": "non allégué", "alleged": "allégué", "proven": "prouvé", "disproven": "réfuté"}


def _value_text(spec: Any, value: Any) -> str:
    """A value per year (``{"2013": 159120.0, …}``) as « 2013 : 159 120 € ; … », otherwise the fact's format."""
    if isinstance(value, dict):
        unit = "EUR" if "€" in (spec.label or "") else None
        return " ; ".join(f"{k} : {formatting.value(None, v, unit)}" for k, v in value.items())
    return formatting.value(spec, value)


def fact_rows(pack: RulePack, case: CaseFile, answers: dict[str, Any], values: dict[str, Any]) -> list[FactRow]:
    """The facts table: one row per reading of each pack fact (value, status, who alleges it, passages)."""
    rows: list[FactRow] = []
    read_case = epistemic.machine_read(case)
    for name, spec in pack.facts.items():
        answered = name in answers
        if answered:  # the answer decides; the pieces that spoke of it stay listed (never lost from the report)
            value = formatting.value(spec, answers[name])
            rows.append(
                FactRow(fact=name, label=spec.label, value=value, status="réponse donnée", knowledge=Epistemic.ANSWERED)
            )
        fv = case.facts.get(name)
        if fv is not None:
            rows += _reading_rows(spec, name, fv, answered)
        elif not answered and values.get(name) is not None:
            rows.append(_value_row(spec, name, values[name], read_case))
    return rows


def _value_row(spec: Any, name: str, info: Any, read_case: bool) -> FactRow:
    """A fact nobody gave: the value the analysis used (a default, a parameter, a computation…)."""
    status = getattr(info.status, "value", str(info.status))
    said = VALUE_STATUS_WORDS.get(status, status)
    if status == "defaulted" and read_case:
        said = "présumé : rien lu dans les pièces (à confirmer)"
    value = formatting.value(spec, info.value)
    return FactRow(fact=name, label=spec.label, value=value, status=said, knowledge=VALUE_KNOWLEDGE.get(status))


def _reading_rows(spec: Any, name: str, fv: FactValue, answered: bool) -> list[FactRow]:
    """One row per reading of a fact of the case file: its value, who alleges it, where it was read."""
    readings = epistemic.readings_of(fv)
    read = epistemic.is_reading(fv)
    rows = []
    for r in readings:
        world = r.world.value
        contested = world != World.SHARED.value or len(readings) > 1
        allegation = r.allegation.value if r.allegation is not None else None
        status = str(
            ALLEGATION_WORDS.get(str(allegation), "")
            or ("allégué, contesté" if contested else "donné" if not read else "")
        )
        if read:  # the machine read it: where, and never « établi »
            where = epistemic.places([r]) or ["les pièces"]
            more = f" et {len(where) - 1} autre{'s' if len(where) > 2 else ''} pièce{'s' if len(where) > 2 else ''}"
            status = ", ".join(x for x in (status, f"lu dans {where[0]}") if x)
            status += (more if len(where) > 1 else "") + " (à confirmer)"
        rows.append(
            FactRow(
                fact=name,
                label=spec.label,
                value=_value_text(spec, r.value),
                status="remplacé par la réponse donnée" if answered else status,
                knowledge=Epistemic.ANSWERED if answered else Epistemic.READ if read else Epistemic.GIVEN,
                confidence=float(r.confidence) if read and not answered else None,
                confirm=confirmable(spec, r.value) if read and not answered else None,
                by=wording.NARRATIVE_WORDS.get(world) if contested else None,
                passages=[g for g in r.grounding if g.document_id and g.char_start is not None],
            )
        )
    return rows


def confirmable(spec: Any, value: Any) -> Confirmable:
    """A reading as the answer that confirms it, and the values a correction may take (bool, enum)."""
    choices: list[Any] = [True, False] if spec.type is FactType.BOOL else list(spec.values or [])
    return Confirmable(
        value=value,
        type=spec.type.value,
        choices=choices,
        choice_labels=[formatting.value(spec, o) for o in choices],
    )


def state_words(pack: RulePack, verdict: Verdict) -> dict[str, Any]:
    """The status badge, the target's name and each outcome's state in words (what a result line reads)."""
    return {
        "status_text": wording.status_text(verdict),
        "target_label": pack.target_label if hasattr(pack, "target_label") else pack.manifest.target,
        "outcome_states": {
            k: wording.state_of(o.status, o.open_reasons, verdict.outcome_knowledge.get(k))
            for k, o in verdict.outcomes.items()
        },
    }


def worded(pack: RulePack, verdict: Verdict, memos: Memos | None = None) -> Verdict:
    """The verdict's words (headline, reasons, missing facts) from the pack's templates and labels (``memos``:
    the owner's, where a reason's fact lines are kept)."""
    return verdict.model_copy(
        update={
            **state_words(pack, verdict),
            "headline": wording.headline(pack, verdict),
            "tone": wording.tone(pack, verdict),
            "reasons": wording.reasons(pack, verdict, memos),
            "missing": wording.missing(pack, verdict),
            **_kept_words(pack, verdict, memos),
            "probability": _labelled(pack, verdict.probability),
        }
    )


WORDS_SIZE = 16


def _kept_words(pack: RulePack, verdict: Verdict, memos: Memos | None) -> dict[str, Any]:
    """The remedy's sentence and the rules set aside, kept by the owner of ``memos`` for the very objects they
    read (the pack, the remedy's outcome, the values' rows) and the rest of what they read: a what-if that moves
    a prior keeps them all, and their amounts and dates were formatted again each time (~4 % of its CPU)."""
    if memos is None:
        return {
            "remedy_text": wording.remedy_text(pack, verdict),
            "set_aside_rules": wording.set_aside_rules(pack, verdict.values),
        }
    remedy = verdict.outcomes.get(verdict.remedy) if verdict.remedy else None
    rest = (verdict.remedy, tuple(verdict.remedy_range or ()), str(verdict.label), verdict.target)
    text = memos.identity("verdict.remedy_text", WORDS_SIZE).get(
        (pack, remedy), rest, lambda: wording.remedy_text(pack, verdict)
    )
    aside = memos.identity("verdict.set_aside_rules", WORDS_SIZE).get(
        (pack, *verdict.values.values()),
        tuple(verdict.values),
        lambda: tuple(wording.set_aside_rules(pack, verdict.values)),
    )
    return {"remedy_text": text, "set_aside_rules": list(aside)}


def _labelled(pack: RulePack, prob: Probability) -> Probability:
    """The distributions named by the pack's outputs (weights.yaml), so no face words them itself."""
    from lexlogic.engine.prob.case_model import weights_of

    w = weights_of(pack)
    outputs = w.outputs if w is not None else {}

    def named(ds: list[Distribution]) -> list[Distribution]:
        return [
            d.model_copy(update={"label": outputs[d.name].label}) if d.name in outputs and outputs[d.name].label else d
            for d in ds
        ]

    return prob.model_copy(
        update={"distributions": named(prob.distributions), "unconditional": named(prob.unconditional)}
    )


def narrative_analyses(
    case: CaseFile, answers: dict[str, Any], analyse_world: Analyser
) -> list[tuple[World, float, CaseFile, dict[str, Any]]]:
    """(world, reading weight, world case file, symbolic analysis) for each narrative: an answered ambiguity
    collapses to the chosen reading, the other answers go to every narrative's analysis."""
    amb = set(ambiguous_facts(case))
    collapsed = apply_answers(case, {k: v for k, v in answers.items() if k in amb})
    rest = {k: v for k, v in answers.items() if k not in amb}
    return [(w, p, c, analyse_world(c, rest)) for w, p, c in split_worlds(collapsed)]


class _LRU:
    """A small LRU with single flight: concurrent misses on one key compute once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.inflight: dict[str, threading.Lock] = {}

    def get_or_compute(self, key: str, fn: Callable[[], Any]) -> tuple[Any, bool]:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key], True
            gate = self.inflight.setdefault(key, threading.Lock())
        with gate:
            with self.lock:
                if key in self.data:
                    return self.data[key], True
            try:
                value = fn()
            finally:
                with self.lock:
                    self.inflight.pop(key, None)
            with self.lock:
                self.data[key] = value
                self.data.move_to_end(key)
                while len(self.data) > self.size:
                    self.data.popitem(last=False)
            return value, False


Proofs = Literal["target", "all"]


def compact(verdict: Verdict, kept: IdentityMemo[dict[str, Outcome]] | None = None) -> Verdict:
    """The verdict without each outcome's proof tree (``outcomes.*.proof`` null); the target's proof stays in
    ``proof`` and ``why_not``. Why: the trees are ~70 % of the example's 650 KB JSON, repeat one another (the
    target's tree holds its premises' trees) and no page reads them; every cached request paid for sending and
    reading them. The same schema (``Outcome.proof`` is optional): ``proofs=all`` gives them back.
    ``kept``: the owner's memo of the proof-less outcomes by the identity of the outcomes (the verdict service's):
    a what-if that moves a prior keeps the analysis's outcomes, so it gets the very same copies — no copy made
    again, and their JSON spliced from the previous what-if (``serialise``), not re-encoded."""
    held = tuple(verdict.outcomes.values())

    def stripped() -> dict[str, Outcome]:
        return {name: o.model_copy(update={"proof": None}) for name, o in verdict.outcomes.items()}

    outcomes = stripped() if kept is None else dict(kept.get(held, tuple(verdict.outcomes), stripped))
    return verdict.model_copy(update={"outcomes": outcomes})


def cache_key(key: dict[str, Any], proofs: Proofs) -> dict[str, Any]:
    """The cache identity of a serialisation: the full form keeps the caller's key (as before), the compact one
    adds its form."""
    return key if proofs == "all" else {**key, "proofs": proofs}


class _SharedMemo(RunMemo):
    """A ``RunMemo`` shared by the service's request threads (its tables guarded; an analysis is computed
    outside the lock: two threads may compute the same one, the second result is kept, both are equal)."""

    def __init__(self, limit: int, memos: Memos) -> None:
        super().__init__(limit, memos)
        self._lock = threading.Lock()

    def _keep(self, table: dict[str, Any], key: str, value: Any) -> None:
        with self._lock:
            super()._keep(table, key, value)

    def _remember(self, case: CaseFile, key: str) -> None:
        with self._lock:
            super()._remember(case, key)


class FairSlots:
    """At most ``n`` holders at once, the waiters served in their order of arrival.

    Why not a semaphore: a released permit goes to whichever thread asks first, and under the GIL a newly
    arrived request usually beats the waiter just woken — with 16 clients on 2 permits, some requests waited
    for seconds while others passed at once (in-process, 16 threads of new what-ifs: p50 49 ms, p99 8.5 s).
    Here a released slot is handed to the oldest waiter (its own lock, released for it), never to a newcomer."""

    def __init__(self, n: int) -> None:
        self._free = n
        self._lock = threading.Lock()
        self._waiters: deque[threading.Lock] = deque()

    def __enter__(self) -> FairSlots:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return self
            gate = threading.Lock()
            gate.acquire()
            self._waiters.append(gate)
        gate.acquire()  # released by the holder that hands its slot over
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._waiters:
                self._waiters.popleft().release()  # the slot passes to the oldest waiter
            else:
                self._free += 1


class VerdictService:
    """Verdicts and per-narrative analyses, cached (serialised verdicts as bytes: a hit costs a hash)."""

    def __init__(
        self, packs: PackLibrary, size: int = 256, workers: int | None = None, limits: InferenceLimits | None = None
    ) -> None:
        """``workers``: at most that many verdicts computed at once (None: no bound). Why a bound: a verdict
        is CPU work under the GIL; sixteen request threads computing at once each finish last, and starve the
        event loop that serves the cached answers; queued, they finish in turn. ``limits``: the inference
        route's thresholds (the deployment's ``Settings.inference_*``, built at the edge; None: the defaults)."""
        self.packs = packs
        self.limits = limits
        self.verdicts = _LRU(size)
        self._computing = FairSlots(workers) if workers else None
        self.analyses = _LRU(size * 8)
        self._memos: OrderedDict[str, _SharedMemo] = OrderedDict()  # pack content digest → its memo
        self._memos_lock = threading.Lock()
        self._reads: dict[int, tuple[dict[str, Any], LoadedPack, CaseFile]] = {}  # see ``read``
        self._reads_lock = threading.Lock()
        self._fields = serialise.FieldJson()  # shared fields' JSON, kept by their items (see ``serialise``)
        self._narratives: IdentityMemo[tuple[Any, ...]] = IdentityMemo(64)  # see ``narratives``
        self._compact: IdentityMemo[dict[str, Outcome]] = IdentityMemo(64)  # see ``compact``

    def memos(self, case: CaseFile) -> Memos:
        """The memoised results the service keeps (its library's, shared by its memos): what the API's other
        routes (a what-if's priors checked, the sliders) pass down, so they share the verdicts' models."""
        return self.memo(load_pack(self.packs, case.pack).digest).memos

    def memo(self, digest: str) -> RunMemo:
        """The service's memo for one version of a pack (keyed by its content: an edited pack starts a new one).
        Why: a what-if that moves a prior keeps the case and answers, so its symbolic analysis (proofs, why-not:
        ~a quarter of a new what-if's CPU) is the one already made; a fresh memo per verdict redid it."""
        with self._memos_lock:
            memo = self._memos.get(digest)
            if memo is None:
                # one Memos for the service, its library's (keys hold the pack: an edited pack is a new entry):
                # the bounds of each table are the service's, not multiplied by its pack versions
                memo = self._memos[digest] = _SharedMemo(self.verdicts.size, self.packs.memos)
                while len(self._memos) > 4:
                    self._memos.popitem(last=False)
            return memo

    def read(self, stored: dict[str, Any]) -> CaseFile:
        """The edge: a case file as stored (JSON) → the typed case (InvalidInput, UnknownPack). Remembered by
        the stored dict's identity and the pack's version (a head state's case file is one dict that nobody
        mutates: the API parses it once, not twice per what-if, ~8 ms each)."""
        loaded = load_pack(self.packs, str(stored.get("pack")))
        with self._reads_lock:
            hit = self._reads.get(id(stored))
        if hit is not None and hit[0] is stored and hit[1] is loaded:
            return hit[2]
        case = parse(stored, loaded.pack)
        with self._reads_lock:
            self._reads[id(stored)] = (stored, loaded, case)  # holding ``stored``: its id is not reused
            while len(self._reads) > 64:
                self._reads.pop(next(iter(self._reads)))
        return case

    def analyse(self, case: CaseFile, answers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The symbolic analysis of one (narrative's) case file, cached without confidences (keyed by the
        pack's content too: an edited pack is a new analysis)."""
        loaded = load_pack(self.packs, case.pack)
        key = canonical_hash({"c": without_confidences(case), "a": answers or {}, "v": loaded.digest})
        value, _ = self.analyses.get_or_compute(
            key, lambda: analyse_case_file(loaded, case, answers or None, self.packs.memos)
        )
        return dict(value)

    def narratives(
        self, case: CaseFile, answers: dict[str, Any], analyse_world: Analyser
    ) -> list[tuple[World, float, CaseFile, dict[str, Any]]]:
        """``narrative_analyses`` kept for the same case object, answers and pack version. Why: a what-if that
        moves a model prior keeps the very case object; splitting it into its narratives again and hashing each
        narrative's case to find its cached analysis was ~5 % of a new what-if's CPU. Only for the analyser
        ``verdict_json`` gives ``build_verdict`` (this service's ``analyse``, date-checked): the key ignores it."""
        rest = (load_pack(self.packs, case.pack).digest, json.dumps(answers, sort_keys=True, default=repr))
        kept = self._narratives.get((case,), rest, lambda: tuple(narrative_analyses(case, answers, analyse_world)))
        return list(kept)

    def verdict_json(
        self,
        case_id: str,
        stored: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        key: dict[str, Any] | None = None,
        weights: dict[str, Any] | None = None,
        proofs: Proofs = "all",
    ) -> tuple[bytes, bool]:
        """The serialised verdict of a case file as stored (parsed only on a miss). ``key``: a cheaper identity
        of (case, answers) when the caller has one. ``proofs``: ``all`` (every outcome's proof tree, as before)
        or ``target`` (``compact``: the target's proof only, the form the API serves by default)."""
        weights = weights or {}
        if key is None:  # the case's content and its pack's content
            digest = load_pack(self.packs, str(stored.get("pack"))).digest
            key = {"id": case_id, "c": stored, "a": answers, "p": priors, "w": weights, "v": digest}

        def serialised() -> bytes:
            if self._computing is None:
                return computed()
            with self._computing:
                return computed()

        def computed() -> bytes:
            case = self.read(stored)
            verdict = build_verdict(
                case,
                answers,
                packs=self.packs,
                case_id=case_id,
                priors=priors,
                weights=weights,
                analyser=self.analyse,
                narratives=self.narratives,
                memo=self.memo(load_pack(self.packs, case.pack).digest),
                limits=self.limits,
            )
            return serialise.verdict_json(verdict if proofs == "all" else compact(verdict, self._compact), self._fields)

        body, hit = self.verdicts.get_or_compute(canonical_hash(cache_key(key, proofs)), serialised)
        return bytes(body), hit

    def remember(self, key: dict[str, Any], body: bytes) -> None:
        """Store a serialised verdict under another identity (e.g. a what-if's raw request)."""
        self.verdicts.get_or_compute(canonical_hash(key), lambda: body)

    def peek(self, key: dict[str, Any]) -> bytes | None:
        """A cached serialised verdict, or None (never computes)."""
        k = canonical_hash(key)
        with self.verdicts.lock:
            hit = self.verdicts.data.get(k)
        return bytes(hit) if hit is not None else None

    def verdict(
        self,
        case_id: str,
        stored: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        weights: dict[str, Any] | None = None,
        proofs: Proofs = "all",
    ) -> Verdict:
        body = self.verdict_json(case_id, stored, answers, priors, weights=weights, proofs=proofs)[0]
        return Verdict.model_validate_json(body)

    def worlds(
        self, case: CaseFile, answers: dict[str, Any], priors: dict[str, float]
    ) -> list[tuple[World, float, CaseFile, dict[str, Any]]]:
        """(world, reading weight, world case file, symbolic analysis) for each narrative."""
        pack = load_pack(self.packs, case.pack).pack
        return narrative_analyses(apply_priors(case, priors), answers, _dated(pack, self.analyse))
