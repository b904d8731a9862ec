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
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine import formatting, wording
from lexlogic.engine.analysis import analyse, analyse_case_file
from lexlogic.engine.narratives import (
    ambiguous_facts,
    apply_answers,
    apply_priors,
    split_worlds,
    without_confidences,
)
from lexlogic.engine.packs import pack_by_name
from lexlogic.engine.prob import BoolVar, ProbProgram
from lexlogic.engine.verdict import CaseVerdict, build_program, decide
from lexlogic.engine.verdict_model import (
    CollapsedNarrative,
    Distribution,
    FactRow,
    Passage,
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
from lexlogic.logic.facts import CaseFile, CaseFileError, World, check_value, parse_case
from lexlogic.logic.pack import FactType, PackError, RulePack
from lexlogic.logic.weights import ALEXY_LEVELS, Beta, Fixed, Scale, load_weights

MAGNITUDES = ("I1", "W1", "R1", "I2", "W2", "R2")
MAGNITUDE_NAMES = {"I": "intensité", "W": "poids abstrait", "R": "fiabilité"}
Analyser = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


class UnknownPack(InvalidInput):
    """The case names a pack that is not installed."""


def _case_error(exc: CaseFileError) -> InvalidInput:
    return InvalidInput(exc.message, [FieldIssue("case", exc.path, exc.message)], kind="case-file")


def load_pack(name: str) -> tuple[RulePack, CompiledProgram]:
    try:
        return pack_by_name(name)
    except PackError as exc:
        raise UnknownPack(str(exc), kind="unknown-pack") from exc


def parse(case: dict[str, Any], pack: RulePack) -> CaseFile:
    try:
        return parse_case(copy.deepcopy(case), pack)
    except CaseFileError as exc:
        raise _case_error(exc) from exc


def magnitude(value: Any) -> float:
    return ALEXY_LEVELS[value] if isinstance(value, str) else float(value)


def _mean(m: Fixed | Beta | Scale) -> float:
    if isinstance(m, Fixed):
        return m.value
    if isinstance(m, Beta):
        return m.mean
    return float(sum(v * p for v, p in zip(m.values, m.probs)))


def model_of(pack: RulePack, case: dict[str, Any], answers: dict[str, Any]) -> ProbProgram:
    """The probabilistic program of the case (its variables name what the what-if may move)."""
    return build_program(pack, parse(case, pack), answers)[0]


def soft_rules(pack: RulePack) -> list[Any]:
    """The pack's Alexy soft rules (weights.yaml): what-if magnitudes, whether the model keeps a rule as a
    factor or folds it into the judge's call."""
    if not pack.manifest.files.weights:
        return []
    return list(load_weights(pack.root / pack.manifest.files.weights).soft_rules)


def split_priors(
    case: dict[str, Any], prog: ProbProgram, priors: dict[str, float]
) -> tuple[dict[str, float], dict[str, float]]:
    """(ambiguity weights → case file, variable priors → what-if): a model variable wins a name clash."""
    names = {v.name for v in prog.variables}
    amb = set(ambiguous_facts(case))
    return (
        {k: v for k, v in priors.items() if k in amb and k not in names},
        {k: v for k, v in priors.items() if k in names},
    )


def validate_inputs(
    case: dict[str, Any],
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any] | None = None,
    saved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Answers against the pack's vocabulary; priors against the case's ambiguities and uncertain yes/no
    variables; weights against the pack's soft-rule magnitudes. Returns the answers as typed values;
    raises ``InvalidInput`` with the JSON path of every problem."""
    pack, _ = load_pack(str(case.get("pack")))
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
    if (priors or weights) and not issues:
        given = {**(saved or {}), **clean}  # the model the verdict will use: saved answers + these
        prog = model_of(pack, case, given)
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


def _question(pack: RulePack, case: dict[str, Any], fact: str, q: dict[str, Any]) -> Question:
    spec = pack.facts[fact]
    fv = case.get("facts", {}).get(fact)
    options: list[Any]
    if isinstance(fv, dict) and fv.get("alternatives"):
        options = [r.get("value") for r in [fv, *fv["alternatives"]]]
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
    pack: RulePack, case: dict[str, Any], prog: ProbProgram, priors: dict[str, float], weights: dict[str, Any]
) -> list[Slider]:
    out: list[Slider] = []
    in_pair: set[str] = set()
    names = {v.name for v in prog.variables}
    for fact in ambiguous_facts(case):
        if not {f"{fact}__A", f"{fact}__B"} <= names:
            continue  # answered, or not a two-narrative ambiguity
        in_pair |= {f"{fact}__A", f"{fact}__B"}
        fv = case["facts"][fact]
        readings = [
            {
                "value": r.get("value"),
                "text": formatting.value(pack.facts.get(fact), r.get("value")),
                "world": r.get("world", World.SHARED.value),
                "confidence": r.get("confidence", 1.0),
                "note": r.get("note"),
            }
            for r in [fv, *fv["alternatives"]]
        ]
        total = sum(float(r["confidence"]) for r in readings) or 1.0
        first = round(float(readings[0]["confidence"]) / total, 4)
        label = pack.facts[fact].label if fact in pack.facts else fact
        out.append(
            Slider(
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
        )
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
    for rule in soft_rules(pack):
        for key in MAGNITUDES:
            side = rule.principle_claimant if key[1] == "1" else rule.principle_defence
            m = getattr(side, {"I": "intensity", "W": "weight", "R": "reliability"}[key[0]])
            default = round(_mean(m), 4)
            name = f"{rule.id}.{key}"
            value = magnitude(weights[name]) if name in weights else default
            who = "demanderesse" if key[1] == "1" else "défense"
            out.append(
                Slider(
                    name=name,
                    group="weights",
                    kind="alexy",
                    fact=rule.condition_atom,
                    label=f"{MAGNITUDE_NAMES[key[0]]} ({who} : {side.principle or rule.id})",
                    value=value,
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
        evaluator=p.evaluator,
        p_evidence=p.p_evidence,
        collapsed=[
            CollapsedNarrative(narrative=World(c.narrative.value), probability=c.probability, epsilon=c.epsilon)
            for c in p.collapsed
        ],
        soft_factors=dict(p.soft_factors),
        whatif=dict(p.whatif),
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


def build_verdict(
    case: dict[str, Any],
    answers: dict[str, Any] | None = None,
    *,
    case_id: str | None = None,
    priors: dict[str, float] | None = None,
    weights: dict[str, Any] | None = None,
    whatif: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    analyser: Analyser | None = None,
    sliders: bool = True,
    probabilistic: bool = True,
) -> Verdict:
    """The typed verdict of a case file (a plain dict, as stored), given typed answers.

    ``priors``: an ambiguous fact → weight of narrative A's reading, or a model variable → its prior;
    ``weights``: Alexy magnitudes (``<rule>.I1`` …); ``whatif``: raw what-if overrides (CLI ``--whatif``);
    ``dynamic``: interpretations of dynamic rules; ``analyser``: the (cached) symbolic analysis of one
    narrative's case file; ``probabilistic=False``: the symbolic analysis alone (the orchestrator's fast
    path when a fatal defeater is established: the target's probability is then 0 or 1 without a model).
    """
    answers = dict(answers or {})
    priors, weights = dict(priors or {}), dict(weights or {})
    pack, program = load_pack(str(case.get("pack")))
    # decide() builds the case model itself: build it here too only when priors or sliders need its variables
    prog = model_of(pack, case, answers) if priors or sliders else None
    fact_priors, var_priors = split_priors(case, prog, priors) if prog is not None else ({}, {})
    cf = apply_priors(case, fact_priors)
    overrides: dict[str, Any] = {**(whatif or {}), **var_priors, **{k: magnitude(m) for k, m in weights.items()}}
    try:
        if probabilistic:
            cv = decide(pack, program, parse(cf, pack), answers, overrides, dynamic=dynamic)
        else:
            cv = CaseVerdict(analysis=analyse(pack, program, parse(cf, pack), answers, dynamic), status="VERDICT")
    except CaseFileError as exc:
        raise _case_error(exc) from exc
    except ValueError as exc:  # an unknown what-if name, a bad magnitude, answers the rules exclude
        raise InvalidInput(str(exc), [FieldIssue("body", "$.whatif", str(exc))], kind="what-if") from exc
    a = cv.analysis
    probability = probability_of(cv)
    if not probabilistic:
        settled = a.outcomes.get(pack.manifest.target)
        if settled is not None and settled.status in ("yes", "no"):
            p = 1.0 if settled.status == "yes" else 0.0
            probability = Probability(p_target=p, entropy=0.0, method="symbolic", error=0.0)
    status = verdict_status(cv)

    analyse_world = analyser or (lambda c, ans: analyse_case_file(c, ans or None))
    worlds = [(w, rw, an) for w, rw, _, an in narrative_analyses(cf, answers, analyse_world)]
    single = len(worlds) == 1
    world_list = [
        WorldVerdict(
            world=w,
            weight=round(probability.p_narrative.get(w.value, 1.0 if single else rw), 6),
            p_target=probability.p_target_by_narrative.get(w.value, probability.p_target if single else None),
            label=VerdictLabel(an["verdict"]),
            summary=an["summary"],
        )
        for w, rw, an in worlds
    ]
    main_world = max(world_list, key=lambda w: w.weight).world if world_list else World.SHARED

    questions = [_question(pack, cf, q["fact"], q) for q in cv.questions if q["fact"] not in answers]
    if not questions and status is VerdictStatus.NEEDS_INFORMATION:  # symbolic questions when the model ranks none
        questions = [
            _question(pack, cf, q["fact"], {})
            for q in a.questions
            if q.get("fact") in pack.facts and q["fact"] not in answers
        ]
    target = a.outcomes.get(pack.manifest.target)
    remedy = a.outcomes.get(a.remedy) if a.remedy else None
    remedy_range = remedy.value if remedy is not None and isinstance(remedy.value, list) else None
    verdict = Verdict(
        case_id=case_id or a.case_id,
        pack=a.pack,
        status=status,
        label=VerdictLabel(a.verdict),
        summary=a.summary,
        applicable_law=a.applicable_law,
        target=pack.manifest.target,
        outcomes=a.outcomes,
        checks=a.checks,
        decisive_check=a.decisive_check,
        proof=target.proof if target is not None else None,
        why_not=a.why_not,
        values={k: ValueOut(status=x.status, value=x.value, missing=list(x.missing)) for k, x in a.values.items()},
        missing_facts=list(a.missing_facts),
        remedy=a.remedy,
        remedy_range=remedy_range,
        probability=probability,
        questions=questions,
        best_question=questions[0] if questions and status is VerdictStatus.NEEDS_INFORMATION else None,
        main_world=main_world,
        worlds=world_list,
        answers=answers,
        priors=priors,
        weights=weights,
        sliders=_sliders(pack, cf, prog, priors, weights) if prog is not None and sliders else [],
        facts=fact_rows(pack, cf, answers, a.values),
    )
    return worded(pack, verdict)


VALUE_STATUS_WORDS = {
    "given": "donné",
    "defaulted": "présumé (non allégué)",
    "computed": "calculé",
    "unknown": "inconnu",
    "open": "à apprécier par le juge",
    "dynamic": "interprétation (pas une règle de droit)",
    "parameter": "paramètre légal en vigueur",
}

ALLEGATION_WORDS = {"not_alleged": "non allégué", "alleged": "allégué", "proven": "prouvé", "disproven": "réfuté"}


def _value_text(spec: Any, value: Any) -> str:
    """A value per year (``{"2013": 159120.0, …}``) as « 2013 : 159 120 € ; … », otherwise the fact's format."""
    if isinstance(value, dict):
        unit = "EUR" if "€" in (spec.label or "") else None
        return " ; ".join(f"{k} : {formatting.value(None, v, unit)}" for k, v in value.items())
    return formatting.value(spec, value)


def fact_rows(pack: RulePack, case: dict[str, Any], answers: dict[str, Any], values: dict[str, Any]) -> list[FactRow]:
    """The facts table: one row per reading of each pack fact (value, status, who alleges it, passages)."""
    rows: list[FactRow] = []
    facts = case.get("facts") or {}
    for name, spec in pack.facts.items():
        info = values.get(name)
        answered = name in answers
        if answered:  # the answer decides; the pieces that spoke of it stay listed (never lost from the report)
            rows.append(
                FactRow(
                    fact=name, label=spec.label, value=formatting.value(spec, answers[name]), status="réponse donnée"
                )
            )
        fv = facts.get(name)
        if answered and fv is None:
            continue
        if fv is None:
            if info is None:
                continue
            status = getattr(info.status, "value", str(info.status))
            rows.append(
                FactRow(
                    fact=name,
                    label=spec.label,
                    value=formatting.value(spec, info.value),
                    status=VALUE_STATUS_WORDS.get(status, status),
                )
            )
            continue
        readings = [fv, *fv.get("alternatives", [])] if isinstance(fv, dict) else [{"value": fv}]
        for r in readings:
            world = str(r.get("world", World.SHARED.value))
            passages = [
                Passage(
                    document=str(g["document_id"]),
                    page=g.get("page"),
                    char_start=g.get("char_start"),
                    char_end=g.get("char_end"),
                    quote=g.get("quote"),
                )
                for g in r.get("grounding") or []
                if isinstance(g, dict) and g.get("document_id") and g.get("char_start") is not None
            ]
            contested = world != World.SHARED.value or len(readings) > 1
            status = str(
                ALLEGATION_WORDS.get(str(r.get("allegation")), "")
                or ("allégué, contesté" if contested else "établi par les pièces" if passages else "donné")
            )
            if answered:
                status = "remplacé par la réponse donnée"
            rows.append(
                FactRow(
                    fact=name,
                    label=spec.label,
                    value=_value_text(spec, r.get("value")),
                    status=status,
                    by=wording.NARRATIVE_WORDS.get(world) if contested else None,
                    passages=passages,
                )
            )
    return rows


def worded(pack: RulePack, verdict: Verdict) -> Verdict:
    """The verdict's words (headline, reasons, missing facts) from the pack's templates and labels."""
    return verdict.model_copy(
        update={
            "headline": wording.headline(pack, verdict),
            "status_text": wording.STATUS_WORDS[verdict.status.value],
            "target_label": pack.target_label if hasattr(pack, "target_label") else pack.manifest.target,
            "reasons": wording.reasons(pack, verdict),
            "missing": wording.missing(pack, verdict),
            "outcome_states": {k: wording.state_of(o.status, o.open_reasons) for k, o in verdict.outcomes.items()},
            "remedy_text": wording.remedy_text(pack, verdict),
            "probability": _labelled(pack, verdict.probability),
        }
    )


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
    case: dict[str, Any], answers: dict[str, Any], analyse_world: Analyser
) -> list[tuple[World, float, dict[str, Any], dict[str, Any]]]:
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


class VerdictService:
    """Verdicts and per-narrative analyses, cached (serialised verdicts as bytes: a hit costs a hash)."""

    def __init__(self, size: int = 256) -> None:
        self.verdicts = _LRU(size)
        self.analyses = _LRU(size * 8)

    def analyse(self, case: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The symbolic analysis of one (narrative's) case file, cached without confidences."""
        key = canonical_hash({"c": without_confidences(case), "a": answers or {}})
        try:
            value, _ = self.analyses.get_or_compute(key, lambda: analyse_case_file(case, answers or None))
        except CaseFileError as exc:
            raise _case_error(exc) from exc
        return dict(value)

    def verdict_json(
        self,
        case_id: str,
        case: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        key: dict[str, Any] | None = None,
        weights: dict[str, Any] | None = None,
    ) -> tuple[bytes, bool]:
        """The serialised verdict. ``key``: a cheaper identity of (case, answers) when the caller has one."""
        weights = weights or {}
        k = canonical_hash(
            key if key is not None else {"id": case_id, "c": case, "a": answers, "p": priors, "w": weights}
        )
        body, hit = self.verdicts.get_or_compute(
            k,
            lambda: (
                build_verdict(case, answers, case_id=case_id, priors=priors, weights=weights, analyser=self.analyse)
                .model_dump_json()
                .encode()
            ),
        )
        return bytes(body), hit

    def peek(self, key: dict[str, Any]) -> bytes | None:
        """A cached serialised verdict, or None (never computes)."""
        k = canonical_hash(key)
        with self.verdicts.lock:
            hit = self.verdicts.data.get(k)
        return bytes(hit) if hit is not None else None

    def verdict(
        self,
        case_id: str,
        case: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        weights: dict[str, Any] | None = None,
    ) -> Verdict:
        return Verdict.model_validate_json(self.verdict_json(case_id, case, answers, priors, weights=weights)[0])

    def worlds(
        self, case: dict[str, Any], answers: dict[str, Any], priors: dict[str, float]
    ) -> list[tuple[World, float, dict[str, Any], dict[str, Any]]]:
        """(world, reading weight, world case file, symbolic analysis) for each narrative."""
        return narrative_analyses(apply_priors(case, priors), answers, self.analyse)
