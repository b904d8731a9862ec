"""The policy itself, in process: compile-time refusals, run-time guards, frozen input, date helpers,
and the declared-output schema language."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexlogic.logic.calendar import CalendarError
from lexlogic.sandbox.helpers import (
    add_days,
    add_months,
    days_between,
    months_between,
    parse_date,
    whole_months_between,
    years_between,
)
from lexlogic.sandbox.policy import (
    ALLOWED_BUILTIN_NAMES,
    FrozenDict,
    FrozenList,
    RuleRefused,
    RunContext,
    SandboxViolation,
    compile_rule,
    freeze,
    make_globals,
)
from lexlogic.sandbox.schema import OutputInvalid, SchemaError, build_output_adapter, validate_output

VALID = """
def rule(facts):
    months = whole_months_between(facts["relation_start"], facts["notification_date"])
    notice = max(3, min(18, months // 12))
    flags = [x.lower() for x in facts.get("flags", [])]
    total = 0
    for i, v in enumerate(sorted(facts["amounts"])):
        total += v * (i + 1)
    return {"notice": notice, "ok": all(isinstance(a, int) for a in facts["amounts"]), "flags": flags,
            "total": total, "any": any(flags), "label": "%s mois" % notice, "when": add_months(facts["notification_date"], notice)}
"""


def test_a_typical_rule_compiles() -> None:
    assert compile_rule(VALID, "valid.py") is not None


def test_refusals_name_every_line() -> None:
    source = "import os\n\ndef rule(facts):\n    x = facts.__class__\n    return getattr(x, 'y')\n"
    with pytest.raises(RuleRefused) as info:
        compile_rule(source, "bad.py")
    lines = sorted(p.line for p in info.value.problems)
    assert lines == [1, 4, 5]
    text = str(info.value)
    assert "imports are not allowed" in text and '"getattr" is not available' in text and '"__class__"' in text


def test_builtins_are_exactly_the_curated_set() -> None:
    for needed in (
        "sum",
        "min",
        "max",
        "any",
        "all",
        "enumerate",
        "sorted",
        "len",
        "range",
        "abs",
        "round",
        "months_between",
        "parse_date",
        "add_months",
        "days_between",
    ):
        assert needed in ALLOWED_BUILTIN_NAMES
    for absent in (
        "open",
        "getattr",
        "vars",
        "globals",
        "type",
        "__import__",
        "eval",
        "exec",
        "compile",
        "object",
        "format",
        "print",
        "input",
        "setattr",
        "iter",
        "next",
        "memoryview",
        "bytes",
    ):
        assert absent not in ALLOWED_BUILTIN_NAMES
    g = make_globals(RunContext())
    assert set(g["__builtins__"]) == set(ALLOWED_BUILTIN_NAMES)
    assert make_globals(RunContext())["__builtins__"] is not g["__builtins__"]  # fresh per run


def test_runtime_guards_hold_even_if_compile_time_checks_were_bypassed() -> None:
    ctx = RunContext()
    g = make_globals(ctx)
    getattr_, write, getitem = g["_getattr_"], g["_write_"], g["_getitem_"]
    assert getattr_("a,b", "split")(",") == ["a", "b"]
    for obj, name in [
        ("x", "format"),
        ("x", "format_map"),
        ((), "__class__"),
        (len, "__self__"),
        ((i for i in ()), "gi_frame"),
        (date(2020, 1, 1), "today"),
        (date, "today"),
        (str, "join"),
    ]:
        with pytest.raises(SandboxViolation):
            getattr_(obj, name)
    with pytest.raises(SandboxViolation):
        write(len)
    with pytest.raises(SandboxViolation):
        getitem(len, 0)
    assert len(ctx.violations) == 10


def test_frozen_input_refuses_every_mutation_and_records_reads() -> None:
    reads: set = set()
    facts = freeze({"a": 1, "xs": [1, 2], "d": {"k": [3]}}, reads)
    assert isinstance(facts, FrozenDict) and isinstance(facts["xs"], FrozenList)
    attempts = [
        lambda: facts.__setitem__("a", 2),
        lambda: facts.update(a=2),
        lambda: facts.pop("a"),
        lambda: facts.setdefault("z", 1),
        lambda: facts.clear(),
        lambda: facts.popitem(),
        lambda: facts["xs"].append(3),
        lambda: facts["xs"].__setitem__(0, 9),
        lambda: facts["xs"].sort(),
        lambda: facts["d"]["k"].extend([1]),
        lambda: facts["d"].__delitem__("k"),
    ]
    for attempt in attempts:
        with pytest.raises(SandboxViolation, match="read-only"):
            attempt()
    assert reads == {"xs", "d"}
    assert facts == {"a": 1, "xs": [1, 2], "d": {"k": [3]}}
    assert reads == {"a", "xs", "d"}  # comparing the whole input reads all of it (provenance)
    copy = facts.copy()
    copy["a"] = 5  # the rule's own copy is an ordinary dict
    assert facts["a"] == 1 and facts["xs"] + [3] == [1, 2, 3]


# ------------------------------------------------------------------------------- date helpers


def test_months_between_counts_whole_calendar_months() -> None:
    assert whole_months_between("2021-01-31", "2021-02-28") == 1
    assert whole_months_between("2021-01-31", "2021-02-27") == 0
    assert whole_months_between("2015-01-31", "2020-02-29") == 61
    assert whole_months_between("2020-06-15", "2020-01-15") == -5
    # the one fractional definition (lexlogic.logic.calendar): whole months, then days over the next month
    assert months_between("2021-01-31", "2021-02-28") == 1
    assert months_between("2021-01-31", "2021-02-27") == round(27 / 28, 4)
    assert months_between("2015-01-31", "2020-02-29") == 61
    assert months_between("2020-06-15", "2020-01-15") == -5
    assert months_between("2024-01-15", "2024-04-14") == 2.9677
    assert years_between("2012-03-01", "2021-02-28") == 8
    assert add_months("2020-01-31", 1) == date(2020, 2, 29)
    assert add_months(date(2020, 3, 31), -1) == date(2020, 2, 29)
    assert add_days("2020-12-31", 1) == date(2021, 1, 1)
    assert days_between("2020-01-01", "2021-01-01") == 366
    assert parse_date("2021-06-15T10:00:00+02:00") == date(2021, 6, 15)


def test_parse_date_says_what_is_wrong() -> None:
    with pytest.raises(CalendarError, match="not an ISO date: '15/06/2021'"):
        parse_date("15/06/2021")
    with pytest.raises(CalendarError, match="got int"):
        parse_date(20210615)


@settings(max_examples=150, deadline=None)
@given(st.dates(min_value=date(1950, 1, 1), max_value=date(2080, 1, 1)), st.integers(0, 20000))
def test_months_between_brackets_the_end_date(start: date, days: int) -> None:
    end = start + timedelta(days=days)
    m = whole_months_between(start, end)
    assert m >= 0
    assert add_months(start, m) <= end < add_months(start, m + 1)
    assert m <= months_between(start, end) < m + 1


# ------------------------------------------------------------------------------- output schema


def test_schema_language_builds_strict_models() -> None:
    adapter = build_output_adapter(
        {
            "eligible": "bool",
            "months": "int",
            "rate": "number",
            "when": "date?",
            "tags": "list[str]",
            "by_year": "dict[float]",
            "nested": {"x": ["int"]},
        }
    )
    good = b'{"eligible":true,"months":3,"rate":1,"tags":["a"],"by_year":{"2020":1.5},"nested":{"x":[1]}}'
    out = validate_output(adapter, good)
    assert out["when"] is None and out["rate"] == 1.0
    with pytest.raises(OutputInvalid) as info:
        validate_output(adapter, b'{"eligible":1,"months":"3","rate":1,"tags":[],"by_year":{},"nested":{"x":[]}}')
    paths = {e["path"] for e in info.value.errors}
    assert paths == {"$.eligible", "$.months"}
    assert validate_output(build_output_adapter(None), b'[1, {"a": null}]') == [1, {"a": None}]
    assert validate_output(build_output_adapter("bool?"), b"null") is None


@pytest.mark.parametrize("spec", ["boolean!", "list[]", ["int", "str"], {"1bad": "int"}, {"x": "tuple"}, 3])
def test_malformed_schemas_are_rejected(spec: object) -> None:
    with pytest.raises(SchemaError):
        build_output_adapter(spec)
