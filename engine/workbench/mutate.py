"""Mutation testing of a pack: break one thing at a time (negate or drop a body literal, swap a comparison
or an enum constant, move a parameter's value or a period's boundary, swap a computation's comparison)
and see whether the pack's tests (and, optionally, its properties) notice. Survivors are law no test
pins down, reported at ``file:line``.

Everything runs in memory on copies of the loaded pack (no file is written). An ASP mutant is first
checked cheaply: the tests' input assignments are computed once (an ASP mutant cannot change them) and
each expected status is read off the mutant's answer sets; only mutants that pass this go through the
full test runner (proofs, missing facts, values) and then the properties.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from lexlogic.bridges.clingo_bridge import CompiledProgram, SolveError
from lexlogic.bridges.clingo_mutate import asp_mutants
from lexlogic.engine.packs.library import compile_loaded
from lexlogic.engine.symbolic.analysis import input_assignment
from lexlogic.engine.symbolic.values import ValueInfo, gather_values
from lexlogic.engine.workbench.ruletests import PropertyViolation, check_property, check_test
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import parse_case
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.ruletests import PropertySpec, RuleTest

Status = Literal["killed", "survived", "invalid"]
_SWAP_OPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "date_before": "date_on_or_after",
    "date_on_or_after": "date_before",
}


@dataclass(frozen=True)
class Mutant:
    kind: Literal["asp", "computation", "parameter"]
    operator: str
    where: str  # file:line
    description: str
    apply: Callable[[RulePack], None]  # mutates a deep copy of the pack in place


class MutantResult(BaseModel):
    kind: str
    operator: str
    where: str
    description: str
    status: Status
    killed_by: str | None = None


class MutationReport(BaseModel):
    pack: str
    results: list[MutantResult]
    seconds: float
    properties: bool
    complete: bool = True

    @property
    def score(self) -> float:
        judged = [r for r in self.results if r.status != "invalid"]
        return sum(r.status == "killed" for r in judged) / len(judged) if judged else 1.0

    def counts(self) -> dict[str, int]:
        out = {"killed": 0, "survived": 0, "invalid": 0}
        for r in self.results:
            out[r.status] += 1
        return out


# --------------------------------------------------------------------------------------- mutants
def mutants(pack: RulePack) -> list[Mutant]:
    enums = {n: list(f.values or []) for n, f in pack.facts.items() if f.type is FactType.ENUM}
    out: list[Mutant] = []
    for rel, text in pack.asp_sources.items():
        for m in asp_mutants(text, enums):

            def apply(p: RulePack, rel: str = rel, new: str = m.text) -> None:
                p.asp_sources[rel] = new

            out.append(Mutant("asp", m.operator, f"{rel}:{m.line}", m.description, apply))
    for i, comp in enumerate(pack.computations):
        for path, op in _ops(comp.logic):
            where = f"{Path(comp.file).name}:{comp.line}"

            def apply_c(p: RulePack, i: int = i, path: tuple[Any, ...] = path, op: str = op) -> None:
                p.computations[i].logic = _swap_at(p.computations[i].logic, path, _SWAP_OPS[op])

            out.append(Mutant("computation", "swap_comparison", where, f"{comp.id}: {op} → {_SWAP_OPS[op]}", apply_c))
    for name, param in (pack.parameters or {}).items():
        out += _parameter_mutants(name, param)
    return out


def _ops(logic: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    out: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(logic, list):
        for i, x in enumerate(logic):
            out += _ops(x, (*path, i))
    elif isinstance(logic, dict) and len(logic) == 1:
        ((op, args),) = logic.items()
        if op in _SWAP_OPS:
            out.append((path, op))
        out += _ops(args, (*path, op))
    return out


def _swap_at(logic: Any, path: tuple[Any, ...], new_op: str) -> Any:
    logic = copy.deepcopy(logic)
    node = logic
    for step in path:
        node = node[step]
    ((op, args),) = node.items()
    del node[op]
    node[new_op] = args
    return logic


def _parameter_mutants(name: str, param: Any) -> list[Mutant]:
    out: list[Mutant] = []
    where_file = Path(param.file).name if param.file else "parameters.yaml"
    for k, period in enumerate(param.values):
        where = f"{where_file}:{period.line or param.line}"
        value = period.value
        if isinstance(value, date):
            moved: Any = value + timedelta(days=365)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            moved = value * 3 // 2 if value > 1 else value + 1
        else:
            moved = round(value * 1.5, 4) if value else 1.0

        def apply_v(p: RulePack, k: int = k, moved: Any = moved) -> None:
            p.parameters[name].values[k].value = moved

        out.append(Mutant("parameter", "move_value", where, f"{name}[{k}]: {value} → {moved}", apply_v))
        previous = param.values[k - 1] if k > 0 else None
        if period.valid_from is not None and (previous is None or previous.value != period.value):
            # (between two periods of one value, moving the boundary changes no value: an equivalent mutant)
            earlier = period.valid_from - timedelta(days=365)

            def apply_b(p: RulePack, k: int = k, earlier: date = earlier) -> None:
                periods = p.parameters[name].values
                periods[k].valid_from = earlier
                before = periods[k - 1].valid_to if k > 0 else None
                if before is not None and before >= earlier:
                    periods[k - 1].valid_to = earlier - timedelta(days=1)

            out.append(
                Mutant(
                    "parameter", "move_boundary", where, f"{name}[{k}]: from {period.valid_from} → {earlier}", apply_b
                )
            )
    return out


# --------------------------------------------------------------------------------------- running
class _Cases:
    """The tests' input assignments on the original pack (valid for every ASP mutant), and the order tests
    are tried in: a test that killed a mutant is tried first on the next ones (most mutants of one rule
    are killed by the same test)."""

    def __init__(self, pack: RulePack, tests: list[RuleTest]) -> None:
        self.order = list(range(len(tests)))
        self.assignments: list[dict[str, bool | None] | None] = []
        for t in tests:
            try:
                self.assignments.append(input_assignment(pack, _values(pack, t)))
            except LexlogicError:
                self.assignments.append(None)

    def killed_by(self, index: int) -> None:
        self.order.remove(index)
        self.order.insert(0, index)


def _values(pack: RulePack, test: RuleTest) -> dict[str, ValueInfo]:
    case = parse_case({"pack": pack.name, "case_id": "mutant", "facts": test.facts}, pack)
    return gather_values(pack, case, test.answers)


def _value_failure(test: RuleTest, values: dict[str, ValueInfo]) -> str | None:
    """The first expected value the mutant misses (the comparison of ``check_test``)."""
    for name, want in test.values.items():
        info = values.get(name)
        got = info.value if info and info.known else None
        if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got, (int, float)):
            if not math.isclose(float(got), float(want), abs_tol=1e-6):
                return f"value {name}: {got}"
        elif got != want:
            return f"value {name}: {got!r}"
    return None


def _status_failure(test: RuleTest, program: CompiledProgram, assignment: dict[str, bool | None]) -> str | None:
    """The first expected ASP status the mutant's answer sets contradict."""
    solution = program.solve(assignment)
    if not solution.satisfiable:
        return "no answer set"
    for atom, want in test.expect.items():
        if (atom, 0) not in program.defined:
            continue
        truth = solution.status(atom)
        got = "yes" if truth else "no" if truth is False else "unknown"
        if got != want:
            return f"{atom}: {got}"
    for atom in test.absent:
        if (atom, 0) in program.defined and solution.status(atom) is not False:
            return f"{atom} not absent"
    return None


def _quick_kill(
    mutant: RulePack, program: CompiledProgram, tests: list[RuleTest], cases: _Cases, same_values: bool
) -> str | None:
    """The first test whose expected values or ASP statuses the mutant contradicts (a subset of what
    ``check_test`` compares, so a quick kill is a real one). ``same_values``: an ASP mutant, whose values
    and input assignments are the original pack's."""
    for i in list(cases.order):
        t = tests[i]
        try:
            if same_values:
                assignment = cases.assignments[i]
                failure = None
            else:
                values = _values(mutant, t)
                failure = _value_failure(t, values)
                assignment = input_assignment(mutant, values)
        except Exception as exc:  # like check_test: a mutant that makes a test raise is killed
            failure, assignment = f"error: {type(exc).__name__}: {exc}", None
        if failure is None and assignment is not None:
            failure = _status_failure(t, program, assignment)
        if failure is not None:
            cases.killed_by(i)
            return f"{Path(t.file).name}:{t.line} {t.name} ({failure})"
    return None


def _judge(
    pack: RulePack,
    mutant: Mutant,
    tests: list[RuleTest],
    props: list[PropertySpec],
    cases: _Cases,
    max_examples: int,
) -> MutantResult:
    base = {"kind": mutant.kind, "operator": mutant.operator, "where": mutant.where, "description": mutant.description}
    copy_ = pack.model_copy(deep=True)
    try:
        mutant.apply(copy_)
        program = compile_loaded(copy_)
        program.grounding()
    except (LexlogicError, SolveError, ValueError) as exc:
        return MutantResult(**base, status="invalid", killed_by=str(exc)[:200])
    quick = _quick_kill(copy_, program, tests, cases, same_values=mutant.kind == "asp")
    if quick:
        return MutantResult(**base, status="killed", killed_by=quick)
    for i in list(cases.order):
        t = tests[i]
        outcome = check_test(pack.root, t, (copy_, program))
        if not outcome.passed:
            cases.killed_by(i)
            return MutantResult(**base, status="killed", killed_by=f"{Path(t.file).name}:{t.line} {t.name}")
    for spec in props:
        try:
            check_property(pack.root, spec, min(max_examples, spec.max_examples), (copy_, program))
        except PropertyViolation:
            return MutantResult(**base, status="killed", killed_by=f"property {spec.id}")
        except LexlogicError:
            return MutantResult(**base, status="killed", killed_by=f"property {spec.id} (error)")
    return MutantResult(**base, status="survived")


def mutate(
    pack: RulePack,
    tests: list[RuleTest],
    props: list[PropertySpec] | None = None,
    *,
    max_examples: int = 30,
    time_limit_s: float | None = None,
    progress: Callable[[int, int, MutantResult], None] | None = None,
    only: Callable[[Mutant], bool] | None = None,
) -> MutationReport:
    """Judge every mutant of the pack (those ``only`` keeps) against its tests (and properties, when given)."""
    start = time.monotonic()
    cases = _Cases(pack, tests)
    all_mutants = [m for m in mutants(pack) if only is None or only(m)]
    results: list[MutantResult] = []
    complete = True
    for n, m in enumerate(all_mutants, start=1):
        if time_limit_s is not None and time.monotonic() - start > time_limit_s:
            complete = False
            break
        result = _judge(pack, m, tests, props or [], cases, max_examples)
        results.append(result)
        if progress:
            progress(n, len(all_mutants), result)
    return MutationReport(
        pack=pack.name,
        results=results,
        seconds=round(time.monotonic() - start, 1),
        properties=bool(props),
        complete=complete,
    )


def render(report: MutationReport) -> list[str]:
    c = report.counts()
    judged = c["killed"] + c["survived"]
    lines = [
        f"mutation score of {report.pack}: {100 * report.score:.1f} % ({c['killed']} killed of {judged}; "
        f"{c['invalid']} invalid mutants not counted; tests{' and properties' if report.properties else ''}; "
        f"{report.seconds} s)" + ("" if report.complete else " — INCOMPLETE: time limit reached"),
    ]
    survivors = [r for r in report.results if r.status == "survived"]
    if survivors:
        lines.append("  survivors (no test notices these changes):")
        lines += [f"    {r.where}: [{r.operator}] {r.description}" for r in survivors]
    return lines
