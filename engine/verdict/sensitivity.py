"""How much each what-if slider moves P(target): |P at the slider's maximum − P at its minimum|, the other
hypotheses as given. One call ranks them all (the page used to fire two what-if requests per slider).

Why it is cheap: only P(target) is needed, and the case's discrete model is built ONCE.
* A yes/no variable's prior p enters P linearly in the numerator and the denominator of the weighted model
  count: P(T; p) = (p·a₁ + (1−p)·a₀) / (p·b₁ + (1−p)·b₀), with b_v = P(x=v | ev)/q_v and a_v = P(x=v, T | ev)/q_v
  at the current prior q. One exact inference gives (a, b) for every variable at once (the same marginals the
  EIG reads), so every prior slider's two ends cost no inference at all (``_OnePass``).
* An ambiguity weight only moves the priors of the two narrative variables (``narrative_prior``), and an Alexy
  magnitude the prior of the judge's call it is folded into (``tilt``) or a soft factor the program keeps:
  each end is one inference on the same compiled model, never a rebuild.
* Anything else (a what-if that reshaped the model, a prior at 0 or 1, a model beyond exact inference) takes
  the former path: a model per case-file shape and one inference per point (``_Points``).
The values equal the what-if verdict's ``probability.p_target`` (tests/api check them against it).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import infer, inference_plan
from lexlogic.engine.prob.analyse import analyse as prob_analyse
from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.case_model import CaseModel, build_case_model, call_coins, narrative_prior, tilt, weights_of
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.soft import factor
from lexlogic.engine.symbolic.narratives import apply_priors
from lexlogic.engine.verdict.build import load_pack, magnitude, model_of, split_priors
from lexlogic.engine.verdict.model import Slider
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.memos import Memos, own


class SliderEffect(BaseModel):
    name: str
    group: str
    kind: str
    p_min: float | None = Field(description="P(target) with the slider at its minimum")
    p_max: float | None = Field(description="P(target) with the slider at its maximum")
    sensitivity: float | None = Field(description="|p_max − p_min|")


class Sensitivity(BaseModel):
    """The sliders ranked by how much they move P(target), most influential first."""

    p_target: float | None
    sliders: list[SliderEffect]
    models: int = Field(description="discrete models built for this ranking")
    seconds: float


class _Points:
    """P(target) at one point of the hypotheses; models cached by what changes their structure."""

    def __init__(
        self,
        packs: PackLibrary,
        case: CaseFile,
        answers: dict[str, Any],
        limits: InferenceLimits | None = None,
        memos: Memos | None = None,
    ) -> None:
        self.case, self.answers = case, answers
        self.memos = own(memos)  # the owner's (the verdict service's): models, computations, circuits
        self.limits = limits  # the route's thresholds (the deployment's Settings.inference_*): none, the defaults
        self.pack = load_pack(packs, case.pack).pack
        self.models: dict[str, CaseModel] = {}
        self.weights = weights_of(self.pack)

    def model(self, fact_priors: dict[str, float], overrides: dict[str, Any]) -> CaseModel:
        key = canonical_hash({"f": fact_priors, "o": self._shape(overrides)})
        if key not in self.models:
            cf = apply_priors(self.case, fact_priors)
            self.models[key] = build_case_model(self.pack, cf, self.answers, None, overrides, memos=self.memos)
        return self.models[key]

    def _shape(self, overrides: dict[str, Any]) -> dict[str, Any]:
        """What the model reads of the overrides: Alexy magnitudes only through each soft rule's factor
        (I1 = 8 and I2 = 0.5 can give one factor: one model)."""
        rules = list(self.weights.soft_rules) if self.weights else []
        ids = {r.id for r in rules}
        soft = {k: v for k, v in overrides.items() if "." in k and k.split(".")[0] in ids}
        rest = {k: v for k, v in overrides.items() if k not in soft}
        if soft:
            prog = ProbProgram(target=self.pack.manifest.target, program="", soft_rules=rules)
            rest["__factors__"] = [round(factor(r), 12) for r in apply_whatif(prog, soft).soft_rules]
        return rest

    def point(
        self, fact_priors: dict[str, float], var_priors: dict[str, float], weights: dict[str, Any], vary: str = ""
    ) -> tuple[CaseModel, dict[str, Any]]:
        """The model of one point and the what-ifs its inference takes; ``vary``: a variable whose prior is
        given to the inference only (the same model for each of its values)."""
        overrides = {**var_priors, **{k: magnitude(m) for k, m in weights.items()}}
        built = {k: v for k, v in overrides.items() if k != vary}
        m = self.model(fact_priors, built)
        soft = {r.id for r in self.weights.soft_rules} if self.weights else set()
        # the model consumes every soft-rule magnitude (and the yes/no facts it fixes): not passed twice
        rest = {k: v for k, v in built.items() if k not in m.consumed and k.split(".")[0] not in soft}
        if vary:
            rest[vary] = overrides[vary]
        return m, rest

    def p(
        self, fact_priors: dict[str, float], var_priors: dict[str, float], weights: dict[str, Any], vary: str = ""
    ) -> float:
        """P(target) at one point (the former path: a model per case-file shape, a full inference)."""
        m, rest = self.point(fact_priors, var_priors, weights, vary)
        return float(prob_analyse(m.program, whatif=rest, limits=self.limits, memos=self.memos).p_target)


def _exact_stats(prog: ProbProgram, limits: InferenceLimits | None, memos: Memos) -> infer.Stats | None:
    """The sufficient statistics of the exact inference ``analyse`` runs on ``prog`` under ``limits`` (the route
    its cost estimate chooses: contraction, else enumeration); None when ``analyse`` would sample instead."""
    c = infer.compiled(prog, memos)
    priors = infer.prior_vectors(prog.variables)
    observed = prog.observed_atoms()
    soft = [(observed.index(r.condition_atom), factor(r)) for r in prog.soft_rules]
    x = inference_plan.Inputs(c, prog, priors, soft, {}, {})
    route = inference_plan.choose(x, "auto", limits=limits).route
    if route == "contraction":
        return infer.contracted(c, priors, soft, {})
    if route == "enumeration":
        return infer.exact(c, priors, soft, {})
    return None


class _OnePass:
    """Every slider's two ends from the one model of the current hypotheses (see the module's docstring)."""

    def __init__(
        self, pts: _Points, fact_priors: dict[str, float], var_priors: dict[str, float], weights: dict[str, Any]
    ):
        self.pts, self.fact_priors, self.var_priors, self.weights = pts, fact_priors, var_priors, weights
        self.m, self.rest = pts.point(fact_priors, var_priors, weights)
        self.prog = apply_whatif(self.m.program, self.rest)
        self.index = {v.name: k for k, v in enumerate(self.prog.variables)}
        self.stats = _exact_stats(self.prog, pts.limits, pts.memos)
        self.base = self._p(self.prog)

    def _p(self, prog: ProbProgram) -> float:
        st = self.stats if prog is self.prog else _exact_stats(prog, self.pts.limits, self.pts.memos)
        if st is None:
            return float(
                prob_analyse(prog, limits=self.pts.limits, memos=self.pts.memos).p_target
            )  # sampled: the former path's inference
        return float(min(max(st.p_observed[0], 0.0), 1.0))

    def ends(self, s: Slider) -> list[float] | None:
        """P(target) at the slider's minimum and maximum, or None when only the former path can say."""
        if s.kind == "prior":
            return self._prior_ends(s)
        if s.kind == "ambiguity":
            return self._ambiguity_ends(s)
        return self._alexy_ends(s)

    def _prior_ends(self, s: Slider) -> list[float] | None:
        """P(T; p) = (p·a₁ + (1−p)·a₀) / (p·b₁ + (1−p)·b₀) from the exact marginals: no inference."""
        k = self.index.get(s.name)
        if k is None or self.stats is None or s.name in self.m.consumed:
            return None
        var = self.prog.variables[k]
        q = infer.prior_vector(var)
        if not isinstance(var, BoolVar) or (q <= 0.0).any():
            return None  # a value the current prior excludes: the marginals say nothing about it
        b, a = self.stats.per_var[k][0] / q, self.stats.per_var[k][1] / q
        out = []
        for x in (s.min, s.max):
            w = np.array([1.0 - x, x])
            den = float(w @ b)
            if den <= 0.0:
                return None  # every world masked at this end: the former path raises what the what-if raises
            out.append(float(min(max(float(w @ a) / den, 0.0), 1.0)))
        return out

    def _ambiguity_ends(self, s: Slider) -> list[float] | None:
        """The weight of the first reading moves the two narrative variables' priors only."""
        a, b = f"{s.name}__A", f"{s.name}__B"
        if a not in self.index or b not in self.index or s.name in self.m.consumed:
            return None
        out = []
        for x in (s.min, s.max):
            share = _reading_share(apply_priors(self.pts.case, {**self.fact_priors, s.name: x}), s.name)
            if share is None:
                return None
            pa = narrative_prior(share)
            out.append(self._p(apply_whatif(self.prog, {a: pa, b: 1.0 - pa})))
        return out

    def _alexy_ends(self, s: Slider) -> list[float] | None:
        """A magnitude changes its soft rule's factor: kept by the program (a what-if on it), or folded into
        the judge's call (its coins' odds × odds ratio of the new factor to the current one)."""
        rule_id = s.name.split(".")[0]
        rules = list(self.pts.weights.soft_rules) if self.pts.weights else []
        if rule_id not in {r.id for r in rules}:
            return None
        if rule_id not in self.m.folded:
            return [self._p(apply_whatif(self.prog, {s.name: x})) for x in (s.min, s.max)]
        current = {k: magnitude(v) for k, v in self.weights.items() if k.split(".")[0] == rule_id}
        f0 = _factor_of(self.prog.target, rules, rule_id, current)
        cond = next(r.condition_atom for r in rules if r.id == rule_id)
        coins = [v for _, v in call_coins(cond, self.prog.variables) if v.name not in self.rest]
        out = []
        for x in (s.min, s.max):
            f1 = _factor_of(self.prog.target, rules, rule_id, {**current, s.name: x})
            if not (0.0 < f0 < 1.0 and 0.0 < f1 < 1.0):
                return None
            ratio = (f1 / (1 - f1)) / (f0 / (1 - f0))
            change = {v.name: tilt(v.p, ratio / (1 + ratio)) for v in coins}
            out.append(self._p(apply_whatif(self.prog, change)))
        return out


def _factor_of(target: str, rules: list[Any], rule_id: str, magnitudes: dict[str, float]) -> float:
    prog = ProbProgram(target=target, program="", soft_rules=[r for r in rules if r.id == rule_id])
    return float(factor(apply_whatif(prog, magnitudes).soft_rules[0]))


def _reading_share(case: CaseFile, name: str) -> float | None:
    """q = P(narrative A's reading) from the two readings' confidences (None: not two readings A and B)."""
    fv = case.facts.get(name)
    if fv is None:
        return None
    readings = [fv, *fv.alternatives]
    worlds = {r.world.value: float(r.confidence) for r in readings}
    if len(readings) != 2 or set(worlds) != {"NARRATIVE_A", "NARRATIVE_B"}:
        return None
    ca, cb = worlds["NARRATIVE_A"], worlds["NARRATIVE_B"]
    return ca / (ca + cb) if ca + cb > 0 else 0.5


def rank_sliders(
    packs: PackLibrary,
    case: CaseFile,
    answers: dict[str, Any],
    priors: dict[str, float],
    weights: dict[str, Any],
    sliders: list[Slider],
    *,
    one_pass: bool = True,
    limits: InferenceLimits | None = None,
    memos: Memos | None = None,
) -> Sensitivity:
    """Each slider at its minimum and maximum (the rest as given), ranked by the spread of P(target).
    ``one_pass=False``: every point by the former path (a model per shape, an inference per point). ``limits``:
    the inference thresholds of the deployment (as the verdict's), None: the defaults. ``memos``: the owner's (the
    verdict service's; none: this ranking's own)."""
    t0 = time.perf_counter()
    pts = _Points(packs, case, answers, limits, memos)
    # the variables' names tell a variable's prior from an ambiguity weight: a model only when there are priors
    model = model_of(pts.pack, case, answers, pts.memos) if priors else None
    fact_priors, var_priors = split_priors(case, model, priors) if model is not None else ({}, {})
    one = _OnePass(pts, fact_priors, var_priors, weights) if one_pass else None
    base = one.base if one is not None else pts.p(fact_priors, var_priors, weights)
    out = []
    for s in sliders:
        ps = one.ends(s) if one is not None else None
        if ps is None:
            ps = [_former(pts, fact_priors, var_priors, weights, s, x) for x in (s.min, s.max)]
        out.append(
            SliderEffect(
                name=s.name,
                group=s.group,
                kind=s.kind,
                p_min=ps[0],
                p_max=ps[1],
                sensitivity=round(abs(ps[1] - ps[0]), 12),
            )
        )
    out.sort(key=lambda e: -(e.sensitivity or 0.0))
    return Sensitivity(p_target=base, sliders=out, models=len(pts.models), seconds=round(time.perf_counter() - t0, 4))


def _former(
    pts: _Points,
    fact_priors: dict[str, float],
    var_priors: dict[str, float],
    weights: dict[str, Any],
    s: Slider,
    x: float,
) -> float:
    """One point by the former path: the model of its case-file shape, one full inference."""
    if s.kind == "ambiguity":
        return pts.p({**fact_priors, s.name: x}, var_priors, weights)
    if s.kind == "prior":
        return pts.p(fact_priors, {**var_priors, s.name: x}, weights, vary=s.name)
    return pts.p(fact_priors, var_priors, {**weights, s.name: x})
