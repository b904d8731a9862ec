"""The one completion mechanism (engine/symbolic/completions.py) and the supervaluation built on it."""

from __future__ import annotations

import pytest

from lexlogic.engine.symbolic.completions import (
    UNDECIDED,
    CompletionTable,
    TooManyCompletions,
    enumerate_completions,
    supervalue,
)
from lexlogic.engine.symbolic.values import ValueStatus, gather_values
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import parse_case
from tests.support.packs import pack_by_name


def test_every_completion_in_product_order() -> None:
    domains = {"a": [True, False], "b": ["x", "y", "z"]}
    got = enumerate_completions(["a", "b"], domains)
    assert len(got) == 6
    assert got[0] == (("a", True), ("b", "x")) and got[-1] == (("a", False), ("b", "z"))
    assert enumerate_completions([], domains) == [()]
    assert enumerate_completions(["a", "missing"], domains) == []


def test_a_budget_is_a_lexlogic_error_naming_the_roots() -> None:
    with pytest.raises(TooManyCompletions, match="3 open facts .a, b, c. exceed the limit of 2") as err:
        enumerate_completions(["a", "b", "c"], {}, limit=2)
    assert isinstance(err.value, LexlogicError)


def test_each_completion_is_evaluated_once() -> None:
    calls: list[dict[str, bool]] = []
    table = CompletionTable(lambda c: calls.append(dict(c)) or sum(v for _, v in c))
    completions = enumerate_completions(["a", "b"], {"a": [True, False], "b": [True, False]})
    assert [table[c] for c in completions] == [2, 1, 1, 0]
    assert table[(("b", True), ("a", True))] == 2  # the same completion, reordered
    assert table.evaluations == 4 and len(calls) == 4 and len(table) == 4


def test_supervalue_keeps_what_every_completion_agrees_on() -> None:
    completions = enumerate_completions(["a"], {"a": [True, False]})
    worlds = {True: {"same": 3, "differs": 1, "open": UNDECIDED}, False: {"same": 3, "differs": 2, "open": 0}}
    table = CompletionTable(lambda c: worlds[c[0][1]])
    agreed = supervalue(["same", "differs", "open"], completions, table, lambda w, o: w[o])
    assert agreed == {"same": 3}
    assert supervalue(["same"], [], table, lambda w, o: w[o]) == {}


def test_supervaluation_of_the_pack_settles_a_value_whatever_the_open_fact() -> None:
    pack, _ = pack_by_name("rupture_brutale")
    facts = {"relation_start": "2010-01-01", "notification_date": "2024-01-15", "notice_given_months": 0}
    values = gather_values(pack, parse_case({"pack": pack.name, "facts": facts}, pack))
    # no notice given (0 months): written or oral, the effective notice is 0 on both completions
    assert values["notice_written"].status is ValueStatus.UNKNOWN
    effective = values["effective_notice_months"]
    assert "notice_written" in effective.inputs
    assert effective.status is ValueStatus.COMPUTED and effective.value == 0
