"""The case model built once per (pack, case, answers) and what shapes it; a what-if that only moves priors
is served from that model and its compiled circuit (issue 33).

Why: every what-if used to rebuild the case's discrete model (the symbolic values, the value classes, the
program) — twice per verdict (once to split the priors, once to decide) — although a prior moves no rule.
``build_case_model`` reads of the what-ifs only (a) the yes/no pack facts given a probability and (b) the
soft-rule magnitudes; any other key (a model variable such as a judge's coin) goes to the inference alone.
So the model is keyed by the case, the answers and those keys; and a yes/no fact given a probability p
strictly between 0 and 1 is built once at a placeholder prior and p applied to its variable — only when the
model has that variable with the placeholder prior (otherwise, e.g. an ambiguous fact whose readings carry
the prior, the model is built with p). The program's structure key does not depend on priors: the compiled
circuit and its contraction plans are the same (``engine.prob.infer``'s caches).
Models are shared: callers never mutate them (``apply_whatif`` copies).
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.case_model import CaseModel, build_case_model, weights_of
from lexlogic.engine.prob.model import BoolVar
from lexlogic.engine.symbolic.values import ValueInfo
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.pack import FactType, RulePack

PLACEHOLDER = 0.5  # the prior a moved yes/no fact is built at (then replaced by the what-if's)
SIZE = 64


def _moved_prior(pack: RulePack, name: str, value: Any, answers: dict[str, Any]) -> bool:
    """A yes/no pack fact given a probability strictly between 0 and 1 (not an answer)."""
    if name not in pack.facts or pack.facts[name].type is not FactType.BOOL or name in answers:
        return False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return 0.0 < float(value) < 1.0


def _shaping(pack: RulePack, whatif: dict[str, Any]) -> dict[str, Any]:
    """The what-ifs ``build_case_model`` reads: pack facts and soft-rule magnitudes."""
    weights = weights_of(pack)
    rules = {r.id for r in weights.soft_rules} if weights else set()
    return {k: v for k, v in whatif.items() if k in pack.facts or ("." in k and k.split(".")[0] in rules)}


def _built(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any],
    whatif: dict[str, Any],
    case_key: str,
    memos: Memos,
    values: dict[str, ValueInfo] | None = None,
) -> CaseModel:
    models = memos.lru("prob.case_models", SIZE)
    key = canonical_hash({"c": case_key, "a": answers, "w": whatif, "root": str(pack.root), "pack": id(pack)})
    hit = models.get(key)
    if hit is not None and hit[0] is pack:
        return cast(CaseModel, hit[1])
    model = build_case_model(pack, case, answers, None, whatif, values=values, memos=memos)
    models.put(key, (pack, model))
    return model


def _servable(model: CaseModel, moved: dict[str, Any]) -> bool:
    """Each moved fact is a yes/no variable of its own name at the placeholder prior."""
    by_name = {v.name: v for v in model.program.variables if isinstance(v, BoolVar)}
    return all(k in by_name and by_name[k].prior == PLACEHOLDER and k not in model.fixed for k in moved)


def case_model(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    whatif: dict[str, Any] | None = None,
    values: dict[str, ValueInfo] | None = None,
    memos: Memos | None = None,
) -> CaseModel:
    """``build_case_model``'s model, from the owner's memos (``memos``: the run's, the verdict service's; none,
    this call's own) when the case, answers and shaping what-ifs were seen. ``values``: the case's values for
    these answers when the caller has them (used on a miss)."""
    memos = own(memos)
    if dynamic:  # interpretations of dynamic rules: not keyed (rare, per run)
        return build_case_model(pack, case, answers, dynamic, whatif, values=values, memos=memos)
    answers = dict(answers or {})
    shaping = _shaping(pack, dict(whatif or {}))
    moved = {k: v for k, v in shaping.items() if _moved_prior(pack, k, v, answers)}
    case_key = _case_key(case, memos)
    if moved:
        placed = {**shaping, **dict.fromkeys(moved, PLACEHOLDER)}
        base = _built(pack, case, answers, placed, case_key, memos, values)
        if _servable(base, moved):
            return dataclasses.replace(base, program=apply_whatif(base.program, moved))
    return _built(pack, case, answers, shaping, case_key, memos, values)


def _case_key(case: CaseFile, memos: Memos) -> str:
    """The case's content hash, kept by identity (a what-if asks for its case's model three times — the
    priors' split, the decision, the numbers' proposal — and typed cases are never mutated: ``with_facts``
    and ``model_copy`` make new ones)."""
    keys = memos.identity("prob.case_keys", SIZE)
    return keys.get((case,), None, lambda: canonical_hash(case.model_dump(mode="json")))
