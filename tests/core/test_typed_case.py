"""Issue 28, item 2: one typed case. From reading to verdict the case travels as a ``CaseFile``: no function
of engine/ takes a case (a parameter named ``case``, ``case_file``, ``case_facts``, ``case_dict``…) typed as a
plain dict or ``Any``. The stored JSON becomes typed at the edges, in functions that say so by taking
``stored`` (``Evaluator.read``, ``RunMemo.parse``, ``VerdictService.read``/``verdict_json``,
``perception.validate_case_file``).

The scan found 39 such signatures on the code before this change (commit 1986651: the ``Evaluator`` protocol,
``build_verdict``, the narratives, ``epistemic``, ``analyse_case_file``, sensitivity…); it finds none now."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
UNTYPED = ("dict", "Dict", "Mapping", "MutableMapping", "Any")


def _is_case(name: str) -> bool:
    return name.startswith("case") and name not in ("case_id", "case_ids")


def _untyped(annotation: ast.expr) -> bool:
    """A plain dict (``dict[str, Any]``, ``Mapping[…]``), ``Any``, or one of them ``| None``."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _untyped(annotation.left) or _untyped(annotation.right)
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # a string annotation
        return _untyped(ast.parse(annotation.value, mode="eval").body)
    name = annotation.attr if isinstance(annotation, ast.Attribute) else getattr(annotation, "id", "")
    return name in UNTYPED


def untyped_cases(source: str, filename: str = "<source>") -> list[str]:
    """``file:line function(parameter: annotation)`` for every case parameter typed as a plain dict."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if _is_case(arg.arg) and arg.annotation is not None and _untyped(arg.annotation):
                found.append(f"{filename}:{node.lineno} {node.name}({arg.arg}: {ast.unparse(arg.annotation)})")
    return found


def test_no_case_travels_as_a_dict_in_engine() -> None:
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        found += untyped_cases(path.read_text(encoding="utf-8"), str(path.relative_to(ENGINE.parent)))
    assert found == [], "a case typed as a plain dict:\n" + "\n".join(found)


def test_the_scan_sees_a_case_typed_as_a_dict() -> None:
    source = """
from typing import Any
def build(case: dict[str, Any], case_id: str) -> None: ...
class E:
    def outcomes(self, case_facts: "dict[str, Any]", answers: dict[str, Any]) -> None: ...
    async def later(self, *, case_file: Any | None = None) -> None: ...
def typed(case: CaseFile, stored: dict[str, Any]) -> None: ...
"""
    found = untyped_cases(source)
    assert [f.split(" ", 1)[1] for f in found] == [
        "build(case: dict[str, Any])",
        "outcomes(case_facts: 'dict[str, Any]')",
        "later(case_file: Any | None)",
    ]
