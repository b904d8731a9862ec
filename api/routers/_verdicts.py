"""Verdicts for the API: symbolic analysis per narrative + the orchestrator's evaluator, cached.

Why a cache: a saved case's verdict is a pure function of (case file, answers, priors); the page and
the load benchmark ask for it again and again. Analyses are cached on the case WITHOUT confidences (the
symbolic result does not read them), so moving a prior slider re-mixes cached per-world analyses
instead of re-solving.
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

from api.problems import FieldError, ProblemError
from engine.analysis import analyse_case_file
from engine.evaluators import LeadEvaluator, apply_answers, split_worlds
from engine.packs import pack_by_name
from engine.store.cases import canonical_hash
from logic.facts import CaseFileError, check_value
from logic.pack import PackError
from logic.proof import ProofNode

WORLD_NAMES = {"SHARED": "commun", "NARRATIVE_A": "récit A (demanderesse)", "NARRATIVE_B": "récit B (défense)"}
PYRO_NOTE = ("the Pyro layer (engine.prob) is not yet wired to rule packs: probabilities are the orchestrator's "
             "narrative mixture (symbolic verdict per narrative, weighted by narrative priors; undetermined = 0.5)")


class WorldVerdict(BaseModel):
    world: str = Field(examples=["NARRATIVE_A"])
    weight: float = Field(ge=0, le=1, description="posterior weight of this narrative")
    verdict: str = Field(examples=["LIABLE"])
    summary: str


class Probability(BaseModel):
    layer: Literal["narrative_mixture", "pyro"] = "narrative_mixture"
    p_target: float | None = Field(default=None, ge=0, le=1, examples=[0.6],
                                   description="P(liable); null when not computable")
    p_by_world: dict[str, float] = Field(default_factory=dict, description="P(liable | narrative)")
    posteriors: dict[str, float] = Field(default_factory=dict, description="narrative weights")
    entropy: float | None = Field(default=None, description="bits")
    method: str = ""
    status: str = Field(default="verdict", description="verdict | needs_input | error")
    note: str = PYRO_NOTE


class QuestionOut(BaseModel):
    fact: str = Field(examples=["fault_serious"])
    question: str | None = None
    options: list[Any] = Field(default_factory=list)
    cost: float = 1.0
    eig: float | None = Field(default=None, description="expected information gain on P(liable), bits")
    score: float | None = Field(default=None, description="EIG / cost")


class PriorSlider(BaseModel):
    fact: str
    label: str
    readings: list[dict[str, Any]] = Field(description="value, world, confidence, note of each reading")
    value: float = Field(ge=0, le=1, description="weight of the first reading (narrative A's, usually)")


class Verdict(BaseModel):
    case_id: str
    pack: str
    label: Literal["LIABLE", "NOT_LIABLE", "UNDETERMINED", "INCONSISTENT"] = Field(
        description="symbolic verdict in the most probable narrative")
    summary: str
    applicable_law: str | None = None
    main_world: str
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
    sliders: list[PriorSlider] = Field(default_factory=list, description="priors the what-if endpoint accepts")


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
            value = fn()
            with self.lock:
                self.data[key] = value
                self.data.move_to_end(key)
                while len(self.data) > self.size:
                    self.data.popitem(last=False)
                self.inflight.pop(key, None)
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
    """Set the weight of each ambiguous fact's first reading to p (the others share 1 − p)."""
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


def validate_inputs(case: dict[str, Any], answers: dict[str, Any], priors: dict[str, float]) -> dict[str, Any]:
    """Answers checked against the pack's vocabulary, priors against the case's ambiguities (422 + path)."""
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
    amb = set(ambiguous_facts(case))
    for fact, p in priors.items():
        if fact not in amb:
            errors.append(FieldError(location="body", path=f"$.priors.{fact}",
                                     message=f"{fact!r} is not an ambiguous fact of this case "
                                             f"(ambiguous: {sorted(amb) or 'none'})"))
        elif not 0.0 <= float(p) <= 1.0:
            errors.append(FieldError(location="body", path=f"$.priors.{fact}", message="must be within [0, 1]"))
    if errors:
        raise ProblemError(422, f"{errors[0].path}: {errors[0].message}", slug="validation", errors=errors)
    return clean


class VerdictService:
    def __init__(self, size: int = 256) -> None:
        self.verdicts = _LRU(size)
        self.analyses = _LRU(size * 8)

    def analyse(self, case: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        key = canonical_hash({"c": _strip_confidence(case), "a": answers or {}})
        try:
            value, _ = self.analyses.get_or_compute(key, lambda: analyse_case_file(case, answers or None))
        except CaseFileError as exc:
            raise ProblemError(422, exc.message, slug="case-file",
                               errors=[FieldError(location="case", path=exc.path, message=exc.message)]) from exc
        return value

    def verdict_json(self, case_id: str, case: dict[str, Any], answers: dict[str, Any],
                     priors: dict[str, float], key: dict[str, Any] | None = None) -> tuple[bytes, bool]:
        """The serialised verdict (cached as bytes: a hit costs a hash, not a re-serialisation).
        ``key``: a cheaper identity of (case, answers) when the caller has one (run id + state seq)."""
        key = canonical_hash(key if key is not None else {"id": case_id, "c": case, "a": answers, "p": priors})
        return self.verdicts.get_or_compute(
            key, lambda: self._compute(case_id, case, answers, priors).model_dump_json().encode())

    def peek(self, key: dict[str, Any]) -> bytes | None:
        """A cached serialised verdict, or None (never computes)."""
        k = canonical_hash(key)
        with self.verdicts.lock:
            return self.verdicts.data.get(k)

    def verdict(self, case_id: str, case: dict[str, Any], answers: dict[str, Any],
                priors: dict[str, float]) -> Verdict:
        return Verdict.model_validate_json(self.verdict_json(case_id, case, answers, priors)[0])

    def worlds(self, case: dict[str, Any], answers: dict[str, Any],
               priors: dict[str, float]) -> list[tuple[str, float, dict[str, Any], dict[str, Any]]]:
        """(world, weight, world case file, analysis) for each narrative."""
        cf = apply_priors(case, priors)
        amb = set(ambiguous_facts(cf))
        collapsed = apply_answers(cf, {k: v for k, v in answers.items() if k in amb})
        rest = {k: v for k, v in answers.items() if k not in amb}
        return [(w, p, c, self.analyse(c, rest)) for w, p, c in split_worlds(collapsed)]

    def _compute(self, case_id: str, case: dict[str, Any], answers: dict[str, Any],
                 priors: dict[str, float]) -> Verdict:
        worlds = self.worlds(case, answers, priors)
        evaluator = LeadEvaluator()
        evaluator._analyse = self.analyse  # same results, through our cache
        ev = evaluator.evaluate(apply_priors(case, priors), dict(answers))
        main_w, _, _, main = max(worlds, key=lambda t: t[1])
        target = next(iter(main["outcomes"]), None)
        proof = main["outcomes"][target]["proof"] if target else None
        questions = [QuestionOut(fact=q["fact"], question=q.get("question"), options=q.get("options") or [],
                                 cost=float(q.get("cost", 1) or 1), eig=q.get("eig"), score=q.get("score"))
                     for q in ev.get("questions", [])]
        if not questions:  # symbolic questions (no EIG) when the evaluator has none to rank
            questions = [QuestionOut(fact=q["fact"], question=q.get("question"), cost=float(q.get("cost", 1)))
                         for q in main.get("questions", []) if q["fact"] not in answers]
        v = ev.get("verdict") or {}
        prob = Probability(p_target=v.get("probability"), posteriors=ev.get("posteriors", {}),
                           p_by_world={k: float(x) for k, x in (ev.get("liable_by_world") or {}).items()},
                           entropy=ev.get("entropy"), method=ev.get("method", ""), status=ev.get("status", "verdict"))
        sliders = []
        cf = apply_priors(case, priors)
        for fact in ambiguous_facts(cf):
            fv = cf["facts"][fact]
            readings = [{"value": r.get("value"), "world": r.get("world", "SHARED"),
                         "confidence": r.get("confidence", 1.0), "note": r.get("note")} for r in [fv, *fv["alternatives"]]]
            total = sum(float(r["confidence"]) for r in readings) or 1.0
            sliders.append(PriorSlider(fact=fact, label=fact, readings=readings,
                                       value=round(float(readings[0]["confidence"]) / total, 4)))
        damages = main["outcomes"].get("damages", {}).get("value")
        return Verdict(
            case_id=case_id, pack=main["pack"], label=main["verdict"], summary=main["summary"],
            applicable_law=main.get("applicable_law"), main_world=main_w,
            worlds=[WorldVerdict(world=w, weight=round(p, 6), verdict=a["verdict"], summary=a["summary"])
                    for w, p, _, a in worlds],
            probability=prob, questions=questions,
            best_question=questions[0] if questions and prob.status == "needs_input" else None,
            damages_eur=damages if isinstance(damages, list) else None,
            proof=proof, why_not=main.get("why_not"),
            outcomes={a: o["status"] for a, o in main["outcomes"].items()},
            answers=answers, priors=priors, sliders=sliders)
