"""Issue 28: a class name means one thing across lexlogic (no two top-level classes share a name)."""

from __future__ import annotations

import ast
import importlib.util
from collections import defaultdict
from pathlib import Path

LAYERS = ("api", "bridges", "engine", "logic", "sandbox")


def _layer_dirs() -> list[Path]:
    """The installed layers' folders (found through the import system: the editable install maps them)."""
    dirs = []
    for layer in LAYERS:
        spec = importlib.util.find_spec(f"lexlogic.{layer}")
        assert spec is not None and spec.submodule_search_locations, layer
        dirs.extend(Path(p) for p in spec.submodule_search_locations)
    return dirs


def _classes() -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for root in _layer_dirs():
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    where[node.name].append(f"{root.name}/{path.relative_to(root)}:{node.lineno}")
    return where


def test_the_walk_sees_the_package() -> None:
    classes = _classes()
    assert {"Grounding", "Verdict", "RulePack", "JsonLogicPolicy"} <= set(classes)
    assert sum(len(v) for v in classes.values()) > 200


def test_top_level_class_names_are_unique() -> None:
    dup = {name: places for name, places in _classes().items() if len(places) > 1}
    assert not dup, "class names defined more than once: " + "; ".join(f"{n} in {', '.join(p)}" for n, p in dup.items())
