"""Running a pack's YAML rule tests and its hypothesis-checked properties."""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import load_folder
from lexlogic.engine.symbolic.analysis import Analysis, analyse
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import parse_case
from lexlogic.logic.memos import Memos, own
from lexlogic.logic.pack import FactType, PackError, RulePack
from lexlogic.logic.ruletests import PropertySpec, RuleTest, load_properties, load_tests

# A pack author runs `lexlogic test` from anywhere: hypothesis must not leave a .hypothesis/ folder there
# (the properties run with database=None; the folder is hypothesis's own home).
set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "lexlogic-hypothesis"))


@dataclass
class TestOutcome:
    test: RuleTest
    failures: list[str]
    result: Analysis | None = None  # the analysis the test ran (None when it raised): for explanations

    @property
    def passed(self) -> bool:
        return not self.failures


Loaded = tuple[RulePack, CompiledProgram]


def _loaded(pack_root: Path) -> Loaded:
    found = load_folder(pack_root)
    return found.pack, found.program


def run_case(
    pack_root: Path,
    facts: dict[str, Any],
    answers: dict[str, Any] | None = None,
    loaded: Loaded | None = None,
    memos: Memos | None = None,
) -> Analysis:
    """``loaded``: the pack and its program when they are not the files under ``pack_root`` (a mutant).
    ``memos``: the caller's owner's memoised computations (a test session, a property's examples)."""
    pack, program = loaded or _loaded(pack_root)
    case = parse_case({"pack": pack.name, "case_id": "test", "facts": facts}, pack)
    return analyse(pack, program, case, answers, memos=memos)


def check_test(
    pack_root: Path, test: RuleTest, loaded: Loaded | None = None, memos: Memos | None = None
) -> TestOutcome:
    failures: list[str] = []
    try:
        result = run_case(pack_root, test.facts, test.answers, loaded, memos)
    except Exception as exc:
        return TestOutcome(test, [f"error: {exc}"])
    for atom, want in test.expect.items():
        got = result.outcomes.get(atom)
        if got is None:
            failures.append(f"{atom}: no such outcome")
        elif got.status != want:
            failures.append(
                f"{atom}: expected {want}, got {got.status}" + (f" (missing {got.missing})" if got.missing else "")
            )
    for atom in test.absent:
        got = result.outcomes.get(atom)
        if got is not None and got.status != "no":
            failures.append(f"{atom}: expected absent (no), got {got.status}")
    for name, want in test.values.items():
        info = result.values.get(name)
        got_v = info.value if info and info.known else None
        if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got_v, (int, float)):
            if not math.isclose(float(got_v), float(want), abs_tol=1e-6):
                failures.append(f"value {name}: expected {want}, got {got_v}")
        elif got_v != want:
            failures.append(f"value {name}: expected {want!r}, got {got_v!r}")
    if test.damages is not None:
        remedy = (loaded or _loaded(pack_root))[0].manifest.remedy
        got_d = result.outcomes[remedy.outcome].value if remedy else None
        if got_d is None or any(not math.isclose(a, b, abs_tol=0.01) for a, b in zip(got_d, test.damages)):
            failures.append(f"damages: expected {test.damages}, got {got_d}")
    for atom, names in test.missing.items():
        got_m = result.outcomes[atom].missing if atom in result.outcomes else []
        lacking = [n for n in names if n not in got_m]
        if lacking:
            failures.append(f"{atom}: should name missing {lacking}, names {got_m}")
    for atom, rule_id in test.rule_in_proof.items():
        proof = result.outcomes[atom].proof if atom in result.outcomes else None
        if proof is None or rule_id not in proof.rule_ids():
            failures.append(f"{atom}: rule {rule_id} not in its proof ({sorted(proof.rule_ids()) if proof else []})")
    return TestOutcome(test, failures, result)


def pack_tests(pack: RulePack) -> list[RuleTest]:
    folder = pack.root / pack.manifest.files.tests
    tests: list[RuleTest] = []
    for path in sorted(folder.glob("*.yaml")):
        tests.extend(load_tests(path))
    return tests


def pack_properties(pack: RulePack) -> list[PropertySpec]:
    if not pack.manifest.files.properties:
        return []
    path = pack.root / pack.manifest.files.properties
    if not path.exists():
        raise PackError(path, None, "declared properties file does not exist")
    return load_properties(path, pack.parameters)


# ------------------------------------------------------------------------------------- properties
_ORDER = {"no": 0, "unknown": 1, "yes": 2}
_EPOCH = date(2005, 1, 1)


def _strategy(pack: RulePack, name: str, constraint: Any) -> st.SearchStrategy[Any]:
    spec = pack.facts[name]
    lo = hi = None
    if isinstance(constraint, dict):
        lo, hi = constraint.get("min"), constraint.get("max")
    elif constraint is not None:
        return st.just(constraint)
    t = spec.type
    if t is FactType.BOOL:
        return st.booleans()
    if t is FactType.ENUM:
        return st.sampled_from(spec.values or [])
    if t is FactType.DATE:
        start = date.fromisoformat(str(lo)) if lo else _EPOCH
        end = date.fromisoformat(str(hi)) if hi else date(2026, 12, 31)
        return st.integers(0, (end - start).days).map(lambda d: (start + timedelta(days=d)).isoformat())
    if t is FactType.INT:
        return st.integers(int(lo or 0), int(hi if hi is not None else 2000))
    if t is FactType.MONTHS:
        return st.integers(int(2 * (lo or 0)), int(2 * (hi if hi is not None else 48))).map(lambda x: x / 2)
    if t is FactType.PERCENT:
        return st.integers(int(lo or 0), int(hi if hi is not None else 100)).map(float)
    if t is FactType.AMOUNT:
        return st.integers(int(lo or 0), int(hi if hi is not None else 10**7)).map(float)
    if t is FactType.AMOUNTS_BY_YEAR:
        return st.lists(st.integers(0, 2_000_000), min_size=1, max_size=3).map(
            lambda xs: {str(2021 + i): float(x) for i, x in enumerate(xs)}
        )
    return st.text(min_size=1, max_size=8)


def facts_strategy(pack: RulePack, when: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Random cases: every fact present or absent (unknown), `when` facts fixed or bounded."""
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for name in pack.facts:
        base = _strategy(pack, name, when.get(name))
        parts[name] = base if name in when else st.one_of(st.none(), base)
    fixed = set(when)
    return st.fixed_dictionaries(parts).map(
        lambda d: _in_order(pack, {k: v for k, v in d.items() if v is not None}, fixed)
    )


def _ordered(pack: RulePack, facts: dict[str, Any]) -> bool:
    """No date of ``facts`` precedes one the pack says it cannot precede (``not_before``)."""
    return not any(
        isinstance(facts.get(name), str) and isinstance(facts.get(e), str) and facts[name] < facts[e]
        for name in facts
        for e in pack.facts[name].not_before
    )


def _in_order(pack: RulePack, facts: dict[str, Any], fixed: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """A random case made valid for the pack's date order (``not_before``), never touching the ``fixed``
    facts (a property's ``when``): of two dates out of order, a free earlier one is left unknown, else a
    free later one is moved up to it (repeated until stable: orders chain)."""
    for _ in range(len(pack.facts)):
        moved = False
        for name in list(facts):
            for earlier in pack.facts[name].not_before:
                value, floor = facts.get(name), facts.get(earlier)
                if not (isinstance(value, str) and isinstance(floor, str) and value < floor):
                    continue
                if earlier not in fixed:
                    del facts[earlier]
                elif name not in fixed:
                    facts[name] = floor
                else:
                    continue
                moved = True
        if not moved:
            break
    return facts


class PropertyViolation(LexlogicError, AssertionError):
    def __init__(self, spec: PropertySpec, message: str, facts: dict[str, Any], pack: str) -> None:
        self.facts = facts
        case = json.dumps(
            {"pack": pack, "case_id": f"counterexample-{spec.id}", "facts": facts},
            ensure_ascii=False,
            indent=2,
            sort_keys=True,
        )
        super().__init__(
            f"{spec.file}:{spec.line}: property {spec.id} violated: {message}\n"
            f"minimal counterexample (facts file):\n{case}"
        )


def check_property(
    pack_root: Path,
    spec: PropertySpec,
    max_examples: int | None = None,
    loaded: Loaded | None = None,
    derandomize: bool = False,
    memos: Memos | None = None,
) -> None:
    """Raise PropertyViolation with a shrunk counterexample, or return (``memos``: the caller's; none, the
    property's own, shared by its examples).

    `derandomize` draws the same examples on every run: CI's verdict then changes only when the rules do;
    `lexlogic test` explores fresh random cases each time (raise --max-examples to search harder).
    """
    pack, _ = loaded or _loaded(pack_root)
    memos = own(memos)
    drawing = settings(
        max_examples=max_examples or spec.max_examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )

    def watched(result: Analysis) -> Any:
        w = spec.watch or ""
        if w in result.outcomes:
            o = result.outcomes[w]
            if o.value is not None and w == result.remedy:  # a remedy range: watch its high end
                return o.value[1]
            return _ORDER[o.status]
        info = result.values.get(w)
        return info.value if info and info.known else None

    if spec.kind == "implies":

        @drawing
        @given(facts_strategy(pack, spec.when))
        def prop(facts: dict[str, Any]) -> None:
            result = run_case(pack_root, facts, None, loaded, memos)
            for atom, allowed in spec.then.items():
                got = result.outcomes[atom].status
                if got not in allowed:
                    raise PropertyViolation(spec, f"{atom} is {got}, allowed {allowed}", facts, pack.name)
    elif spec.kind == "bounds":

        @drawing
        @given(facts_strategy(pack, spec.when))
        def prop(facts: dict[str, Any]) -> None:
            info = run_case(pack_root, facts, None, loaded, memos).values.get(spec.watch or "")
            if info is None or not info.known:
                return
            value = float(info.value)
            if (spec.min is not None and value < spec.min - 1e-9) or (spec.max is not None and value > spec.max + 1e-9):
                raise PropertyViolation(
                    spec, f"{spec.watch} = {value} outside [{spec.min}, {spec.max}]", facts, pack.name
                )
    else:
        vary = spec.vary or ""

        @drawing
        @given(facts_strategy(pack, {**spec.when, vary: spec.when.get(vary, {})}), _strategy(pack, vary, None))
        def prop(facts: dict[str, Any], other: Any) -> None:
            a, b = sorted([facts[vary], other])
            # both cases must be valid for the pack's date order: a varied date moved out of order is skipped
            assume(all(_ordered(pack, {**facts, vary: x}) for x in (a, b)))
            r1 = watched(run_case(pack_root, {**facts, vary: a}, None, loaded, memos))
            r2 = watched(run_case(pack_root, {**facts, vary: b}, None, loaded, memos))
            if r1 is None or r2 is None:
                return
            bad = r2 < r1 - 1e-9 if spec.direction == "non_decreasing" else r2 > r1 + 1e-9
            if bad:
                raise PropertyViolation(
                    spec,
                    f"{spec.watch} went from {r1} to {r2} when {vary} rose from {a} to {b}",
                    {**facts, vary: a},
                    pack.name,
                )

    prop()
