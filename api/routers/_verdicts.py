"""Verdicts for the API: ``engine.verdict.decide`` (symbolic analysis + the probabilistic model of
``engine.prob``), cached.

Why a cache: a saved case's verdict is a pure function of (case file, answers, prior overrides, Alexy
magnitudes); the page and the load benchmark ask for it again and again. The serialised verdict is
cached per key; underneath, ``engine.prob`` caches the world table per program structure, so moving a
prior or weight slider only re-weighs worlds that are already evaluated. The per-narrative symbolic
analyses (for the graph and the narrative list) are cached on the case file WITHOUT confidences (the
symbolic result does not read them).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.api.problems import FieldError, ProblemError
from lexlogic.engine.analysis import analyse_case_file
from lexlogic.engine.evaluators import apply_answers, split_worlds
from lexlogic.engine.packs import pack_by_name
from lexlogic.engine.prob import BoolVar, ProbProgram
from lexlogic.engine.store.cases import canonical_hash
from lexlogic.engine.verdict import build_program, decide
from lexlogic.logic.facts import CaseFileError, check_value, parse_case
from lexlogic.logic.pack import FactType, PackError, RulePack
from lexlogic.logic.proof import ProofNode
from lexlogic.logic.weights import ALEXY_LEVELS, Beta, Fixed, Scale

PYRO_NOTE = (
    "engine.verdict.decide: the case's uncertain facts are random variables (priors from the pack's "
    "weights.yaml, ambiguities as narrative A/B variables), the pack's Alexy soft rules weigh the "
    "judge's appreciation; P(liable), P(narrative), entropy and EIG are computed from the same rules "
    "as the proof tree"
)
MAGNITUDES = ("I1", "W1", "R1", "I2", "W2", "R2")
MAGNITUDE_NAMES = {"I": "intensité", "W": "poids abstrait", "R": "fiabilité"}
AlexyLevel = Literal["l", "m", "s", "r", "p", "e"]
Magnitude = float | AlexyLevel


class WorldVerdict(BaseModel):
    world: str = Field(examples=["NARRATIVE_A"])
    weight: float = Field(ge=0, le=1, description="P(narrative | evidence) from the probabilistic model")
    p_liable: float | None = Field(
        default=None, ge=0, le=1, description="P(liable | narrative); null when the narrative collapsed"
    )
    verdict: str = Field(examples=["LIABLE"], description="symbolic verdict with this narrative's readings")
    summary: str


class Probability(BaseModel):
    layer: Literal["pyro"] = "pyro"
    p_target: float | None = Field(
        default=None, ge=0, le=1, examples=[0.6], description="P(liable); null when not computable"
    )
    p_by_world: dict[str, float | None] = Field(default_factory=dict, description="P(liable | narrative)")
    posteriors: dict[str, float] = Field(default_factory=dict, description="P(narrative | evidence)")
    entropy: float | None = Field(default=None, description="bits")
    entropy_threshold: float | None = None
    method: str = Field(default="", examples=["exact"], description="exact | monte_carlo")
    error: float | None = Field(default=None, description="standard error of p_target (Monte Carlo)")
    n_worlds: int | None = None
    evaluator: str | None = None
    status: str = Field(default="verdict", description="verdict | needs_input | error")
    collapsed: list[dict[str, Any]] = Field(default_factory=list, description="narratives below ε")
    p_outcomes: dict[str, float] = Field(default_factory=dict, description="P(atom) of the pack's other outcomes")
    soft_factors: dict[str, float] = Field(
        default_factory=dict, description="soft rule → E[s/(1+s)], its likelihood factor"
    )
    note: str = PYRO_NOTE


class QuestionOut(BaseModel):
    fact: str = Field(examples=["fault_serious"])
    question: str | None = None
    type: str | None = Field(default=None, description="the fact's type in the pack (bool, enum, number…)")
    options: list[Any] = Field(default_factory=list)
    cost: float = 1.0
    eig: float | None = Field(default=None, description="expected information gain on P(liable), bits")
    score: float | None = Field(default=None, description="EIG / cost")
    variable: str | None = Field(default=None, description="the model variable the answer settles")


class Slider(BaseModel):
    """One what-if knob: ``group`` says which body field of POST …/what-if takes ``name``."""

    name: str = Field(examples=["notice_written"])
    group: Literal["priors", "weights"]
    kind: Literal["ambiguity", "prior", "alexy"]
    label: str
    fact: str | None = None
    world: str = "SHARED"
    value: float = Field(description="current value (an override if one is given)")
    default: float = Field(description="value without override")
    min: float
    max: float
    scale: Literal["linear", "log2"] = "linear"
    readings: list[dict[str, Any]] = Field(default_factory=list, description="ambiguity: value, world, confidence")


class Verdict(BaseModel):
    case_id: str
    pack: str
    label: Literal["LIABLE", "NOT_LIABLE", "UNDETERMINED", "INCONSISTENT"] = Field(
        description="symbolic verdict over every reading (three-valued: UNDETERMINED when they disagree)"
    )
    status: Literal["VERDICT", "NEEDS_INFORMATION"] = Field(
        default="VERDICT", description="NEEDS_INFORMATION while the entropy is high and a question can help"
    )
    summary: str
    applicable_law: str | None = None
    main_world: str = Field(description="the most probable narrative (SHARED when there is no ambiguity)")
    worlds: list[WorldVerdict]
    probability: Probability
    questions: list[QuestionOut] = Field(default_factory=list)
    best_question: QuestionOut | None = None
    damages_eur: list[float] | None = None
    proof: ProofNode | None = Field(default=None, description="proof tree of the target (or why-not tree)")
    why_not: ProofNode | None = None
    outcomes: dict[str, str] = Field(default_factory=dict, description="atom → yes | no | unknown")
    answers: dict[str, Any] = Field(default_factory=dict)
    priors: dict[str, float] = Field(default_factory=dict)
    weights: dict[str, Magnitude] = Field(default_factory=dict)
    sliders: list[Slider] = Field(default_factory=list, description="what the what-if endpoint accepts")


class _LRU:
    def __init__(self, size: int) -> None:
        self.size, self.data, self.lock = size, OrderedDict(), threading.Lock()
        self.inflight: dict[str, threading.Lock] = {}

    def get_or_compute(self, key: str, fn: Callable[[], Any]) -> tuple[Any, bool]:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key], True
            gate = self.inflight.setdefault(key, threading.Lock())
        with gate:  # single flight: concurrent misses on one key compute once
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


def _strip_confidence(case: dict[str, Any]) -> dict[str, Any]:
    facts = {}
    for k, fv in case.get("facts", {}).items():
        if isinstance(fv, dict):
            fv = {a: b for a, b in fv.items() if a != "confidence"}
            if fv.get("alternatives"):
                fv["alternatives"] = [{a: b for a, b in r.items() if a != "confidence"} for r in fv["alternatives"]]
        facts[k] = fv
    return {**case, "facts": facts}


def ambiguous_facts(case: dict[str, Any]) -> list[str]:
    return [k for k, fv in case.get("facts", {}).items() if isinstance(fv, dict) and fv.get("alternatives")]


def apply_priors(case: dict[str, Any], priors: dict[str, float]) -> dict[str, Any]:
    """Set the weight of each ambiguous fact's first reading to p (the others share 1 − p). Keys that
    are not ambiguous facts (model variables) are left to ``decide``'s what-if."""
    amb = set(ambiguous_facts(case))
    priors = {k: v for k, v in priors.items() if k in amb}
    if not priors:
        return case
    case = copy.deepcopy(case)
    for fact, p in priors.items():
        fv = case["facts"][fact]
        alts = fv["alternatives"]
        fv["confidence"] = float(p)
        for r in alts:
            r["confidence"] = (1.0 - float(p)) / len(alts)
    return case


def _mean(m: Fixed | Beta | Scale) -> float:
    if isinstance(m, Fixed):
        return m.value
    if isinstance(m, Beta):
        return m.mean
    return float(sum(v * p for v, p in zip(m.values, m.probs)))


def _magnitude(value: Any) -> float:
    return ALEXY_LEVELS[value] if isinstance(value, str) else float(value)


def split_priors(case: dict[str, Any], prog: ProbProgram, priors: dict[str, float]) -> tuple[dict, dict]:
    """(ambiguity weights → case file, variable priors → what-if): a model variable wins a name clash."""
    names = {v.name for v in prog.variables}
    amb = set(ambiguous_facts(case))
    return (
        {k: v for k, v in priors.items() if k in amb and k not in names},
        {k: v for k, v in priors.items() if k in names},
    )


def _program(pack: RulePack, case: dict[str, Any], answers: dict[str, Any]) -> ProbProgram:
    try:
        return build_program(pack, parse_case(copy.deepcopy(case), pack), answers)[0]
    except CaseFileError as exc:
        raise ProblemError(
            422, exc.message, slug="case-file", errors=[FieldError(location="case", path=exc.path, message=exc.message)]
        ) from exc


def validate_inputs(
    case: dict[str, Any],
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any] | None = None,
    saved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Answers against the pack's vocabulary; priors against the case's ambiguities and uncertain
    yes/no variables; weights against the pack's soft-rule magnitudes (422 + JSON path)."""
    try:
        pack, _ = pack_by_name(str(case.get("pack")))
    except PackError as exc:
        raise ProblemError(422, str(exc), slug="unknown-pack") from exc
    errors: list[FieldError] = []
    clean: dict[str, Any] = {}
    for fact, value in answers.items():
        spec = pack.facts.get(fact)
        if spec is None:
            errors.append(FieldError(location="body", path=f"$.answers.{fact}", message=f"unknown fact {fact!r}"))
            continue
        try:
            clean[fact] = check_value(spec, value)
        except ValueError as exc:
            errors.append(FieldError(location="body", path=f"$.answers.{fact}", message=str(exc)))
    if (priors or weights) and not errors:
        given = {**(saved or {}), **clean}  # the model the verdict will use: saved answers + these
        prog = _program(pack, case, given)
        bools = {v.name for v in prog.variables if isinstance(v, BoolVar)}
        amb = set(ambiguous_facts(case)) - set(given)
        for name, p in priors.items():
            if name not in bools and name not in amb:
                errors.append(
                    FieldError(
                        location="body",
                        path=f"$.priors.{name}",
                        message=(
                            f"{name!r} is neither an ambiguous fact nor an uncertain yes/no variable of this case "
                            f"(accepted: {sorted(amb | bools) or 'none'})"
                        ),
                    )
                )
            elif not 0.0 <= float(p) <= 1.0:
                errors.append(FieldError(location="body", path=f"$.priors.{name}", message="must be within [0, 1]"))
        allowed = {f"{r.id}.{k}" for r in prog.soft_rules for k in MAGNITUDES}
        for name, m in (weights or {}).items():
            if name not in allowed:
                errors.append(
                    FieldError(
                        location="body",
                        path=f"$.weights.{name}",
                        message=(
                            f"{name!r} is not a soft-rule magnitude of this pack (accepted: {sorted(allowed) or 'none'})"
                        ),
                    )
                )
            elif _magnitude(m) <= 0:
                errors.append(FieldError(location="body", path=f"$.weights.{name}", message="must be > 0"))
    if errors:
        raise ProblemError(422, f"{errors[0].path}: {errors[0].message}", slug="validation", errors=errors)
    return clean


class VerdictService:
    def __init__(self, size: int = 256) -> None:
        self.verdicts = _LRU(size)
        self.analyses = _LRU(size * 8)

    def analyse(self, case: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The symbolic analysis of one (narrative's) case file, cached without confidences."""
        key = canonical_hash({"c": _strip_confidence(case), "a": answers or {}})
        try:
            value, _ = self.analyses.get_or_compute(key, lambda: analyse_case_file(case, answers or None))
        except CaseFileError as exc:
            raise ProblemError(
                422,
                exc.message,
                slug="case-file",
                errors=[FieldError(location="case", path=exc.path, message=exc.message)],
            ) from exc
        return value

    def verdict_json(
        self,
        case_id: str,
        case: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        key: dict[str, Any] | None = None,
        weights: dict[str, Any] | None = None,
    ) -> tuple[bytes, bool]:
        """The serialised verdict (cached as bytes: a hit costs a hash, not a re-serialisation).
        ``key``: a cheaper identity of (case, answers) when the caller has one (run id + state seq)."""
        weights = weights or {}
        key = canonical_hash(
            key if key is not None else {"id": case_id, "c": case, "a": answers, "p": priors, "w": weights}
        )
        return self.verdicts.get_or_compute(
            key, lambda: self._compute(case_id, case, answers, priors, weights).model_dump_json().encode()
        )

    def peek(self, key: dict[str, Any]) -> bytes | None:
        """A cached serialised verdict, or None (never computes)."""
        k = canonical_hash(key)
        with self.verdicts.lock:
            return self.verdicts.data.get(k)

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
    ) -> list[tuple[str, float, dict[str, Any], dict[str, Any]]]:
        """(world, reading weight, world case file, symbolic analysis) for each narrative."""
        cf = apply_priors(case, priors)
        amb = set(ambiguous_facts(cf))
        collapsed = apply_answers(cf, {k: v for k, v in answers.items() if k in amb})
        rest = {k: v for k, v in answers.items() if k not in amb}
        return [(w, p, c, self.analyse(c, rest)) for w, p, c in split_worlds(collapsed)]

    def _compute(
        self,
        case_id: str,
        case: dict[str, Any],
        answers: dict[str, Any],
        priors: dict[str, float],
        weights: dict[str, Any],
    ) -> Verdict:
        try:
            pack, program = pack_by_name(str(case.get("pack")))
        except PackError as exc:
            raise ProblemError(422, str(exc), slug="unknown-pack") from exc
        base_prog = _program(pack, case, answers)
        fact_priors, var_priors = split_priors(case, base_prog, priors)
        cf = apply_priors(case, fact_priors)
        whatif: dict[str, Any] = {**var_priors, **{k: _magnitude(m) for k, m in weights.items()}}
        try:
            v = decide(pack, program, parse_case(copy.deepcopy(cf), pack), answers, whatif)
        except CaseFileError as exc:
            raise ProblemError(
                422,
                exc.message,
                slug="case-file",
                errors=[FieldError(location="case", path=exc.path, message=exc.message)],
            ) from exc
        except ValueError as exc:  # an unknown what-if name, a bad magnitude, answers the rules exclude
            raise ProblemError(422, str(exc), slug="what-if") from exc
        a, p = v.analysis, v.probability
        prog = _program(pack, cf, answers)
        worlds = self.worlds(case, answers, fact_priors)
        posteriors = dict(p.p_narrative) if p else {}
        by_world = dict(p.p_target_by_narrative) if p else {}
        world_list = [
            WorldVerdict(
                world=w,
                weight=round(posteriors.get(w, 1.0 if len(worlds) == 1 else rw), 6),
                p_liable=by_world.get(w, p.p_target if p and len(worlds) == 1 else None),
                verdict=an["verdict"],
                summary=an["summary"],
            )
            for w, rw, _, an in worlds
        ]
        main_world = max(world_list, key=lambda w: w.weight).world
        status = {"VERDICT": "verdict", "NEEDS_INFORMATION": "needs_input"}[v.status]
        if a.verdict == "INCONSISTENT":
            status = "error"
        prob = Probability(
            p_target=p.p_target if p else None,
            p_by_world=by_world,
            posteriors=posteriors,
            entropy=p.entropy if p else None,
            entropy_threshold=p.entropy_threshold if p else None,
            method=p.method if p else "symbolic",
            error=p.error if p else None,
            n_worlds=p.n_worlds if p else None,
            evaluator=p.evaluator if p else None,
            status=status,
            collapsed=[c.model_dump(mode="json") for c in p.collapsed] if p else [],
            p_outcomes=dict(p.p_queries) if p else {},
            soft_factors=dict(p.soft_factors) if p else {},
        )
        questions = [self._question(pack, cf, q["fact"], q) for q in v.questions if q["fact"] not in answers]
        if not questions and v.status != "VERDICT":  # symbolic questions (no EIG) when the model ranks none
            questions = [
                self._question(pack, cf, q["fact"], {})
                for q in a.questions
                if q.get("fact") in pack.facts and q["fact"] not in answers
            ]
        target = a.outcomes.get(pack.manifest.target)
        damages = a.outcomes.get(a.remedy) if a.remedy else None
        return Verdict(
            case_id=case_id,
            pack=a.pack,
            label=a.verdict,
            status=v.status,
            summary=a.summary,
            applicable_law=a.applicable_law,
            main_world=main_world,
            worlds=world_list,
            probability=prob,
            questions=questions,
            best_question=questions[0] if questions and status == "needs_input" else None,
            damages_eur=damages.value if damages and isinstance(damages.value, list) else None,
            proof=target.proof if target else None,
            why_not=a.why_not,
            outcomes={k: o.status for k, o in a.outcomes.items()},
            answers=answers,
            priors=priors,
            weights=weights,
            sliders=self._sliders(pack, cf, prog, priors, weights),
        )

    @staticmethod
    def _question(pack: RulePack, case: dict[str, Any], fact: str, q: dict[str, Any]) -> QuestionOut:
        spec = pack.facts[fact]
        fv = case.get("facts", {}).get(fact)
        if isinstance(fv, dict) and fv.get("alternatives"):
            options = [r.get("value") for r in [fv, *fv["alternatives"]]]
        elif spec.type is FactType.ENUM:
            options = list(spec.values or [])
        elif spec.type is FactType.BOOL:
            options = [True, False]
        else:
            options = []
        return QuestionOut(
            fact=fact,
            question=q.get("question") or spec.question,
            type=spec.type.value,
            options=options,
            cost=float(q.get("cost") or spec.cost or 1),
            eig=q.get("eig"),
            score=q.get("utility"),
            variable=q.get("variable"),
        )

    @staticmethod
    def _sliders(
        pack: RulePack, case: dict[str, Any], prog: ProbProgram, priors: dict[str, float], weights: dict[str, Any]
    ) -> list[Slider]:
        out: list[Slider] = []
        in_pair: set[str] = set()
        for fact in ambiguous_facts(case):
            if not {f"{fact}__A", f"{fact}__B"} <= {v.name for v in prog.variables}:
                continue  # answered, or not a two-narrative ambiguity
            in_pair |= {f"{fact}__A", f"{fact}__B"}
            fv = case["facts"][fact]
            readings = [
                {
                    "value": r.get("value"),
                    "world": r.get("world", "SHARED"),
                    "confidence": r.get("confidence", 1.0),
                    "note": r.get("note"),
                }
                for r in [fv, *fv["alternatives"]]
            ]
            total = sum(float(r["confidence"]) for r in readings) or 1.0
            first = round(float(readings[0]["confidence"]) / total, 4)
            out.append(
                Slider(
                    name=fact,
                    group="priors",
                    kind="ambiguity",
                    fact=fact,
                    world=readings[0]["world"],
                    label=f"P({fact} = {readings[0]['value']})",
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
            label = (spec.question if spec and spec.question else None) or var.name.replace("_", " ")
            out.append(
                Slider(
                    name=var.name,
                    group="priors",
                    kind="prior",
                    fact=var.name if spec else None,
                    world=var.world.value,
                    label=label,
                    value=round(float(priors.get(var.name, var.p)), 4),
                    default=round(var.p, 4),
                    min=0,
                    max=1,
                )
            )
        for rule in prog.soft_rules:
            for key in MAGNITUDES:
                side = rule.principle_claimant if key[1] == "1" else rule.principle_defence
                m = getattr(side, {"I": "intensity", "W": "weight", "R": "reliability"}[key[0]])
                default = round(_mean(m), 4)
                name = f"{rule.id}.{key}"
                value = _magnitude(weights[name]) if name in weights else default
                who = "demanderesse" if key[1] == "1" else "défense"
                out.append(
                    Slider(
                        name=name,
                        group="weights",
                        kind="alexy",
                        fact=rule.condition_atom,
                        label=f"{MAGNITUDE_NAMES[key[0]]} {key} ({who} : {side.principle or rule.id})",
                        value=value,
                        default=default,
                        scale="log2",
                        min=0.125 if key[0] == "R" else 0.5,
                        max=1.0 if key[0] == "R" else 8.0,
                    )
                )
        return out
