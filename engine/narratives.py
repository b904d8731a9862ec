"""A case file's narratives: the claimant's (A) and the defence's (B) readings of its ambiguous facts.

Plain case-file dicts in, plain case-file dicts out: answers collapse an ambiguity to the chosen reading,
``split_worlds`` gives one case file per narrative (each ambiguity collapsed to that narrative's reading)
with the readings' relative weight, ``apply_priors`` moves the weight of an ambiguity's readings.
"""

from __future__ import annotations

import copy
from typing import Any

from lexlogic.logic.facts import World


def ambiguous_facts(case: dict[str, Any]) -> list[str]:
    """The facts of the case file that carry alternative readings."""
    return [k for k, fv in case.get("facts", {}).items() if isinstance(fv, dict) and fv.get("alternatives")]


def apply_answers(case: dict[str, Any], answers: dict[str, Any] | None) -> dict[str, Any]:
    """Answers become SHARED facts (an answered ambiguity collapses to the chosen reading)."""
    case = copy.deepcopy(case)
    for fact, value in (answers or {}).items():
        case["facts"][fact] = {
            "value": value,
            "confidence": 1.0,
            "world": World.SHARED.value,
            "grounding": [{"kind": "user_answer", "note": f"réponse : {value}"}],
        }
    return case


def split_worlds(case: dict[str, Any]) -> list[tuple[World, float, dict[str, Any]]]:
    """One case file per narrative (each ambiguity collapsed to that narrative's reading), weighted by the
    product of its readings' confidences (normalised)."""
    worlds: dict[World, dict[str, Any]] = {}
    weights: dict[World, float] = {}
    for name, fv in case["facts"].items():
        if isinstance(fv, dict) and fv.get("alternatives"):
            for r in [fv, *fv["alternatives"]]:
                w = World(r.get("world", World.SHARED.value))
                worlds.setdefault(w, {})[name] = {k: v for k, v in r.items() if k != "alternatives"}
                weights[w] = weights.get(w, 1.0) * float(r.get("confidence", 1.0))
    if not worlds:
        return [(World.SHARED, 1.0, case)]
    total = sum(weights.values()) or 1.0
    out = []
    for w, overrides in worlds.items():
        c = copy.deepcopy(case)
        c["facts"].update(overrides)
        out.append((w, weights[w] / total, c))
    return out


def apply_priors(case: dict[str, Any], priors: dict[str, float]) -> dict[str, Any]:
    """Set the weight of each ambiguous fact's first reading to p (the others share 1 − p). Keys that are
    not ambiguous facts (model variables) are left to the probabilistic model's what-if."""
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


def without_confidences(case: dict[str, Any]) -> dict[str, Any]:
    """The case file without confidences: what the symbolic analysis reads (a cache key)."""
    facts = {}
    for k, fv in case.get("facts", {}).items():
        if isinstance(fv, dict):
            fv = {a: b for a, b in fv.items() if a != "confidence"}
            if fv.get("alternatives"):
                fv["alternatives"] = [{a: b for a, b in r.items() if a != "confidence"} for r in fv["alternatives"]]
        facts[k] = fv
    return {**case, "facts": facts}
