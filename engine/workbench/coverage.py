"""What a pack's YAML tests exercise: rules (fired in the case's reference model), computation branches
(each ``if`` arm taken), parameter periods (selected by a case's date) — and what none exercises, at
``file:line``.

Why: a rule no test fires, an ``if`` arm no test takes, a period of a dated parameter no case falls in,
are law that could be wrong without any test noticing (``lexlogic mutate`` measures the same thing by
breaking them). The properties' random cases are not counted: coverage is of the written tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.symbolic.analysis import input_assignment
from lexlogic.engine.symbolic.values import ValueInfo
from lexlogic.engine.workbench.ruletests import run_case
from lexlogic.logic import jsonlogic_policy
from lexlogic.logic.jsonlogic_policy import variables_used
from lexlogic.logic.pack import RulePack
from lexlogic.logic.ruletests import RuleTest

_SCOPED = {"map", "filter", "reduce", "all", "some", "none"}  # their arguments see another data context


class CoverageItem(BaseModel):
    where: str = Field(description="file:line")
    what: str
    hits: int = 0


class Coverage(BaseModel):
    pack: str
    tests: int
    rules: list[CoverageItem]
    branches: list[CoverageItem]
    periods: list[CoverageItem]

    def figures(self) -> dict[str, tuple[int, int]]:
        return {
            name: (sum(1 for i in items if i.hits), len(items))
            for name, items in (("rules", self.rules), ("branches", self.branches), ("periods", self.periods))
        }

    def missed(self) -> list[CoverageItem]:
        return [i for i in [*self.rules, *self.branches, *self.periods] if not i.hits]


# --------------------------------------------------------------------------------------- branches
def if_nodes(logic: Any, path: str = "$") -> list[tuple[str, int]]:
    """Every ``if`` / ``?:`` of a JSON-Logic rule: (path, number of arms, the implicit else included)."""
    out: list[tuple[str, int]] = []
    if isinstance(logic, list):
        for i, x in enumerate(logic):
            out += if_nodes(x, f"{path}[{i}]")
    elif isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        if op in _SCOPED:
            return out
        here = f"{path}.{op}"
        if op in ("if", "?:") and isinstance(args, list):
            out.append((here, len(args) // 2 + 1))
        out += if_nodes(args, here)
    return out


def trace(logic: Any, data: dict[str, Any], taken: set[tuple[str, int]], path: str = "$") -> None:
    """Record the arm each reached ``if`` takes on ``data`` (conditions evaluated as the evaluator does)."""
    if isinstance(logic, list):
        for i, x in enumerate(logic):
            trace(x, data, taken, f"{path}[{i}]")
        return
    if not (isinstance(logic, dict) and len(logic) == 1):
        return
    ((op, args),) = logic.items()
    if op in _SCOPED:
        return
    here = f"{path}.{op}"
    if op not in ("if", "?:") or not isinstance(args, list):
        trace(args, data, taken, here)
        return
    for i in range(0, len(args) - 1, 2):
        trace(args[i], data, taken, f"{here}[{i}]")
        try:
            holds = jsonlogic_policy.evaluate_validated({"!!": [args[i]]}, data)
        except (TypeError, ValueError):
            return  # a condition on an unknown optional input: this evaluation stops here too
        if holds:
            taken.add((here, i // 2))
            trace(args[i + 1], data, taken, f"{here}[{i + 1}]")
            return
    taken.add((here, len(args) // 2))
    if len(args) % 2 == 1:
        trace(args[-1], data, taken, f"{here}[{len(args) - 1}]")


# --------------------------------------------------------------------------------------- one pack
def _period_index(pack: RulePack, name: str, values: dict[str, ValueInfo]) -> int | None:
    p = pack.parameters[name]
    fact = (
        p.date_fact
        or pack.parameters_date_fact
        or (pack.manifest.versions.date_fact if pack.manifest.versions else None)
    )
    period = p.period_at(pack.parameter_date(values, fact))
    return None if period is None else p.values.index(period)


def coverage(pack: RulePack, program: CompiledProgram, tests: list[RuleTest]) -> Coverage:
    """Run every test on the loaded pack and count what each exercises."""
    fired: dict[int, int] = {}
    arms: dict[tuple[str, str, int], int] = {}
    periods: dict[tuple[str, int], int] = {}
    for test in tests:
        try:
            result = run_case(pack.root, test.facts, test.answers, (pack, program))
        except Exception:
            continue
        solution = program.solve(input_assignment(pack, result.values))
        for index in solution.applications:
            fired[index] = fired.get(index, 0) + 1
        for comp in pack.computations:
            if not all(n in result.values and result.values[n].known for n in comp.inputs):
                continue  # not evaluated (a required input unknown): no arm taken
            deps = set(comp.inputs) | variables_used(comp.logic)
            data = {n: result.values[n].value for n in deps if n in result.values and result.values[n].known}
            taken: set[tuple[str, int]] = set()
            trace(comp.logic, data, taken)
            for path, arm in taken:
                arms[(comp.id, path, arm)] = arms.get((comp.id, path, arm), 0) + 1
        for name in pack.parameters or {}:
            k = _period_index(pack, name, result.values)
            if k is not None:
                periods[(name, k)] = periods.get((name, k), 0) + 1
    return Coverage(
        pack=pack.name,
        tests=len(tests),
        rules=[
            CoverageItem(
                where=f"{Path(r.file).name}:{r.line}", what=r.rule_id if r.meta else r.text, hits=fired.get(r.index, 0)
            )
            for r in program.rules
            if not r.is_constraint
        ],
        branches=[
            CoverageItem(
                where=f"{Path(c.file).name}:{c.line}",
                what=f"{c.id} {path} arm {arm + 1}/{n}" + (" (else)" if arm == n - 1 else ""),
                hits=arms.get((c.id, path, arm), 0),
            )
            for c in pack.computations
            for path, n in if_nodes(c.logic)
            for arm in range(n)
        ],
        periods=[
            CoverageItem(
                where=f"{Path(p.file).name}:{period.line or p.line}",
                what=f"{name} {period.valid_from or '…'} → {period.valid_to or '…'} = {period.value}",
                hits=periods.get((name, k), 0),
            )
            for name, p in (pack.parameters or {}).items()
            for k, period in enumerate(p.values)
        ],
    )


def render(report: Coverage) -> list[str]:
    lines = [f"coverage of {report.pack} by its {report.tests} tests:"]
    for name, (hit, total) in report.figures().items():
        pct = 100.0 * hit / total if total else 100.0
        lines.append(f"  {name}: {hit}/{total} ({pct:.0f} %)")
    missed = report.missed()
    if missed:
        lines.append("  exercised by no test:")
        lines += [f"    {i.where}: {i.what}" for i in missed]
    return lines
