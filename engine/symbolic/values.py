"""The values of a case before the logic runs: given facts, defaults by burden of proof, computations.

Computations are the pack's JSON-Logic hard rules, evaluated in file order. A value is KNOWN, or
UNKNOWN with the input facts whose absence makes it so (its `missing` roots), or left OPEN on purpose
(the computation returned null with all its inputs known: the zone of the judge's appreciation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, cast

from pydantic import BaseModel, Field

from lexlogic.engine.symbolic.completions import UNDECIDED, CompletionTable, enumerate_completions, supervalue
from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import CaseFile, FactValue, check_value
from lexlogic.logic.grounding import Grounding, SourceKind
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import Computation, FactType, RulePack
from lexlogic.logic.proof import ProofNode


class ComputationError(LexlogicError, ValueError):
    """A computation failed on known inputs (a pack bug): names the computation and where it is."""


class ValueStatus(str, Enum):
    GIVEN = "given"  # stated in the case (or answered)
    DEFAULTED = "defaulted"  # not alleged: default by burden of proof
    COMPUTED = "computed"
    UNKNOWN = "unknown"
    OPEN = "open"  # computed as null with inputs known: appreciation zone
    DYNAMIC = "dynamic"  # filled by a sandboxed dynamic rule: an interpretation, not a given
    PARAMETER = "parameter"  # a dated legal parameter of the pack (parameters.yaml), in force at the case's date


_KNOWN = (
    ValueStatus.GIVEN,
    ValueStatus.DEFAULTED,
    ValueStatus.COMPUTED,
    ValueStatus.DYNAMIC,
    ValueStatus.PARAMETER,
)


class ValueInfo(BaseModel):
    name: str
    status: ValueStatus
    value: Any = None
    missing: list[str] = Field(default_factory=new_list, description="unknown input facts behind an UNKNOWN")
    grounding: list[Grounding] = Field(default_factory=new_list)
    computation: str | None = None
    inputs: list[str] = Field(default_factory=new_list)
    confidence: float = 1.0
    proof: ProofNode | None = Field(default=None, description="for DYNAMIC: the rule's interpretation node")
    readings: list[Any] = Field(default_factory=new_list, description="for an ambiguity: the values its readings give")
    allegation: str | None = Field(
        default=None,
        description="not_alleged (burden default) | alleged (contested: unknown, asked, weighed by its prior) | "
        "proven | disproven; None: a plain given value",
    )

    @property
    def known(self) -> bool:
        return self.status in _KNOWN  # read ~500 times a case: the statuses looked up once, not at each call


class ReadLog(dict[str, ValueInfo]):
    """The case's values; each name's first look-up (present or not) is stamped — ``clock()``, else its order —,
    so that what was built from them can be reused for another case whose values READ are the same."""

    def __init__(self, values: dict[str, ValueInfo], clock: Callable[[], int] | None = None) -> None:
        super().__init__(values)
        self.clock = clock
        self.first: dict[str, int] = {}

    def _stamp(self, name: str) -> None:
        if name not in self.first:
            self.first[name] = self.clock() if self.clock is not None else len(self.first)

    def __getitem__(self, name: str) -> ValueInfo:
        self._stamp(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self._stamp(cast(str, name))
        return super().__contains__(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self._stamp(name)
        return super().get(name, default)

    def read(self) -> tuple[tuple[str, ValueInfo | None], ...]:
        """Each name read, in order, with its value (None: absent)."""
        return tuple((name, dict.get(self, name)) for name in self.first)


def same_value(a: ValueInfo | None, b: ValueInfo | None) -> bool:
    """``a`` and ``b`` read alike: equal, and their free-typed parts equal by ``repr`` too (``3 == 3.0 == True``
    in Python, not in a verdict's JSON)."""
    if a is b:
        return True
    if a is None or b is None or a != b:
        return False
    return repr(a.value) == repr(b.value) and repr(a.readings) == repr(b.readings) and repr(a.proof) == repr(b.proof)


def gather_values(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    *,
    memos: Memos | None = None,
) -> dict[str, ValueInfo]:
    """Facts (answers override the file), dynamic interpretations for facts nobody gave, defaults,
    then every computation in order. `dynamic`: DynamicFact-like objects (name, value, reliability, proof).
    ``memos``: the owner's memoised computations (none: this call's own)."""
    memos = own(memos)
    values: dict[str, ValueInfo] = {}
    answers = answers or {}
    interpretations = {d.name: d for d in (dynamic or []) if d.name in pack.facts}
    for name, spec in pack.facts.items():
        fv: FactValue | None = case.facts.get(name)
        given = name in answers or (fv is not None and fv.value is not None)
        if not given and name in interpretations:
            d = interpretations[name]
            try:
                value = check_value(spec, d.value)
            except ValueError:
                value = None
            if value is not None:
                values[name] = ValueInfo(
                    name=name,
                    status=ValueStatus.DYNAMIC,
                    value=value,
                    confidence=d.reliability,
                    proof=d.proof,
                    grounding=list(d.proof.grounding),
                )
                continue
        answer = answers.get(name)
        if isinstance(answer, dict) and "allegation" in answer:  # {"value": .., "allegation": ..} as an answer
            values[name] = _alleged(
                pack,
                name,
                answer.get("value"),
                str(answer["allegation"]),
                answer.get("alleged_by"),
                [Grounding(kind=SourceKind.USER_ANSWER, note=f"{name} : {answer['allegation']}")],
                1.0,
            )
        elif name in answers:
            values[name] = ValueInfo(
                name=name,
                status=ValueStatus.GIVEN,
                value=answers[name],
                grounding=[Grounding(kind=SourceKind.USER_ANSWER, note=f"{name} = {answers[name]}")],
            )
        elif fv is not None and fv.allegation is not None:
            grounding = fv.grounding or [Grounding(kind=SourceKind.CASE_FILE, json_path=f"$.facts.{name}")]
            values[name] = _alleged(pack, name, fv.value, fv.allegation.value, fv.alleged_by, grounding, fv.confidence)
        elif fv is not None and fv.value is not None and any(r.value != fv.value for r in fv.alternatives):
            # an ambiguity: the readings disagree, so the fact is unknown for the logic; the
            # probabilistic layer weighs the readings (one world per narrative)
            readings = " / ".join(f"{r.value} ({r.world.value}, {r.confidence:.2f})" for r in [fv, *fv.alternatives])
            values[name] = ValueInfo(
                name=name,
                status=ValueStatus.UNKNOWN,
                missing=[name],
                readings=list(dict.fromkeys(r.value for r in [fv, *fv.alternatives] if r.value is not None)),
                grounding=[g for r in [fv, *fv.alternatives] for g in r.grounding]
                or [Grounding(kind=SourceKind.CASE_FILE, json_path=f"$.facts.{name}", note=f"ambiguïté : {readings}")],
            )
        elif fv is not None and fv.value is not None:
            grounding = fv.grounding or [Grounding(kind=SourceKind.CASE_FILE, json_path=f"$.facts.{name}")]
            values[name] = ValueInfo(
                name=name, status=ValueStatus.GIVEN, value=fv.value, grounding=grounding, confidence=fv.confidence
            )
        elif spec.default is not None:
            values[name] = ValueInfo(
                name=name,
                status=ValueStatus.DEFAULTED,
                value=spec.default,
                grounding=[Grounding(kind=SourceKind.PRIOR, note=pack.burden_note(spec.burden))],
            )
        else:
            values[name] = ValueInfo(name=name, status=ValueStatus.UNKNOWN, missing=[name])
    values.update(parameter_values(pack, values, memos))
    dated_by = _computed_dates(pack)
    for comp in pack.computations:
        values[comp.output] = _compute(comp, values, memos)
        if comp.output in dated_by:  # a parameter selected by a computed date (e.g. a due date)
            values.update(parameter_values(pack, values, memos))
    _supervaluate(pack, values, memos)
    return values


ALLEGATION_NOTES = {
    "alleged": "allégué{by}, contesté : à établir",
    "proven": "prouvé",
    "disproven": "réfuté",
}


def _alleged(
    pack: RulePack,
    name: str,
    value: Any,
    allegation: str,
    alleged_by: str | None,
    grounding: list[Grounding],
    confidence: float,
) -> ValueInfo:
    """A fact with an allegation state. not_alleged: the burden-of-proof default (or unknown); alleged and
    contested: unknown for the logic (asked, weighed by its prior), its reading kept; proven: given;
    disproven: a yes/no fact is the contrary of what was alleged, any other fact is unknown."""
    spec = pack.facts[name]
    by = f" par {pack.party_name(alleged_by)}" if alleged_by else ""
    note = ALLEGATION_NOTES.get(allegation, allegation).replace("{by}", by)
    marked = [g.model_copy(update={"note": f"{g.note} — {note}" if g.note else note}) for g in grounding]
    if allegation == "not_alleged":
        if spec.default is not None:
            return ValueInfo(
                name=name,
                status=ValueStatus.DEFAULTED,
                value=spec.default,
                allegation=allegation,
                grounding=[Grounding(kind=SourceKind.PRIOR, note=pack.burden_note(spec.burden))],
            )
        return ValueInfo(name=name, status=ValueStatus.UNKNOWN, missing=[name], allegation=allegation)
    if allegation == "alleged":
        return ValueInfo(
            name=name,
            status=ValueStatus.UNKNOWN,
            missing=[name],
            allegation=allegation,
            readings=[value] if value is not None and spec.type is not FactType.BOOL else [],
            grounding=marked,
            confidence=confidence,
        )
    if allegation == "disproven":
        if spec.type is FactType.BOOL and isinstance(value, bool):
            return ValueInfo(
                name=name, status=ValueStatus.GIVEN, value=not value, allegation=allegation, grounding=marked
            )
        return ValueInfo(name=name, status=ValueStatus.UNKNOWN, missing=[name], allegation=allegation, grounding=marked)
    if value is None:  # proven, but nothing says what
        return ValueInfo(name=name, status=ValueStatus.UNKNOWN, missing=[name], allegation=allegation, grounding=marked)
    return ValueInfo(
        name=name, status=ValueStatus.GIVEN, value=value, allegation=allegation, grounding=marked, confidence=confidence
    )


PARAMETERS_SIZE = 256


def parameter_values(pack: RulePack, values: dict[str, ValueInfo], memos: Memos | None = None) -> dict[str, ValueInfo]:
    """Each dated parameter at the case's relevant date: its value, period and reference in the grounding;
    unknown (naming the date) when the date is unknown and the value depends on it. Remembered by the owner of
    ``memos`` per pack and dates (what it reads: each date fact's status, value and missing roots), as
    ``_compute``."""
    if not pack.parameters:
        return {}
    if memos is None:
        return _parameter_values(pack, values)
    table = memos.lru("symbolic.parameters", PARAMETERS_SIZE)
    facts = sorted({f for p in pack.parameters.values() if (f := _date_fact(pack, p))})
    key: tuple[Any, ...] = (
        id(pack),
        *(
            (f, info.status, repr(info.value), tuple(info.missing)) if (info := values.get(f)) is not None else f
            for f in facts
        ),
    )
    hit = table.get(key)
    if hit is not None and hit[0] is pack:
        return dict(hit[1])
    out = _parameter_values(pack, values)
    table.put(key, (pack, out))  # the pack is held: its id is not reused while remembered
    return dict(out)


def _date_fact(pack: RulePack, p: Any) -> str | None:
    return (
        p.date_fact
        or pack.parameters_date_fact
        or (pack.manifest.versions.date_fact if pack.manifest.versions else None)
    )


def _parameter_values(pack: RulePack, values: dict[str, ValueInfo]) -> dict[str, ValueInfo]:
    out: dict[str, ValueInfo] = {}
    for name, p in pack.parameters.items():
        fact = _date_fact(pack, p)
        day = pack.parameter_date(values, fact)
        period = p.period_at(day)
        if period is None:
            known_date = fact in values and values[fact].known
            missing = [] if known_date or not fact else (values[fact].missing if fact in values else [fact]) or [fact]
            out[name] = ValueInfo(
                name=name, status=ValueStatus.UNKNOWN if missing else ValueStatus.OPEN, missing=missing
            )
            continue
        src = pack.source(period.reference or p.reference)
        note = parameter_note(p, period, src.reference if src else p.reference)
        value = period.value.isoformat() if hasattr(period.value, "isoformat") else period.value
        out[name] = ValueInfo(
            name=name,
            status=ValueStatus.PARAMETER,
            value=value,
            grounding=[Grounding(kind=SourceKind.PARAMETER, note=note)],
        )
    return out


def _computed_dates(pack: RulePack) -> set[str]:
    """Computed values that select a parameter's period (parameters are refreshed after them)."""
    if not pack.parameters:
        return set()
    outputs = {c.output for c in pack.computations}
    facts = {p.date_fact for p in pack.parameters.values() if p.date_fact} | {pack.parameters_date_fact}
    return {f for f in facts if f in outputs}


USED_MAX = 4096


def _used(comp: Computation, memos: Memos | None = None) -> list[str]:
    """Variables a computation reads, validated once (the policy check is done on first use).

    Keyed by ``id(comp)`` and holding ``comp`` itself: an id is only unique among live objects, and a pack
    loaded again (or a mutant's copy) gets new computations that may reuse a freed one's id — the entry
    keeps its object alive and is checked to be the same object, so it never answers for another one. Kept by the
    owner of ``memos`` (none: validated and read at this call)."""
    used = memos.table("symbolic.used") if memos is not None else {}
    hit = used.get(id(comp))
    if hit is None or hit[0] is not comp:
        if len(used) >= USED_MAX:
            used.clear()
        jsonlogic_policy.validate(comp.logic, f"computation {comp.id}")
        hit = used[id(comp)] = (comp, sorted(jsonlogic_policy.variables_used(comp.logic)))
    return cast(list[str], hit[1])


def _deps(comp: Computation, memos: Memos) -> tuple[str, ...]:
    """``computation_reads`` kept per computation (``_compute`` reads it at every call), as ``_used``:
    held, and checked to be the same object with the same formula and inputs."""
    deps = memos.table("symbolic.deps")
    hit = deps.get(id(comp))
    if hit is None or hit[0] is not comp or hit[1] is not comp.logic or hit[2] is not comp.inputs:
        if len(deps) >= USED_MAX:
            deps.clear()
        hit = deps[id(comp)] = (comp, comp.logic, comp.inputs, tuple(computation_reads(comp, memos)))
    return cast(tuple[str, ...], hit[3])


MAX_SUPERVALUATION_ROOTS = 4


def _supervaluate(pack: RulePack, values: dict[str, ValueInfo], memos: Memos) -> None:
    """A computed value unknown only for lack of a few yes/no facts, or because of an ambiguity (a fact
    with a few readings), is known when every completion gives the same value (3 months written or 0
    oral are both below 8 months; a relation of 11 years is long enough whichever date is read)."""

    def completions(name: str) -> list[Any] | None:
        info = values.get(name)
        if info is None or info.status is not ValueStatus.UNKNOWN:
            return None
        if info.readings:
            return info.readings
        if name in pack.facts and pack.facts[name].type is FactType.BOOL:
            return [True, False]
        return None

    groups: dict[tuple[str, ...], list[str]] = {}
    for comp in pack.computations:
        info = values[comp.output]
        roots = tuple(info.missing)
        if (
            info.status is ValueStatus.UNKNOWN
            and roots
            and len(roots) <= MAX_SUPERVALUATION_ROOTS
            and all(completions(r) is not None for r in roots)
        ):
            groups.setdefault(roots, []).append(comp.output)
    for roots, outputs in groups.items():
        # the one completion mechanism (engine/symbolic/completions.py), shared with the probabilistic model
        domains = {r: completions(r) or [] for r in roots}
        table = CompletionTable(_world_of(pack, values, tuple(outputs), memos))  # computes only what is read
        agreed = supervalue(
            outputs,
            enumerate_completions(roots, domains, MAX_SUPERVALUATION_ROOTS),
            table,
            lambda world, o: world[o].value if world[o].known else UNDECIDED,
        )
        for o, value in agreed.items():
            old = values[o]
            values[o] = ValueInfo(
                name=o, status=ValueStatus.COMPUTED, value=value, computation=old.computation, inputs=old.inputs
            )


def _world_of(pack: RulePack, values: dict[str, ValueInfo], outputs: tuple[str, ...], memos: Memos) -> Any:
    """One completion's values of ``outputs`` (a ``CompletionTable``'s function)."""

    def world(c: Any) -> dict[str, ValueInfo]:
        return world_values(pack, values, dict(c), only=outputs, memos=memos)

    return world


def computation_reads(comp: Computation, memos: Memos | None = None) -> list[str]:
    """Every value a computation reads: its required inputs and the variables of its formula (those
    read with a default too — the probabilistic model must see them, the widened range does not)."""
    return list(dict.fromkeys([*comp.inputs, *_used(comp, memos)]))


def world_values(
    pack: RulePack,
    base: dict[str, ValueInfo],
    assignment: dict[str, Any],
    only: Iterable[str] | None = None,
    *,
    memos: Memos | None = None,
) -> dict[str, ValueInfo]:
    """The values of one world of the probabilistic model: ``base`` (the case's values) with the roots
    of ``assignment`` given, every computation evaluated again (no supervaluation: the roots a value
    depends on are all assigned in its world). ``only``: the values the caller reads — then only the
    computations they depend on are evaluated (the others keep ``base``'s values). ``memos``: the owner's."""
    memos = own(memos)
    trial = dict(base)
    for name, value in assignment.items():
        trial[name] = ValueInfo(name=name, status=ValueStatus.GIVEN, value=value)
    if pack.parameters and not _parameters_kept(pack, base, assignment):  # a root of this world dates them
        trial.update(parameter_values(pack, trial, memos))
    dated_by = _computed_dates(pack)
    needed = _closure(pack, frozenset(only), memos) if only is not None and not dated_by else None
    for comp in pack.computations:
        if needed is not None and comp.output not in needed:
            continue
        trial[comp.output] = _compute(comp, trial, memos)
        if comp.output in dated_by:
            trial.update(parameter_values(pack, trial, memos))
    return trial


def _parameters_kept(pack: RulePack, base: dict[str, ValueInfo], assignment: dict[str, Any]) -> bool:
    """Whether ``base``'s parameters hold in a world: ``base`` has them all and the world assigns none of the
    dates that select them (``parameter_values`` reads nothing else); never when a computed date selects
    them (the supervaluation may have changed that date after they were chosen)."""
    if _computed_dates(pack):
        return False
    facts = {_date_fact(pack, p) for p in pack.parameters.values()}
    return all(name in base for name in pack.parameters) and not any(f in assignment for f in facts if f)


def _closure(pack: RulePack, names: frozenset[str], memos: Memos) -> frozenset[str]:
    """``names`` and every value they are computed from, transitively (once per pack and set of names)."""
    closures = memos.table("symbolic.closures")
    hit = closures.get((id(pack), names))
    if hit is not None and hit[0] is pack:
        return cast(frozenset[str], hit[1])
    out: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        for comp in pack.computations:
            if comp.output == name:
                todo.extend(computation_reads(comp, memos))
    if len(closures) > 256:
        closures.clear()
    closures[(id(pack), names)] = (pack, frozenset(out))
    return frozenset(out)


def evaluate_computation(comp: Computation, values: Mapping[str, ValueInfo], memos: Memos | None = None) -> ValueInfo:
    """One computation on the values it reads (the probabilistic model's value classes evaluate a
    computation on each combination of its inputs' classes, never on whole worlds)."""
    return _compute(comp, values, own(memos))


def computed_dates(pack: RulePack) -> set[str]:
    """Computed values that select a parameter's period: the parameters then vary with them."""
    return _computed_dates(pack)


COMPUTED_SIZE = 4096


def _compute(comp: Computation, values: Mapping[str, ValueInfo], memos: Memos) -> ValueInfo:
    """``_evaluate`` remembered (a bounded LRU) under what it reads: each input's status, value and missing
    roots. A case's computations are evaluated in its analysis, its model's classes and worlds, and again
    for every case that shares their inputs (a batch, a what-if): the same inputs give the same value — kept by
    the owner of ``memos`` (the run, the batch chunk, the verdict service)."""
    computed = memos.lru("symbolic.computed", COMPUTED_SIZE)
    deps = _deps(comp, memos)
    key: tuple[Any, ...] = (
        id(comp),
        id(comp.logic),
        *(
            (n, info.status, repr(info.value), tuple(info.missing)) if (info := values.get(n)) is not None else n
            for n in deps
        ),
    )
    hit = computed.get(key)
    if hit is not None and hit[0] is comp and hit[1] is comp.logic:
        return cast(ValueInfo, hit[2])
    out = _evaluate(comp, values, memos)
    computed.put(key, (comp, comp.logic, out))  # held: their ids are not reused while remembered
    return out


def _evaluate(comp: Computation, values: Mapping[str, ValueInfo], memos: Memos) -> ValueInfo:
    used = _used(comp, memos)
    deps = list(dict.fromkeys([*comp.inputs, *used]))
    unknown_required = [n for n in comp.inputs if not values.get(n) or not values[n].known]
    if unknown_required:
        return ValueInfo(
            name=comp.output,
            status=ValueStatus.UNKNOWN,
            computation=comp.id,
            inputs=deps,
            missing=_roots(unknown_required, values),
        )
    data = {n: values[n].value for n in deps if n in values and values[n].known}
    try:
        result = jsonlogic_policy.evaluate_validated(comp.logic, data)
    except TypeError:  # arithmetic on an unknown optional input
        result = None
    except ValueError as exc:  # a date operator given an unknown input: unknown; on known inputs: a pack bug
        if all(n not in values or values[n].known for n in used):
            raise ComputationError(f"computation {comp.id} ({comp.file}:{comp.line}): {exc}") from exc
        result = None
    unknown_used = [n for n in used if n in values and not values[n].known]
    if result is None:
        if unknown_used:
            return ValueInfo(
                name=comp.output,
                status=ValueStatus.UNKNOWN,
                computation=comp.id,
                inputs=deps,
                missing=_roots(unknown_used, values),
            )
        return ValueInfo(name=comp.output, status=ValueStatus.OPEN, computation=comp.id, inputs=deps)
    if comp.type is FactType.BOOL:
        result = bool(result)
    elif comp.type in (FactType.MONTHS, FactType.AMOUNT, FactType.PERCENT):
        result = round(float(result), 4)
    return ValueInfo(name=comp.output, status=ValueStatus.COMPUTED, value=result, computation=comp.id, inputs=deps)


def _roots(names: list[str], values: Mapping[str, ValueInfo]) -> list[str]:
    out: list[str] = []
    for n in names:
        info = values.get(n)
        for m in info.missing if info and info.missing else [] if info and info.status is ValueStatus.OPEN else [n]:
            if m not in out:
                out.append(m)
    return out


def parameter_note(p: Any, period: Any, reference: str) -> str:
    """How a proof shows a legal parameter: its value with its unit, the period it is in force, its source —
    never its identifier (« valeur légale en vigueur : dix-huit mois (depuis le 26 avril 2019, art. L.442-1 II
    C. com.) »)."""
    from lexlogic.engine.text import formatting

    if p.constant:
        return f"valeur légale : {p.show(period.value)} ({reference})"
    start = f"du {formatting.date(period.valid_from)}" if period.valid_from else ""
    end = f"au {formatting.date(period.valid_to)}" if period.valid_to else ""
    span = (
        f"{start} {end}".strip()
        if start and end
        else (
            f"depuis le {formatting.date(period.valid_from)}"
            if start
            else f"jusqu'au {formatting.date(period.valid_to)}"
        )
    )
    return f"valeur légale en vigueur : {p.show(period.value)} ({span}, {reference})"
