"""``evaluate_validated`` reads exactly what a rule names (issue 33 measured the whole-case deep copy it once
made): rules that read the data by computed names (`missing`, a non-literal `var`) still see all of it."""

from __future__ import annotations

from lexlogic.logic import jsonlogic_policy as j

DATA = {"a": 1, "b": 2, "c": 3}


def test_static_vars_read_the_same_values() -> None:
    assert j.evaluate_validated({"+": [{"var": "a"}, {"var": ["b", 0]}]}, DATA) == 3
    assert j.evaluate_validated({"var": ["zzz", 7]}, DATA) == 7


def test_missing_and_computed_names_see_the_whole_data() -> None:
    assert j.evaluate_validated({"missing": ["a", "c", "d"]}, DATA) == ["d"]
    assert j.evaluate_validated({"missing_some": [1, ["c", "d"]]}, DATA) == []
    assert j.evaluate_validated({"var": {"cat": ["c", ""]}}, DATA) == 3
