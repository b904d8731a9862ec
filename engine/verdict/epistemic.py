"""How each fact and outcome of a verdict is known (its epistemic status).

Why a room of its own: the faces (CLI, report, page, API) must never word more than is known. A fact is
*given* (case file), *answered* (by the user), *read* (by the machine: a document span and a confidence
below 1), *default* (burden of proof: nobody alleged it), *appreciation* (the judge's), *interpretation*
(a dynamic rule) or *computed* (from others, with the weakest status it rests on). An outcome is
*on the record* (``Knowledge.on_record``, worded « établi ») only when the symbolic analysis decides it from
given and answered facts alone (and the law's defaults, where a person wrote the case file): it is analysed
a second time with every reading and interpretation removed, and if the result changes, the outcome rests on
the readings (« à confirmer »), never « établi ».

``on_record`` was called ``established`` until 2026-11-28: the same word as a pack's outcome (a relation
« établie ») for what is a property of knowledge. The JSON keeps an ``established`` key, equal to
``on_record``, for clients written before (deprecated; read ``on_record``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field, computed_field, model_validator

from lexlogic.logic.facts import Allegation, CaseFile, FactValue, Reading
from lexlogic.logic.grounding import SourceKind
from lexlogic.logic.memos import Memos
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack


class Epistemic(str, Enum):
    """How a statement is known."""

    GIVEN = "given"
    ANSWERED = "answered"
    READ = "read"
    DEFAULT = "default"
    APPRECIATION = "appreciation"
    INTERPRETATION = "interpretation"
    COMPUTED = "computed"
    UNKNOWN = "unknown"


# The strength of a basis: an outcome or a computed value is as strong as the weakest thing it rests on.
STRENGTH = {
    Epistemic.GIVEN: 5,
    Epistemic.ANSWERED: 5,
    Epistemic.DEFAULT: 4,
    Epistemic.READ: 3,
    Epistemic.INTERPRETATION: 2,
    Epistemic.APPRECIATION: 1,
    Epistemic.UNKNOWN: 0,
}
ESTABLISHING = frozenset({Epistemic.GIVEN, Epistemic.ANSWERED, Epistemic.DEFAULT})


class Knowledge(BaseModel):
    """How one fact or outcome is known: its own status, the weakest basis it rests on, and for a reading
    where it was read and with what confidence."""

    status: Epistemic
    basis: Epistemic = Field(description="the weakest status it rests on (its own, for a root fact)")
    on_record: bool = Field(
        description="rests on the record alone (given or answered facts; the law's defaults in a case file a person "
        "wrote): no machine reading, no interpretation — what may be worded « établi »"
    )
    confidence: float | None = Field(default=None, description="a reading's confidence (the reader's)")
    read_in: list[str] = Field(default_factory=new_list, description="where it was read: « document p. N »")
    rests_on: list[str] = Field(default_factory=new_list, description="the facts not on the record it rests on")

    @computed_field(description="deprecated (until 2026-11-28 the name of on_record): equal to on_record")
    def established(self) -> bool:
        return self.on_record

    @model_validator(mode="before")
    @classmethod
    def _from_before_the_rename(cls, data: Any) -> Any:
        """A run stored before the rename carries only ``established``: it is the same knowledge, read back."""
        (old_name,) = cls.model_computed_fields  # the one computed field is the name before the rename
        if isinstance(data, dict) and "on_record" not in data and old_name in data:
            return {**data, "on_record": data[old_name]}
        return data


def weakest(statuses: list[Epistemic]) -> Epistemic:
    known = [s for s in statuses if s is not Epistemic.UNKNOWN]
    return min(known, key=lambda s: STRENGTH[s]) if known else Epistemic.GIVEN


def readings_of(fv: FactValue) -> list[Reading]:
    """A case-file fact's readings (the fact itself, then its alternatives)."""
    return [fv, *fv.alternatives]


def is_reading(fv: FactValue) -> bool:
    """A fact of the case file that a reader (the machine) proposed: a confidence below 1 or several
    readings. A bare value, or one with confidence 1, is given by whoever wrote the case file."""
    readings = readings_of(fv)
    return len(readings) > 1 or any(float(r.confidence) < 1.0 for r in readings)


def places(readings: list[Reading]) -> list[str]:
    """Where readings were found: « document p. N », once per document (first page)."""
    out: dict[str, str] = {}
    for r in readings:
        for g in r.grounding:
            if g.document_id and g.kind is SourceKind.DOCUMENT:
                page = f" p. {g.page}" if g.page is not None else ""
                out.setdefault(g.document_id, g.document_id + page)
    return list(out.values())


def _root_status(pack: RulePack, name: str, info: Any, raw: FactValue | None, answered: bool) -> Epistemic:
    if answered:
        return Epistemic.ANSWERED
    status = str(getattr(info.status, "value", info.status))
    if status == "dynamic":
        return Epistemic.INTERPRETATION
    if status == "defaulted":
        return Epistemic.DEFAULT
    if status == "open":
        return Epistemic.APPRECIATION
    if status == "unknown":
        return Epistemic.UNKNOWN
    if status == "parameter":
        return Epistemic.GIVEN
    if status == "computed":
        return Epistemic.COMPUTED
    if raw is not None and is_reading(raw):
        return Epistemic.READ
    spec = pack.facts.get(name)
    return Epistemic.APPRECIATION if spec is not None and spec.appreciation and raw is None else Epistemic.GIVEN


KNOWN_SIZE = 16


def fact_knowledge(
    pack: RulePack, case: CaseFile, answers: dict[str, Any], values: dict[str, Any], memos: Memos | None = None
) -> dict[str, Knowledge]:
    """Each value of the analysis with how it is known; a computed value takes the weakest basis of the
    facts its formula reads (through its computations), ignoring those still unknown.

    Kept for the same objects (pack, case, the analysis's values, the answered names): a what-if that moves a
    prior shares the case and its memo's analysis, so its table is the one already made (~10 % of a new
    what-if's CPU) — by the owner of ``memos`` (the run, the verdict service; none: computed). The table's
    entries are shared, never mutated (a fresh dict each call)."""
    if memos is None:
        return dict(_fact_knowledge(pack, case, answers, values))
    known = memos.identity("verdict.knowledge", KNOWN_SIZE)
    out = known.get((pack, case, values), tuple(sorted(answers)), lambda: _fact_knowledge(pack, case, answers, values))
    return dict(out)


def _fact_knowledge(
    pack: RulePack, case: CaseFile, answers: dict[str, Any], values: dict[str, Any]
) -> dict[str, Knowledge]:
    from lexlogic.engine.prob.case_model import cone  # the dependency cone of a computed value

    facts = case.facts
    # a default is the law's answer to the parties' silence; in a case file a reader wrote, the silence is
    # the reader's (it found nothing), so what rests on a default is not established either
    establishing = ESTABLISHING - ({Epistemic.DEFAULT} if machine_read(case) else set())
    out: dict[str, Knowledge] = {}
    for name, info in values.items():
        raw = facts.get(name)
        status = _root_status(pack, name, info, raw, name in answers)
        conf = None
        if status is Epistemic.READ:
            assert raw is not None  # a reading is a fact of the case file
            conf = max(float(r.confidence) for r in readings_of(raw))
        out[name] = Knowledge(
            status=status,
            basis=status,
            on_record=status in establishing,
            confidence=conf,
            read_in=places(readings_of(raw)) if status is Epistemic.READ and raw is not None else [],
            rests_on=[] if status in establishing or status is Epistemic.UNKNOWN else [name],
        )
    memo: dict[str, set[str]] = {}
    roots = set(pack.facts)
    for name, k in list(out.items()):
        if k.status is not Epistemic.COMPUTED:
            continue
        deps = sorted(d for d in cone(pack, name, roots, memo) if d in out and out[d].status is not Epistemic.UNKNOWN)
        basis = weakest([out[d].basis for d in deps])
        shaky = [d for d in deps if not out[d].on_record]
        out[name] = k.model_copy(update={"basis": basis, "on_record": not shaky, "rests_on": shaky})
    return out


def machine_read(case: CaseFile) -> bool:
    """Whether a reader wrote (part of) this case file: then a fact it does not hold was not *found*,
    which says nothing of whether anybody alleges it."""
    return any(is_reading(v) for v in case.facts.values())


def without_readings(case: CaseFile, defaulted: dict[str, Any] | None = None) -> CaseFile:
    """The case file with every machine reading removed (what the established facts alone say); the
    ``defaulted`` facts (burden-of-proof defaults, already checked against the pack) are left open —
    contested, so unknown to the logic — when a reader wrote the case file: its silence is not the parties'
    silence."""
    facts = {k: v for k, v in case.facts.items() if not is_reading(v)}
    for name, value in (defaulted or {}).items():
        if name not in facts:
            facts[name] = FactValue(value=value, allegation=Allegation.ALLEGED)
    return case.model_copy(update={"facts": facts})


Analyse = Callable[[dict[str, Any]], dict[str, str] | None]


def outcome_knowledge(
    statuses: dict[str, str],
    open_reasons: dict[str, list[str]],
    record_only: dict[str, str] | None,
    without_interpretation: dict[str, str] | None,
    facts: dict[str, Knowledge],
) -> dict[str, Knowledge]:
    """Each outcome's knowledge, from its status in the full analysis (``statuses``), in the analysis of
    the established facts alone, and without the dynamic interpretations (``None``: the same as full)."""
    shaky = sorted(n for n, k in facts.items() if not k.on_record and k.status is not Epistemic.COMPUTED)
    read = [n for n in shaky if facts[n].status is Epistemic.READ]
    out: dict[str, Knowledge] = {}
    for name, status in statuses.items():
        if status not in ("yes", "no"):
            kind = Epistemic.APPRECIATION if open_reasons.get(name) else Epistemic.UNKNOWN
            out[name] = Knowledge(status=Epistemic.COMPUTED, basis=kind, on_record=False)
        elif record_only is not None and record_only.get(name) == status:
            out[name] = Knowledge(status=Epistemic.COMPUTED, basis=Epistemic.GIVEN, on_record=True)
        elif without_interpretation is None or without_interpretation.get(name) == status:
            out[name] = Knowledge(status=Epistemic.COMPUTED, basis=Epistemic.READ, on_record=False, rests_on=read)
        else:
            out[name] = Knowledge(
                status=Epistemic.COMPUTED, basis=Epistemic.INTERPRETATION, on_record=False, rests_on=shaky
            )
    return out
