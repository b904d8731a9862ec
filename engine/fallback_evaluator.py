"""A small, self-contained evaluator of the rupture-brutale chain, used when the lead's symbolic +
probabilistic analysis (``engine.analysis.analyse_case_file``) is not importable.

It is NOT the pack: the legal chain is hand-coded here in Python (three-valued, per world), so it
exists to drive the pipeline end to end offline and to test the orchestrator. Worlds come from the
case file's alternatives (narratives A/B) and from enumerating unknown decisive booleans at 0.5.
"""
from __future__ import annotations

import itertools
import math
from datetime import date
from typing import Any

from logic.proof import NodeKind, ProofNode

DECISIVE_UNKNOWN = ("fault_serious", "fault_proven", "fault_tolerated", "economic_dependence_proven")
DEFAULTS = {"claimant_is_author": False, "force_majeure": False, "systematic_tenders": False,
            "notice_suspended_months": 0.0, "same_group": False, "successor_relation": False,
            "economic_dependence_proven": None}
QUESTIONS = {"fault_serious": ("La faute invoquée est-elle d'une gravité suffisante ?", 3),
             "fault_proven": ("La faute est-elle prouvée ?", 4),
             "fault_tolerated": ("Le manquement avait-il été toléré auparavant ?", 2),
             "economic_dependence_proven": ("La demanderesse prouve-t-elle une dépendance économique ?", 4)}
OUTCOMES = ("defeater_prescription", "defeater_arbitration", "defeater_out_of_scope", "transfer_to_specialised_court",
            "established", "rupture", "imputable", "safe_harbour", "brutal", "exonerated", "liable", "damages")


def _value(fv: Any) -> Any:
    return fv["value"] if isinstance(fv, dict) and "value" in fv else fv


def _worlds(facts: dict[str, Any]) -> list[tuple[str, float, dict[str, Any], dict[str, Any]]]:
    """(world name, probability, values, grounding per fact)."""
    shared: dict[str, Any] = {}
    grounding: dict[str, Any] = {}
    split: dict[str, dict[str, tuple[Any, float, list]]] = {}
    for name, fv in facts.items():
        if isinstance(fv, dict) and "value" in fv:
            readings = [fv, *fv.get("alternatives", [])]
            if len(readings) > 1:
                for r in readings:
                    split.setdefault(r.get("world", "SHARED"), {})[name] = (r["value"], r.get("confidence", 1.0),
                                                                            r.get("grounding", []))
                continue
            shared[name], grounding[name] = fv["value"], fv.get("grounding", [])
        else:
            shared[name], grounding[name] = fv, []
    if not split:
        return [("SHARED", 1.0, shared, grounding)]
    weights = {w: math.prod(c for _, c, _ in vals.values()) for w, vals in split.items()}
    total = sum(weights.values()) or 1.0
    out = []
    for w, vals in split.items():
        values = {**shared, **{k: v for k, (v, _, _) in vals.items()}}
        g = {**grounding, **{k: gr for k, (_, _, gr) in vals.items()}}
        out.append((w, weights[w] / total, values, g))
    return out


def _months_between(a: str, b: str) -> float:
    d1, d2 = date.fromisoformat(a), date.fromisoformat(b)
    return (d2.year - d1.year) * 12 + (d2.month - d1.month) + (d2.day - d1.day) / 30.4


def chain(v: dict[str, Any]) -> dict[str, Any]:
    """Outcomes (True/False/None) and numbers for one fully or partly known world."""
    g = lambda k: v.get(k, DEFAULTS.get(k))  # noqa: E731
    out: dict[str, Any] = {"missing": {}}

    def need(outcome: str, *names: str) -> bool:
        missing = [n for n in names if g(n) is None]
        if missing:
            out["missing"][outcome] = missing
        return not missing

    out["defeater_prescription"] = (_months_between(g("notification_date"), g("claim_date")) > 60) \
        if need("defeater_prescription", "notification_date", "claim_date") else None
    out["defeater_arbitration"] = g("arbitration_clause") if need("defeater_arbitration", "arbitration_clause") else None
    out["defeater_out_of_scope"] = (g("claimant_activity") in ("commercial_agent", "regulated_profession",
                                                               "road_transport_subcontracting")) \
        if need("defeater_out_of_scope", "claimant_activity") else None
    out["transfer_to_specialised_court"] = (g("court_specialised") is False) if g("court_specialised") is not None else None
    years = _months_between(g("relation_start"), g("notification_date")) / 12 \
        if need("established", "relation_start", "notification_date") else None
    out["years"] = years
    if years is None:
        out["established"] = None
    else:
        precarious = bool(g("systematic_tenders")) and not g("framework_contract") and not g("minimum_volume")
        out["established"] = years >= 2 and not precarious and bool(
            g("regular_orders") or g("successive_contracts") or g("framework_contract"))
    kind = g("rupture_kind")
    out["rupture"] = None if kind is None else kind in ("total", "partial_volume", "partial_terms")
    if kind is None:
        out["missing"]["rupture"] = ["rupture_kind"]
    out["imputable"] = not g("claimant_is_author")
    written = g("notice_written")
    given = g("notice_given_months") or 0.0
    effective = max(0.0, (given if written else 0.0) - (g("notice_suspended_months") or 0.0))
    out["effective_notice"] = effective
    post_2019 = g("notification_date") is not None and g("notification_date") >= "2019-04-26"
    out["safe_harbour"] = bool(post_2019 and written and given >= 18)
    if years is None:
        out["brutal"], out["reasonable"] = None, None
    else:
        base = years  # one month per year: the common starting point, then factors
        factor = 1.0 + (0.5 if g("economic_dependence_proven") else 0) + (0.2 if g("dedicated_investments") else 0)
        if g("private_label") and not post_2019:
            factor *= 2
        cap = 36 if g("economic_dependence_proven") else 24
        low, high = min(cap, 0.6 * base * factor), min(cap, 1.3 * base * factor)
        floor = g("contractual_notice_months") or 0
        low, high = max(low, floor), max(high, floor)
        out["reasonable"] = (round(low, 1), round(high, 1))
        out["brutal"] = effective < (low + high) / 2
    fa = g("fault_alleged")
    if g("force_majeure"):
        out["exonerated"] = True
    elif fa is False:
        out["exonerated"] = False
    else:
        parts = [g("fault_serious"), g("fault_proven")]
        tolerated_excused = g("fault_tolerated") is True and not g("formal_notice_sent")
        if fa is None or None in parts or (g("fault_tolerated") is None and not g("formal_notice_sent")):
            out["exonerated"] = None
            out["missing"]["exonerated"] = [n for n in ("fault_alleged", "fault_serious", "fault_proven")
                                            if g(n) is None]
        else:
            out["exonerated"] = all(parts) and not tolerated_excused
    defeated = any(out[k] for k in ("defeater_prescription", "defeater_arbitration", "defeater_out_of_scope"))
    conds = [out[k] for k in ("established", "rupture", "imputable", "brutal")]
    if defeated or out["safe_harbour"] or False in conds or out["exonerated"] is True:
        out["liable"] = False
    elif None in conds or out["exonerated"] is None or None in (
            out["defeater_prescription"], out["defeater_arbitration"], out["defeater_out_of_scope"]):
        out["liable"] = None
    else:
        out["liable"] = True
    margins = g("annual_gross_margin") or {}
    if not margins and g("annual_turnover") and g("margin_rate_pct") is not None:
        margins = {y: a * g("margin_rate_pct") / 100 for y, a in g("annual_turnover").items()}
    if out["liable"] and margins and out["reasonable"]:
        last = [margins[y] for y in sorted(margins)[-3:]]
        monthly = sum(last) / len(last) / 12
        low, high = out["reasonable"]
        out["damages"] = (round(max(0, low - effective) * monthly), round(max(0, high - effective) * monthly))
    else:
        out["damages"] = None
    return out


def _entropy(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


class FallbackEvaluator:
    """Exact enumeration over narratives × unknown decisive booleans (at most 2 × 2^4 worlds)."""

    name = "fallback"

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any] | None = None) -> dict[str, Any]:
        facts = dict(case_facts.get("facts", case_facts))
        for k, val in (answers or {}).items():
            facts[k] = {"value": val, "confidence": 1.0, "world": "SHARED",
                        "grounding": [{"kind": "user_answer", "note": f"réponse : {val}"}]}
        rows = []  # (narrative, prob, values, outcome dict)
        for world, pw, values, grounding in _worlds(facts):
            unknown = [f for f in DECISIVE_UNKNOWN if values.get(f) is None]
            for combo in itertools.product((True, False), repeat=len(unknown)):
                vals = {**values, **dict(zip(unknown, combo))}
                rows.append((world, pw * 0.5 ** len(unknown), vals, chain(vals), grounding))
        p_liable = sum(p for _, p, _, o, _ in rows if o["liable"])
        p_known = sum(p for _, p, _, o, _ in rows if o["liable"] is not None) or 1.0
        p_liable /= p_known
        posteriors: dict[str, float] = {}
        for world, p, _, o, _ in rows:
            posteriors[world] = posteriors.get(world, 0.0) + p
        per_world = {w: sum(p for ww, p, _, o, _ in rows if ww == w and o["liable"]) / posteriors[w]
                     for w in posteriors}
        h = _entropy(p_liable)
        questions = self._questions(rows, h, facts)
        base = chain(_worlds(facts)[0][2])  # most informative single world for the proof
        main_world = max(_worlds(facts), key=lambda t: t[1])
        main = chain(main_world[2])
        outcomes = {}
        for o in OUTCOMES:
            vals = {r[3].get(o) is True for r in rows if r[3].get(o) is not None}
            value = "unknown" if not vals or len(vals) > 1 or any(r[3].get(o) is None for r in rows) \
                else ("yes" if vals.pop() else "no")
            if o == "damages":
                value = "yes" if main.get("damages") else "no"
            outcomes[o] = {"value": value, "probability": round(sum(p for _, p, _, r, _ in rows if r.get(o) is True), 4),
                           "missing": base["missing"].get(o, [])}
        status = "verdict" if h < 0.5 or not questions else "needs_input"
        liable = p_liable >= 0.5
        damages = main.get("damages")
        return {
            "evaluator": self.name,
            "status": status,
            "outcomes": outcomes,
            "entropy": round(h, 4),
            "posteriors": {w: round(p, 4) for w, p in posteriors.items()},
            "liable_by_world": {w: round(p, 4) for w, p in per_world.items()},
            "verdict": {"liable": liable, "probability": round(p_liable, 4),
                        "label": ("Responsabilité de l'auteur engagée" if liable else "Responsabilité non engagée"),
                        "reasonable_notice_months": main.get("reasonable"),
                        "effective_notice_months": main.get("effective_notice"),
                        "damages_range_eur": damages},
            "questions": questions,
            "proof": self._proof(main, main_world[2], main_world[3]).model_dump(mode="json"),
            "method": f"exact enumeration over {len(rows)} worlds (fallback evaluator)",
            "tokens": 0, "cost": 0.0,
        }

    def _questions(self, rows: list, h: float, facts: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        total = sum(p for _, p, _, o, _ in rows if o["liable"] is not None) or 1.0
        for fact in DECISIVE_UNKNOWN:
            if fact in facts:
                continue
            cond = 0.0
            for val in (True, False):
                sub = [(p, o) for _, p, v, o, _ in rows if v.get(fact) is val and o["liable"] is not None]
                mass = sum(p for p, _ in sub)
                if mass:
                    cond += mass / total * _entropy(sum(p for p, o in sub if o["liable"]) / mass)
            eig = max(0.0, h - cond)
            q, cost = QUESTIONS[fact]
            out.append({"fact": fact, "question": q, "eig": round(eig, 4), "cost": cost,
                        "score": round(eig / cost, 4)})
        narratives = {w for w, *_ in rows}
        if len(narratives) > 1:  # the ambiguity itself can be asked
            cond = 0.0
            for w in narratives:
                sub = [(p, o) for ww, p, _, o, _ in rows if ww == w and o["liable"] is not None]
                mass = sum(p for p, _ in sub)
                if mass:
                    cond += mass / total * _entropy(sum(p for p, o in sub if o["liable"]) / mass)
            amb = next(k for k, fv in facts.items() if isinstance(fv, dict) and fv.get("alternatives"))
            out.append({"fact": amb, "question": f"Quelle lecture retenir pour « {amb} » ? "
                                                 + " / ".join(str(r.get("value")) for r in
                                                              [facts[amb], *facts[amb]["alternatives"]]),
                        "eig": round(max(0.0, h - cond), 4), "cost": 2, "score": round(max(0.0, h - cond) / 2, 4)})
        return sorted(out, key=lambda q: -q["score"])

    def _proof(self, o: dict[str, Any], values: dict[str, Any], grounding: dict[str, Any]) -> ProofNode:
        def fact(name: str) -> ProofNode:
            v = values.get(name, DEFAULTS.get(name))
            if name not in values:
                kind = NodeKind.ASSUMPTION if name in DEFAULTS and DEFAULTS[name] is not None else NodeKind.MISSING
                return ProofNode(atom=name, label=name, kind=kind, holds=v is not None and v is not False, value=v)
            return ProofNode(atom=name, label=name, kind=NodeKind.FACT, value=v, holds=v is not False,
                             grounding=grounding.get(name, []))

        def rule(atom: str, label: str, premises: list[str], extra: str | None = None) -> ProofNode:
            val = o.get(atom)
            return ProofNode(atom=atom, label=label, holds=bool(val), value=None if val is None else val,
                             rule_id=f"fallback.{atom}", note=extra, children=[fact(p) for p in premises])

        children = [
            rule("defeater_prescription", "Prescription acquise", ["notification_date", "claim_date"]),
            rule("defeater_arbitration", "Clause compromissoire", ["arbitration_clause"]),
            rule("defeater_out_of_scope", "Hors champ", ["claimant_activity"]),
            rule("established", "Relation commerciale établie",
                 ["relation_start", "regular_orders", "framework_contract", "successive_contracts"],
                 f"{o['years']:.1f} ans" if o.get("years") else None),
            rule("rupture", "Rupture", ["rupture_kind"]),
            rule("imputable", "Imputable à la défenderesse", ["claimant_is_author"]),
            rule("brutal", "Brutalité", ["notice_written", "notice_given_months", "contractual_notice_months",
                                         "dedicated_investments", "economic_dependence_proven", "private_label"],
                 f"préavis raisonnable {o.get('reasonable')} mois, effectif {o.get('effective_notice')}"),
            rule("exonerated", "Exonération (faute grave)", ["fault_alleged", "fault_serious", "fault_proven",
                                                             "fault_tolerated", "formal_notice_sent"]),
        ]
        root = ProofNode(atom="liable", label="Responsabilité de l'auteur engagée", holds=bool(o.get("liable")),
                         value=o.get("liable"), rule_id="fallback.liable", children=children)
        if o.get("damages"):
            root.children.append(ProofNode(atom="damages", label="Dommages-intérêts (fourchette, €)",
                                           kind=NodeKind.COMPUTED, value=list(o["damages"]),
                                           children=[fact("annual_gross_margin")]))
        return root
