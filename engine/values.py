"""The values of a case before the logic runs: given facts, defaults by burden of proof, computations.

Computations are the pack's JSON-Logic hard rules, evaluated in file order. A value is KNOWN, or
UNKNOWN with the input facts whose absence makes it so (its `missing` roots), or left OPEN on purpose
(the computation returned null with all its inputs known: the zone of the judge's appreciation).
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from logic import jsonlogic_policy
from logic.facts import CaseFile, FactValue
from logic.grounding import Grounding, SourceKind
from logic.pack import Computation, FactType, RulePack


class ValueStatus(str, Enum):
    GIVEN = "given"  # stated in the case (or answered)
    DEFAULTED = "defaulted"  # not alleged: default by burden of proof
    COMPUTED = "computed"
    UNKNOWN = "unknown"
    OPEN = "open"  # computed as null with inputs known: appreciation zone


class ValueInfo(BaseModel):
    name: str
    status: ValueStatus
    value: Any = None
    missing: list[str] = Field(default_factory=list, description="unknown input facts behind an UNKNOWN")
    grounding: list[Grounding] = Field(default_factory=list)
    computation: str | None = None
    inputs: list[str] = Field(default_factory=list)
    confidence: float = 1.0

    @property
    def known(self) -> bool:
        return self.status in (ValueStatus.GIVEN, ValueStatus.DEFAULTED, ValueStatus.COMPUTED)


class ValueError_(ValueError):
    pass


def gather_values(pack: RulePack, case: CaseFile, answers: dict[str, Any] | None = None) -> dict[str, ValueInfo]:
    """Facts (answers override the file), defaults, then every computation in order."""
    values: dict[str, ValueInfo] = {}
    answers = answers or {}
    for name, spec in pack.facts.items():
        fv: FactValue | None = case.facts.get(name)
        if name in answers:
            values[name] = ValueInfo(name=name, status=ValueStatus.GIVEN, value=answers[name],
                                     grounding=[Grounding(kind=SourceKind.USER_ANSWER, note=f"{name} = {answers[name]}")])
        elif fv is not None and fv.value is not None:
            grounding = fv.grounding or [Grounding(kind=SourceKind.CASE_FILE, json_path=f"$.facts.{name}")]
            values[name] = ValueInfo(name=name, status=ValueStatus.GIVEN, value=fv.value,
                                     grounding=grounding, confidence=fv.confidence)
        elif spec.default is not None:
            values[name] = ValueInfo(
                name=name, status=ValueStatus.DEFAULTED, value=spec.default,
                grounding=[Grounding(kind=SourceKind.PRIOR,
                                     note=f"non allégué : charge de la preuve sur la {'défense' if spec.burden == 'defence' else 'demanderesse'} (art. 1353 C. civ.)")])
        else:
            values[name] = ValueInfo(name=name, status=ValueStatus.UNKNOWN, missing=[name])
    for comp in pack.computations:
        values[comp.output] = _compute(comp, values)
    return values


_USED: dict[int, list[str]] = {}


def _used(comp: Computation) -> list[str]:
    """Variables a computation reads, validated once (the policy check is done on first use)."""
    key = id(comp)
    if key not in _USED:
        jsonlogic_policy.validate(comp.logic, f"computation {comp.id}")
        _USED[key] = sorted(jsonlogic_policy.variables_used(comp.logic))
    return _USED[key]


def _compute(comp: Computation, values: dict[str, ValueInfo]) -> ValueInfo:
    used = _used(comp)
    deps = list(dict.fromkeys([*comp.inputs, *used]))
    unknown_required = [n for n in comp.inputs if not values.get(n) or not values[n].known]
    if unknown_required:
        return ValueInfo(name=comp.output, status=ValueStatus.UNKNOWN, computation=comp.id, inputs=deps,
                         missing=_roots(unknown_required, values))
    data = {n: values[n].value for n in deps if n in values and values[n].known}
    try:
        result = jsonlogic_policy.evaluate_validated(comp.logic, data)
    except TypeError:  # arithmetic on an unknown optional input
        result = None
    unknown_used = [n for n in used if n in values and not values[n].known]
    if result is None:
        if unknown_used:
            return ValueInfo(name=comp.output, status=ValueStatus.UNKNOWN, computation=comp.id,
                             inputs=deps, missing=_roots(unknown_used, values))
        return ValueInfo(name=comp.output, status=ValueStatus.OPEN, computation=comp.id, inputs=deps)
    if comp.type is FactType.BOOL:
        result = bool(result)
    elif comp.type in (FactType.MONTHS, FactType.AMOUNT, FactType.PERCENT):
        result = round(float(result), 4)
    return ValueInfo(name=comp.output, status=ValueStatus.COMPUTED, value=result, computation=comp.id,
                     inputs=deps)


def _roots(names: list[str], values: dict[str, ValueInfo]) -> list[str]:
    out: list[str] = []
    for n in names:
        info = values.get(n)
        for m in (info.missing if info and info.missing else [] if info and info.status is ValueStatus.OPEN else [n]):
            if m not in out:
                out.append(m)
    return out
