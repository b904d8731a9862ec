"""Gaps at the JSON-Logic level: a computed value left open (null with every input known) because a
parameter it reads has no value at the case's date — a hole in the parameter's periods — where the same
case, at its own date, gets a value.

Why apart from the clingo audit: that search treats the computed booleans as free, so it cannot see a
computation that yields nothing. This one is not exhaustive, and says so: its witnesses are the pack's own
YAML test cases, each moved in time into every hole of every parameter's periods (all of the case's dates
by the same number of days, so their order and the durations between them are kept). A finding names the
parameter, the first day of the hole, the computation left open (file:line) and the moved case, as a facts
file. An open value the pack means (the judge's appreciation) never comes from a parameter's hole.
"""

from __future__ import annotations

import copy
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.symbolic.values import ValueStatus, gather_values
from lexlogic.engine.workbench.ruletests import pack_tests
from lexlogic.logic.facts import CaseFileError, parse_case
from lexlogic.logic.pack import Computation, FactType, RulePack
from lexlogic.logic.parameters import Parameter


class ValueGap(BaseModel):
    parameter: str
    hole: str = Field(description="a day the parameter has no value at (ISO)")
    computation: str
    where: str = Field(description="the computation's file:line")
    output: str
    witness: str = Field(description="the YAML test whose case, moved to the hole, shows it")
    case: dict[str, Any] = Field(description="the moved case, a facts file")


def holes(p: Parameter) -> list[date]:
    """The first day of each hole in the periods: before the first start, after an end nothing follows."""
    days = {
        d
        for x in p.values
        for d in (x.valid_from and x.valid_from - timedelta(days=1), x.valid_to and x.valid_to + timedelta(days=1))
        if d
    }
    return sorted(d for d in days if p.period_at(d) is None)


def _relative(pack: RulePack, file: str) -> str:
    path = Path(file)
    return str(path.relative_to(pack.root)) if path.is_absolute() and path.is_relative_to(pack.root) else file


def _date_fact(pack: RulePack, p: Parameter) -> str | None:
    versions = pack.manifest.versions
    return p.date_fact or pack.parameters_date_fact or (versions.date_fact if versions else None)


def _moved(pack: RulePack, facts: dict[str, Any], delta: timedelta) -> dict[str, Any]:
    out = copy.deepcopy(facts)
    for name, value in facts.items():
        spec = pack.facts.get(name)
        if spec is not None and spec.type is FactType.DATE and isinstance(value, str):
            out[name] = (date.fromisoformat(value) + delta).isoformat()
    return out


def _values(pack: RulePack, facts: dict[str, Any]) -> dict[str, Any] | None:
    try:
        case = parse_case({"pack": pack.name, "case_id": "value-gap", "facts": facts}, pack)
        return gather_values(pack, case)
    except (CaseFileError, ValueError):
        return None  # a moved case the pack rejects (a date outside a fact's bounds): no witness


def value_gaps(pack: RulePack) -> list[ValueGap]:
    """One finding per (parameter, hole, computation), from the first test case that shows it."""
    readers: dict[str, list[Computation]] = {}
    for c in pack.computations:
        for name in c.used_parameters:
            readers.setdefault(name, []).append(c)
    probes = [
        (name, fact, hole)
        for name, p in (pack.parameters or {}).items()
        if name in readers and (fact := _date_fact(pack, p))
        for hole in holes(p)
    ]
    found: dict[tuple[str, str, str], ValueGap] = {}
    for test in pack_tests(pack) if probes else []:
        before = _values(pack, test.facts)
        moved: dict[tuple[str, date], tuple[dict[str, Any], dict[str, Any] | None]] = {}
        for name, fact, hole in probes:
            todo = [c for c in readers[name] if (name, hole.isoformat(), c.id) not in found]
            day = test.facts.get(fact)
            if before is None or not todo or not isinstance(day, str):
                continue
            if (fact, hole) not in moved:
                facts = _moved(pack, test.facts, hole - date.fromisoformat(day))
                moved[(fact, hole)] = (facts, _values(pack, facts))
            facts, after = moved[(fact, hole)]
            if after is None or name not in after or after[name].status is not ValueStatus.OPEN:
                continue
            for c in todo:
                was, now = before.get(c.output), after.get(c.output)
                # known at the case's own date; at the hole, unknown with no fact to ask for: nobody can fill it
                if was is not None and was.known and now is not None and not now.known and not now.missing:
                    found[(name, hole.isoformat(), c.id)] = ValueGap(
                        parameter=name,
                        hole=hole.isoformat(),
                        computation=c.id,
                        where=f"{_relative(pack, c.file)}:{c.line}",
                        output=c.output,
                        witness=f"{_relative(pack, test.file)}:{test.line}",
                        case={"pack": pack.name, "case_id": f"value-gap-{name}", "facts": facts},
                    )
    return list(found.values())
