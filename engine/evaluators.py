"""Pluggable evaluators for the orchestrator's EXECUTING/EVALUATING steps.

Protocol: ``evaluate(case_facts, answers) -> dict`` with keys ``status`` (verdict | needs_input |
error), ``outcomes`` ({atom: {value: yes|no|unknown, missing: [...]}}), ``verdict``, ``proof``
(ProofNode dict), ``posteriors`` ({world: p}), ``liable_by_world``, ``questions`` (ranked, with
``eig``), ``tokens``, ``cost``. ``default_evaluator()`` wraps the lead's symbolic analysis
(``engine.analysis.analyse_case_file``) imported lazily, and falls back to ``FallbackEvaluator``.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Protocol

SCORE = {"LIABLE": 1.0, "NOT_LIABLE": 0.0}


class Evaluator(Protocol):
    name: str

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]: ...


def _h(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def apply_answers(case: dict[str, Any], answers: dict[str, Any] | None) -> dict[str, Any]:
    """Answers become SHARED facts (an answered ambiguity collapses to the chosen reading)."""
    case = copy.deepcopy(case)
    for fact, value in (answers or {}).items():
        case["facts"][fact] = {"value": value, "confidence": 1.0, "world": "SHARED",
                               "grounding": [{"kind": "user_answer", "note": f"réponse : {value}"}]}
    return case


def split_worlds(case: dict[str, Any]) -> list[tuple[str, float, dict[str, Any]]]:
    """One case file per narrative (each ambiguity collapsed to the reading of that world)."""
    worlds: dict[str, dict[str, Any]] = {}
    weights: dict[str, float] = {}
    for name, fv in case["facts"].items():
        if isinstance(fv, dict) and fv.get("alternatives"):
            for r in [fv, *fv["alternatives"]]:
                w = r.get("world", "SHARED")
                worlds.setdefault(w, {})[name] = {k: v for k, v in r.items() if k != "alternatives"}
                weights[w] = weights.get(w, 1.0) * float(r.get("confidence", 1.0))
    if not worlds:
        return [("SHARED", 1.0, case)]
    total = sum(weights.values()) or 1.0
    out = []
    for w, overrides in worlds.items():
        c = copy.deepcopy(case)
        c["facts"].update(overrides)
        out.append((w, weights[w] / total, c))
    return out


class LeadEvaluator:
    """The lead's clingo analysis run per narrative; P(liable) mixes the narratives' priors (an
    undetermined world counts 0.5); EIG of a question = entropy drop of P(liable) over its answers."""

    name = "analysis"

    def __init__(self, eig_top: int = 3) -> None:
        from engine.analysis import analyse_case_file  # lazy: the lead's module

        self._analyse = analyse_case_file
        self.eig_top = eig_top

    def _p(self, worlds: list[tuple[str, float, dict[str, Any]]], answers: dict[str, Any],
           decided: dict[str, dict] | None = None) -> tuple[float, dict]:
        """P(liable). A world already decided stays decided when an unknown fact gets a value (the
        analysis is three-valued over all completions), so ``decided`` results are reused."""
        res = {w: (decided or {}).get(w) or self._analyse(c, answers or None) for w, _, c in worlds}
        return sum(p * SCORE.get(res[w]["verdict"], 0.5) for w, p, _ in worlds), res

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        answers = dict(answers or {})
        case = apply_answers(case_facts, {k: v for k, v in answers.items() if k in _ambiguous(case_facts)})
        rest = {k: v for k, v in answers.items() if k not in _ambiguous(case_facts)}
        worlds = split_worlds(case)
        p, res = self._p(worlds, rest)
        main_w = max(worlds, key=lambda t: t[1])[0]
        main = res[main_w]
        h = _h(p)
        decided = {w: r for w, r in res.items() if r["verdict"] in SCORE}
        questions = []
        if h > 0:
            # candidates: facts missing for the undecided CHECKS, in the lawyer's order (not the aggregate)
            undecided = [f for c in main.get("checks", []) if c["status"] == "unknown"
                         for f in main["outcomes"].get(c["outcome"], {}).get("missing", [])]
            ranked = sorted(main.get("questions", []), key=lambda q: undecided.index(q["fact"])
                            if q["fact"] in undecided else len(undecided))
            for q in ranked[: self.eig_top]:
                fact = q["fact"]
                values = q.get("options") or [True, False]
                cond = 0.0
                for v in values:
                    pv, _ = self._p(worlds, {**rest, fact: v}, decided)
                    cond += _h(pv) / len(values)
                eig = max(0.0, h - cond)
                questions.append({**q, "eig": round(eig, 4), "score": round(eig / float(q.get("cost", 1) or 1), 4)})
            for fact in _ambiguous(case):
                cond = sum(pw * _h(SCORE.get(res[w]["verdict"], 0.5)) for w, pw, _ in worlds)
                eig = max(0.0, h - cond)
                readings = [case["facts"][fact], *case["facts"][fact]["alternatives"]]
                questions.append({"fact": fact, "question": f"Quelle lecture retenir pour « {fact} » ? " +
                                  " / ".join(f"{r['value']} ({r.get('note', r.get('world'))})" for r in readings),
                                  "options": [r["value"] for r in readings], "cost": 2.0, "eig": round(eig, 4),
                                  "score": round(eig / 2.0, 4)})
            questions = sorted((q for q in questions if q["eig"] > 1e-9), key=lambda q: -q["score"])
        verdicts = {r["verdict"] for r in res.values()}
        if "INCONSISTENT" in verdicts:
            status = "error"
        elif len(verdicts) == 1 and verdicts & {"LIABLE", "NOT_LIABLE"} or not questions or h < 0.3:
            status = "verdict"
        else:
            status = "needs_input"
        liable_o = main["outcomes"].get("liable", {})
        damages = main["outcomes"].get("damages", {})
        return {
            "evaluator": self.name,
            "status": status,
            "outcomes": {a: {"value": o["status"], "missing": o.get("missing", []), "label": o.get("label")}
                         for a, o in main["outcomes"].items()},
            "checks": main.get("checks", []),
            "entropy": round(h, 4),
            "posteriors": {w: round(pw, 4) for w, pw, _ in worlds},
            "liable_by_world": {w: SCORE.get(r["verdict"], 0.5) for w, r in res.items()},
            "verdict_by_world": {w: r["verdict"] for w, r in res.items()},
            "verdict": {"liable": p >= 0.5, "probability": round(p, 4), "label": main["verdict"],
                        "summary": main.get("summary"), "applicable_law": main.get("applicable_law"),
                        "damages_range_eur": damages.get("value")},
            "questions": questions,
            "proof": liable_o.get("proof") or main.get("why_not"),
            "method": f"clingo analysis per narrative ({len(worlds)} worlds), undetermined = 0.5",
            "tokens": 0, "cost": 0.0,
        }


def _ambiguous(case: dict[str, Any]) -> list[str]:
    return [k for k, fv in case["facts"].items() if isinstance(fv, dict) and fv.get("alternatives")]


class VerdictEvaluator:
    """The symbolic analysis plus the probabilistic verdict (engine.verdict.decide): exact
    narratives (each ambiguity weighed by its readings' confidence), EIG per question from the
    Pyro-backed model, questions only for facts a party can answer."""

    name = "verdict"

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        from engine.packs import pack_by_name
        from engine.verdict import decide
        from logic.facts import check_value, parse_case

        pack, program = pack_by_name(str(case_facts.get("pack")))
        case = parse_case(copy.deepcopy(case_facts), pack)
        clean: dict[str, Any] = {}
        for k, v in (answers or {}).items():
            if k in pack.facts:
                clean[k] = check_value(pack.facts[k], v)
        v = decide(pack, program, case, clean)
        a = v.analysis
        p = v.probability
        main = a.outcomes.get(pack.manifest.target)
        damages = a.outcomes.get("damages")
        status = {"VERDICT": "verdict", "NEEDS_INFORMATION": "needs_input"}[v.status]
        if a.verdict == "INCONSISTENT":
            status = "error"
        readings = {}
        for name, fv in case.facts.items():
            if fv.alternatives:
                readings[name] = [r.value for r in [fv, *fv.alternatives]]
        questions = [{**q, "score": q["utility"], "options": readings.get(q["fact"], [])} for q in v.questions]
        return {
            "evaluator": self.name,
            "status": status,
            "outcomes": {k: {"value": o.status, "missing": o.missing, "label": o.label} for k, o in a.outcomes.items()},
            "checks": [c.model_dump(mode="json") for c in a.checks],
            "entropy": round(p.entropy, 4) if p else 0.0,
            "posteriors": {k: round(x, 4) for k, x in (p.p_narrative.items() if p else [])} or {"SHARED": 1.0},
            "liable_by_world": {k: x for k, x in (p.p_target_by_narrative.items() if p else [])},
            "verdict_by_world": {},
            "verdict": {"liable": bool(p and p.p_target >= 0.5), "probability": round(p.p_target, 4) if p else None,
                        "label": a.verdict, "summary": a.summary, "applicable_law": a.applicable_law,
                        "damages_range_eur": damages.value if damages else None},
            "questions": questions,
            "proof": (main.proof.model_dump(mode="json") if main and main.proof else None)
            or (a.why_not.model_dump(mode="json") if a.why_not else None),
            "method": f"{p.method} over {p.n_worlds} worlds ({p.evaluator})" if p else "symbolic",
            "tokens": 0, "cost": 0.0,
        }


def default_evaluator() -> Evaluator:
    try:
        return VerdictEvaluator()
    except ImportError:
        from engine.fallback_evaluator import FallbackEvaluator

        return FallbackEvaluator()
