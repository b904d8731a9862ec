"""Pluggable evaluators for the orchestrator's EXECUTING/EVALUATING steps.

Protocol: ``evaluate(case_facts, answers) -> dict`` with keys ``status`` (verdict | needs_input |
error), ``outcomes`` ({atom: {value: yes|no|unknown, missing: [...]}}), ``verdict``, ``proof``
(ProofNode dict), ``posteriors`` ({world: p}), ``liable_by_world``, ``questions`` (ranked, with
``eig``), ``tokens``, ``cost``. ``default_evaluator()`` is the symbolic analysis plus the probabilistic
verdict (``engine.verdict.decide``).
"""

from __future__ import annotations

import copy
from typing import Any, Protocol


class Evaluator(Protocol):
    name: str

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]: ...


def apply_answers(case: dict[str, Any], answers: dict[str, Any] | None) -> dict[str, Any]:
    """Answers become SHARED facts (an answered ambiguity collapses to the chosen reading)."""
    case = copy.deepcopy(case)
    for fact, value in (answers or {}).items():
        case["facts"][fact] = {
            "value": value,
            "confidence": 1.0,
            "world": "SHARED",
            "grounding": [{"kind": "user_answer", "note": f"réponse : {value}"}],
        }
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


class VerdictEvaluator:
    """The symbolic analysis plus the probabilistic verdict (engine.verdict.decide): exact
    narratives (each ambiguity weighed by its readings' confidence), EIG per question from the
    Pyro-backed model, questions only for facts a party can answer."""

    name = "verdict"

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        from lexlogic.engine.packs import pack_by_name
        from lexlogic.engine.verdict import decide
        from lexlogic.logic.facts import check_value, parse_case

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
        damages = a.outcomes.get(a.remedy) if a.remedy else None
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
            "verdict": {
                "liable": bool(p and p.p_target >= 0.5),
                "probability": round(p.p_target, 4) if p else None,
                "label": a.verdict,
                "summary": a.summary,
                "applicable_law": a.applicable_law,
                "damages_range_eur": damages.value if damages else None,
            },
            "questions": questions,
            "proof": (main.proof.model_dump(mode="json") if main and main.proof else None)
            or (a.why_not.model_dump(mode="json") if a.why_not else None),
            "method": f"{p.method} over {p.n_worlds} worlds ({p.evaluator})" if p else "symbolic",
            "tokens": 0,
            "cost": 0.0,
        }


def default_evaluator() -> Evaluator:
    """The pack's rules, evaluated symbolically and probabilistically: there is no second copy of the
    law in Python to fall back on (it could only drift from the rule files)."""
    return VerdictEvaluator()
