"""Tests that explain themselves: for a failing YAML rule test, the proof or the why-not of each outcome
whose status differs from the expected one, and the values and dated parameters that tree rests on; a
test's case as a facts file.

Why: "expected yes, got no" sends the pack author to read the rules by hand; the explanation machinery
(proof, why-not) already knows which premise failed and with which values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexlogic.engine.symbolic.analysis import Analysis
from lexlogic.engine.symbolic.values import ValueInfo, ValueStatus
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.jsonlogic_policy import variables_used
from lexlogic.logic.pack import RulePack
from lexlogic.logic.ruletests import RuleTest


class UnknownTest(LexlogicError):
    """No test (or several) of the pack answers to the id given."""


def explain_failure(pack: RulePack, test: RuleTest, result: Analysis) -> list[str]:
    """Lines to print under a failing test: per outcome whose status is not the expected one, its proof
    (when it wrongly holds) or its why-not (when it wrongly fails), then the values and parameters used."""
    lines: list[str] = []
    used: set[str] = set()
    for atom, want in test.expect.items():
        got = result.outcomes.get(atom)
        if got is None or got.status == want:
            continue
        tree = got.proof
        title = "proof" if tree is not None and tree.holds else "why not"
        lines.append(f"{title} of {atom} (expected {want}, got {got.status}):")
        if tree is not None:
            lines += ["  " + line for line in tree.render(indent=1).splitlines()]
            used |= {n.atom.split("(")[0] for n in tree.walk()}
        if got.missing:
            lines.append(f"  missing: {', '.join(got.missing)}")
        if got.open_reasons:
            lines.append(f"  open (appreciation): {'; '.join(got.open_reasons)}")
    failing_values = [n for n, w in test.values.items() if _value(result.values.get(n)) != w]
    used |= set(failing_values)
    if not used:
        return lines
    names = _closure(pack, used, result.values)
    facts = [n for n in names if n in pack.facts]
    computed = [n for n in names if pack.computation_for(n) is not None]
    params = [n for n in names if n in (pack.parameters or {})]
    for title, group in (("facts", facts), ("computed values", computed), ("parameters", params)):
        if group:
            lines.append(f"{title} used:")
            lines += [f"  {n} = {_show(result.values.get(n))}" for n in sorted(group)]
    return lines


def _closure(pack: RulePack, names: set[str], values: dict[str, ValueInfo]) -> list[str]:
    """The names, and recursively the inputs and parameters of the computations among them."""
    seen: set[str] = set()
    todo = [n for n in names if n in values]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        comp = pack.computation_for(name)
        if comp is not None:
            more = set(comp.inputs) | variables_used(comp.logic) | set(comp.used_parameters)
            todo += [m for m in more if m in values and m not in seen]
    return sorted(seen)


def _value(info: ValueInfo | None) -> Any:
    return info.value if info is not None and info.known else None


def _show(info: ValueInfo | None) -> str:
    if info is None:
        return "(absent)"
    if info.status is ValueStatus.UNKNOWN:
        return "unknown" + (
            f" (missing {', '.join(info.missing)})" if info.missing and info.missing != [info.name] else ""
        )
    if info.status is ValueStatus.OPEN:
        return "open (null with its inputs known: appreciation)"
    note = next((g.note for g in info.grounding if g.note), None) if info.status is ValueStatus.PARAMETER else None
    tail = f" — {note}" if note else f" ({info.status.value})"
    return f"{info.value!r}{tail}"


def find_test(tests: list[RuleTest], test_id: str) -> RuleTest:
    """A test by ``FILE:LINE`` (as ``lexlogic test`` prints it, file by name or path), exact name, or a
    unique part of its name."""
    if ":" in test_id:
        file, _, line = test_id.rpartition(":")
        if line.isdigit():
            hits = [
                t for t in tests if t.line == int(line) and (t.file == file or Path(t.file).name == Path(file).name)
            ]
            if len(hits) == 1:
                return hits[0]
    exact = [t for t in tests if t.name == test_id]
    if len(exact) == 1:
        return exact[0]
    part = [t for t in tests if test_id.lower() in t.name.lower()]
    if len(part) == 1:
        return part[0]
    if not part:
        raise UnknownTest(f"{test_id}: no test of the pack has this id (FILE:LINE) or name")
    names = "; ".join(f"{Path(t.file).name}:{t.line} {t.name}" for t in part[:5])
    raise UnknownTest(f"{test_id}: {len(part)} tests match, give FILE:LINE ({names})")


def case_of_test(pack: RulePack, test: RuleTest) -> dict[str, Any]:
    """The test's case as a facts file (``lexlogic analyze`` reads it); answers are merged as facts."""
    facts = {k: v for k, v in {**test.facts, **test.answers}.items() if v is not None}
    case_id = f"{Path(test.file).stem}-{test.line}"
    return {"pack": pack.name, "case_id": case_id, "facts": facts}
