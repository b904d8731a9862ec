"""Issue 28: the JSON-Logic policy owns its operator table; importing it changes nothing global."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import json_logic
import pytest

from lexlogic.logic import jsonlogic_policy as jp
from lexlogic.logic.jsonlogic_eval import JsonLogicEvaluator, UnknownOperator

DATA: dict[str, Any] = {
    "a": 3,
    "b": 0,
    "s": "préavis",
    "items": [1, 2, 3, 4, 5],
    "by_year": {"2021": 10.0, "2022": 20.0, "2023": 30.0, "2020": 5.0},
    "nested": {"list": [{"x": 1}, {"x": 2}]},
    "empty": "",
}

# Core-language rules: the library's own evaluator is the oracle (its control, scoped and data operators
# share no code with ours).
CORE_RULES: list[Any] = [
    {"if": [{">": [{"var": "a"}, 2]}, "big", "small"]},
    {"if": [{"var": "b"}, 1, {"var": "b"}, 2, 3]},
    {"if": []},
    {"if": [True, "only"]},
    {"?:": [{"var": "b"}, "y", "n"]},
    {"and": [{"var": "a"}, {"var": "b"}, 7]},
    {"and": [1, "x", [1]]},
    {"or": [{"var": "b"}, "", {"var": "s"}]},
    {"or": [0, ""]},
    {"filter": [{"var": "items"}, {"%": [{"var": ""}, 2]}]},
    {"map": [{"var": "items"}, {"*": [{"var": ""}, 2]}]},
    {"map": [{"var": "missing_key"}, 1]},
    {"reduce": [{"var": "items"}, {"+": [{"var": "accumulator"}, {"var": "current"}]}, 0]},
    {"reduce": [{"var": "nothing"}, 1, 42]},
    {"all": [{"var": "items"}, {">=": [{"var": ""}, 1]}]},
    {"all": [[], True]},
    {"none": [{"var": "items"}, {"==": [{"var": ""}, 10]}]},
    {"some": [{"var": "items"}, {"==": [{"var": ""}, 3]}]},
    {"var": "nested.list.1.x"},
    {"var": ["absent", "default"]},
    {"var": ""},
    {"missing": ["a", "absent", "empty"]},
    {"missing": [["a", "zz"]]},
    {"missing_some": [1, ["a", "zz", "yy"]]},
    {"missing_some": [2, ["a", "zz", "yy"]]},
    {"cat": ["x", {"var": "a"}, {"substr": [{"var": "s"}, 0, 3]}]},
    {"in": ["avi", {"var": "s"}]},
    {"merge": [[1], 2, {"var": "items"}]},
    {"min": [3, 1, 2]},
    {"<": [1, {"var": "a"}, 5]},
    {"!": [{"var": "b"}]},
    {"!!": [[]]},
    [{"var": "a"}, {"+": [1, 2]}],
    "plain",
]


@pytest.mark.parametrize("rule", CORE_RULES, ids=[str(r)[:40] for r in CORE_RULES])
def test_core_language_matches_json_logic_qubit(rule: Any) -> None:
    assert jp.evaluate(rule, DATA) == json_logic.jsonLogic(copy.deepcopy(rule), copy.deepcopy(DATA))


def test_importing_the_policy_changes_no_global_operator_table() -> None:
    """Fails on the old module, which called json_logic.add_operation at import."""
    probe = (
        "import json_logic\n"
        "before = dict(json_logic.operations)\n"
        "import lexlogic.logic.jsonlogic_policy\n"
        "assert dict(json_logic.operations) == before, sorted(set(json_logic.operations) ^ set(before))\n"
        "assert 'months_between' not in json_logic.operations\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_legal_operators_run_through_the_policy_inside_scoped_rules() -> None:
    rule = {"map": [[["2024-01-31", 1]], {"add_months": [{"var": "0"}, {"var": "1"}]}]}
    assert jp.evaluate(rule, {}) == ["2024-02-29"]
    assert jp.evaluate({"last_years_mean": [{"var": "by_year"}, 3]}, DATA) == 20.0


def test_method_is_refused_by_validation_and_blocked_at_evaluation() -> None:
    rule = {"method": [{"var": "items"}, "clear"]}
    with pytest.raises(jp.JsonLogicPolicyError, match="blocked"):
        jp.evaluate(rule, DATA)
    data = copy.deepcopy(DATA)
    with pytest.raises(jp.JsonLogicPolicyError, match="blocked"):
        jp.evaluate_validated(rule, data)  # even a rule that skipped validation
    assert data == DATA


def test_dotted_operator_names_are_names_not_attribute_paths() -> None:
    rule = {"months_between.__globals__": []}
    with pytest.raises(jp.JsonLogicPolicyError, match="forbidden"):
        jp.validate(rule)
    with pytest.raises(UnknownOperator):
        jp.evaluate_validated(rule, {})


def test_the_data_is_never_touched_nor_handed_back() -> None:
    data = copy.deepcopy(DATA)
    for rule in CORE_RULES:
        jp.evaluate(rule, data)
    assert data == DATA
    got = jp.evaluate({"var": "nested"}, data)
    got["list"].append("intruder")
    assert data == DATA


def test_a_policy_owns_its_table() -> None:
    extra = jp.JsonLogicPolicy({**jp.LEGAL_OPERATORS, "twice": lambda x: 2 * x})
    assert extra.evaluate({"twice": [{"var": "a"}]}, DATA) == 6
    with pytest.raises(jp.JsonLogicPolicyError):
        jp.evaluate({"twice": [1]}, {})
    with pytest.raises(ValueError, match="part of the language"):
        JsonLogicEvaluator({"var": lambda: None})
