"""Structured case facts: the input of `lexlogic analyze` and the output of perception.

A case file is ``{"pack": ..., "case_id": ..., "facts": {NAME: value | FactValue}}``. A fact absent from
the file is UNKNOWN, never false. Values are checked against the pack's vocabulary; every problem is
reported with its JSON path (``$.facts.notice_given_months.value``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import FactSpec, FactType, RulePack


class World(str, Enum):
    """The one narrative enum: SHARED facts hold in every world; NARRATIVE_A is the claimant's reading of the
    contested facts, NARRATIVE_B the defence's."""

    SHARED = "SHARED"
    NARRATIVE_A = "NARRATIVE_A"  # the claimant's story
    NARRATIVE_B = "NARRATIVE_B"  # the defence's story

    @classmethod
    def of_party(cls, party: str) -> World:
        """The narrative a party's submission speaks for (claimant → A, defence → B)."""
        return {"claimant": cls.NARRATIVE_A, "defence": cls.NARRATIVE_B}[party]


class Allegation(str, Enum):
    """Where a fact stands between the parties: nobody asserts it (burden default), one party alleges it
    (contested: unknown for the logic, weighed by its prior), or a piece proves or disproves it."""

    NOT_ALLEGED = "not_alleged"
    ALLEGED = "alleged"
    PROVEN = "proven"
    DISPROVEN = "disproven"


class DatePrecision(str, Enum):
    DAY = "day"
    MONTH = "month"
    YEAR = "year"


class DateInterval(BaseModel):
    """A date known only to the month or the year (« en septembre 2017 », « depuis 2011 »): the interval it
    covers, never silently its first day."""

    model_config = ConfigDict(extra="forbid")
    start: date
    end: date
    precision: DatePrecision = DatePrecision.DAY


class Reading(BaseModel):
    """One reading of an ambiguous fact (one branch of an ambiguity node)."""

    model_config = ConfigDict(extra="forbid")
    value: Any
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    world: World = World.SHARED
    grounding: list[Grounding] = Field(default_factory=new_list)
    note: str | None = None
    allegation: Allegation | None = None  # None: as before (the value is taken as given)
    alleged_by: str | None = None  # the party whose own document asserts it (claimant | defence)
    interval: DateInterval | None = None  # a date value known only to the month or year: value is its middle
    raw_confidence: float | None = Field(default=None, ge=0.0, le=1.0)  # a reader's own score, before calibration


class FactValue(Reading):
    """A fact with its provenance; `alternatives` are the other readings of an ambiguity."""

    alternatives: list[Reading] = Field(default_factory=new_list)
    as_given: bool = False  # a machine reading calibrated above its pack's as-given threshold: the model takes it


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pack: str
    case_id: str = "case"
    facts: dict[str, FactValue] = Field(default_factory=dict)


class CaseFileError(LexlogicError, ValueError):
    """A malformed case file: `path` is a JSON path, `source` the file."""

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.message = message
        super().__init__(f"{source}: {path}: {message}")


_PY_TYPES: dict[FactType, Any] = {
    FactType.BOOL: bool,
    FactType.DATE: date,
    FactType.MONTHS: float,
    FactType.AMOUNT: float,
    FactType.PERCENT: float,
    FactType.INT: int,
    FactType.STR: str,
    FactType.AMOUNTS_BY_YEAR: dict[str, float],
}


def _loc_to_path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


YES = ("oui", "o", "yes", "y", "true", "vrai")
NO = ("non", "n", "no", "false", "faux")


def read_answer(text: str) -> Any:
    """A typed answer as a person writes it: oui/non (and yes/no, vrai/faux), JSON, or the text itself.
    The fact's type is checked afterwards by `check_value`."""
    raw = text.strip()
    low = raw.lower()
    if low in YES:
        return True
    if low in NO:
        return False
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


# Computable ceilings (not law): beyond them money formatting, date arithmetic and the probabilistic model
# leave the range where their results mean anything (1e308 margins overflowed, 30-digit ints broke Decimal).
CEILING: dict[FactType, float] = {
    FactType.AMOUNT: 1e13,
    FactType.AMOUNTS_BY_YEAR: 1e13,
    FactType.MONTHS: 1200.0,
    FactType.INT: 1e9,
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_range(spec: FactSpec, coerced: Any, value: Any) -> None:
    """A number within [0, the fact's maximum or its type's computable ceiling]; a percentage <= 100."""
    if spec.type in (FactType.MONTHS, FactType.AMOUNT, FactType.PERCENT, FactType.INT) and coerced < 0:
        raise ValueError(f"must be >= 0, got {value!r}")
    top = spec.maximum if spec.maximum is not None else CEILING.get(spec.type)
    if top is not None and spec.type is not FactType.AMOUNTS_BY_YEAR and coerced > top:
        raise ValueError(f"must be <= {top:g}, got {_short(value)}")
    if spec.type is FactType.PERCENT and coerced > 100:
        raise ValueError(f"a percentage must be <= 100, got {value!r}")


def _check_years(spec: FactSpec, amounts: dict[str, float]) -> None:
    top = spec.maximum if spec.maximum is not None else CEILING[FactType.AMOUNT]
    for year, amount in amounts.items():
        if not year.isdigit() or len(year) != 4:
            raise ValueError(f"keys must be years like '2021', got {year!r}")
        if amount < 0:
            raise ValueError(f"amount for {year} must be >= 0")
        if amount > top:
            raise ValueError(f"amount for {year} must be <= {top:g}, got {_short(amount)}")


_ADAPTERS: dict[FactType, TypeAdapter[Any]] = {}


def _adapter(t: FactType) -> TypeAdapter[Any]:
    """One validator per fact type (building a pydantic model per value cost ~1 ms: 40 % of parsing a case)."""
    a = _ADAPTERS.get(t)
    if a is None:
        a = _ADAPTERS[t] = TypeAdapter(_PY_TYPES[t])
    return a


def check_value(spec: FactSpec, value: Any) -> Any:
    """Coerce one value to the fact's type (ValueError with a readable message otherwise)."""
    if spec.type is FactType.ENUM:
        if value not in (spec.values or []):
            raise ValueError(f"must be one of {spec.values}, got {value!r}")
        return value
    if spec.type is FactType.BOOL and not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {value!r}")
    try:
        coerced = _adapter(spec.type).validate_python(value)
    except ValidationError as exc:
        raise ValueError(exc.errors()[0]["msg"]) from exc
    if isinstance(coerced, float) and not math.isfinite(coerced):  # "NaN"/"Infinity" strings coerce to these
        raise ValueError(f"must be a finite number, got {value!r}")
    if spec.type is FactType.DATE and not 1800 <= coerced.year <= 2199:  # date arithmetic must stay computable
        raise ValueError(f"date out of range (1800-01-01 to 2199-12-31), got {value!r}")
    _check_range(spec, coerced, value)
    if spec.type is FactType.DATE:
        return coerced.isoformat()
    if spec.type is FactType.AMOUNTS_BY_YEAR:
        _check_years(spec, coerced)
    return coerced


def parse_case(raw: Any, pack: RulePack, source: str = "<case>") -> CaseFile:
    """Validate a decoded case file against the pack; raise CaseFileError with a JSON path."""
    if not isinstance(raw, dict):
        raise CaseFileError(source, "$", "a case file must be a JSON object")
    facts = raw.get("facts")
    if isinstance(facts, dict):  # short form: bare values become FactValue
        raw = {
            **raw,
            "facts": {k: (v if isinstance(v, dict) and "value" in v else {"value": v}) for k, v in facts.items()},
        }
    try:
        case = CaseFile.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise CaseFileError(source, _loc_to_path(err["loc"]), err["msg"]) from exc
    if case.pack != pack.name:
        raise CaseFileError(source, "$.pack", f"case is for pack '{case.pack}', not '{pack.name}'")
    for name, fv in case.facts.items():
        spec = pack.facts.get(name)
        if spec is None:
            raise CaseFileError(source, f"$.facts.{name}", f"unknown fact '{name}' (not declared in the pack's facts)")
        for i, reading in enumerate([fv, *fv.alternatives]):
            where = f"$.facts.{name}.value" if i == 0 else f"$.facts.{name}.alternatives[{i - 1}].value"
            if reading.value is None:
                continue
            try:
                reading.value = check_value(spec, reading.value)
            except ValueError as exc:
                raise CaseFileError(source, where, str(exc)) from exc
    check_date_order(case, pack, source)
    return case


def date_order_violations(values: Mapping[str, Any], pack: RulePack) -> Iterator[tuple[str, str]]:
    """(later, earlier) pairs of known dates out of the order the pack's ``not_before`` sets."""
    for name, value in values.items():
        spec = pack.facts.get(name)
        if spec is None or value is None:
            continue
        for earlier in spec.not_before:
            other = values.get(earlier)
            if other is not None and str(value) < str(other):
                yield name, earlier


def _order_message(values: Mapping[str, Any], name: str, earlier: str) -> str:
    return f"{values[name]} is before {earlier} ({values[earlier]}): '{name}' cannot precede '{earlier}'"


def check_date_order(case: CaseFile, pack: RulePack, source: str = "<case>") -> None:
    """Dates the pack says cannot precede others (``not_before``), when both are known, in that order."""
    values = {name: fv.value for name, fv in case.facts.items()}
    for name, earlier in date_order_violations(values, pack):
        raise CaseFileError(source, f"$.facts.{name}.value", _order_message(values, name, earlier))


def _plain(given: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in given.items()}


def check_merged_date_order(
    case: CaseFile,
    pack: RulePack,
    given: Mapping[str, Any],
    source: str = "answers",
    prefix: str = "$.answers",
    settled: Mapping[str, Any] | None = None,
) -> None:
    """The same order on the case as it will be evaluated: the case file's facts, the answers already
    ``settled`` (saved), then ``given`` (these answers, what-ifs) on top. A pair broken by a given value names
    that value (``prefix.<fact>``); a pair without one was accepted before and is not this input's error."""
    changed = _plain(given)
    values = {name: fv.value for name, fv in case.facts.items()}
    values.update({k: v for k, v in _plain(settled or {}).items() if v is not None})
    values.update({k: v for k, v in changed.items() if v is not None})
    for name, earlier in date_order_violations(values, pack):
        if name in changed or earlier in changed:
            blame = name if name in changed else earlier
            raise CaseFileError(source, f"{prefix}.{blame}", _order_message(values, name, earlier))


def load_case(path: Path | str, pack_lookup: Any) -> tuple[CaseFile, RulePack]:
    """Read a case file; `pack_lookup(name) -> RulePack` resolves its pack."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaseFileError(str(path), "$", f"cannot read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise CaseFileError(str(path), "$", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("pack"), str):
        raise CaseFileError(str(path), "$.pack", "missing pack name")
    pack = pack_lookup(raw["pack"])
    return parse_case(raw, pack, str(path)), pack


def facts_json_schema(pack: RulePack) -> dict[str, Any]:
    """JSON Schema of a case file for this pack (to constrain LLM output or editors)."""
    value_schemas: dict[str, Any] = {}
    for name, spec in pack.facts.items():
        if spec.type is FactType.ENUM:
            vs: dict[str, Any] = {"enum": spec.values}
        elif spec.type is FactType.DATE:
            vs = {"type": "string", "format": "date"}
        elif spec.type is FactType.AMOUNTS_BY_YEAR:
            vs = {
                "type": "object",
                "additionalProperties": {"type": "number", "minimum": 0},
                "propertyNames": {"pattern": "^[0-9]{4}$"},
            }
        elif spec.type is FactType.BOOL:
            vs = {"type": "boolean"}
        elif spec.type is FactType.STR:
            vs = {"type": "string"}
        elif spec.type is FactType.INT:
            vs = {"type": "integer", "minimum": 0}
        else:
            vs = {"type": "number", "minimum": 0}
            if spec.type is FactType.PERCENT:
                vs["maximum"] = 100
        long_form = {
            "type": "object",
            "required": ["value"],
            "properties": {
                "value": vs,
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "world": {"enum": [w.value for w in World]},
                "grounding": {"type": "array", "items": Grounding.model_json_schema()},
                "alternatives": {"type": "array"},
                "allegation": {"enum": [a.value for a in Allegation]},
                "alleged_by": {"type": "string"},
                "interval": DateInterval.model_json_schema(),
            },
        }
        value_schemas[name] = {"description": spec.label, "oneOf": [vs, long_form]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Case facts for pack {pack.name}",
        "type": "object",
        "required": ["pack", "facts"],
        "additionalProperties": False,
        "properties": {
            "pack": {"const": pack.name},
            "case_id": {"type": "string"},
            "facts": {"type": "object", "additionalProperties": False, "properties": value_schemas},
        },
    }
