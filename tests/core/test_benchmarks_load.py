"""Every script in ``benchmarks/`` still loads, and every name it imports from lexlogic or from the tests still
exists — the imports inside its functions included. Why: a benchmark is run by hand, not by CI; when the owned
memos removed the engine's ``clear_cache``, ``prob.py``, ``prob_cases.py`` and ``sensitivity.py`` broke, and
three others could not import ``tests`` when run as their docstrings say; no one saw it for two sessions."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))
OURS = ("lexlogic", "tests")


def _imported_names(script: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from <ours> import name`` in the script, at any depth."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in OURS
        for alias in node.names
    ]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_name_a_benchmark_imports_exists(script: Path) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        missing = []
        for line, module, name in _imported_names(script):
            mod = importlib.import_module(module)
            if not hasattr(mod, name):
                try:
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    missing.append(f"{script.name}:{line}: {module}.{name}")
    finally:
        sys.path.remove(str(ROOT))
    assert not missing, missing


def test_each_benchmark_loads_as_its_docstring_runs_it() -> None:
    """Each script's top level (its imports) runs with ``python benchmarks/X.py``'s path, from another folder."""
    code = (
        "import runpy, sys\n"
        "for path in sys.argv[1:]:\n"
        "    sys.path.insert(0, path.rsplit('/', 1)[0])\n"
        "    runpy.run_path(path, run_name='loaded_by_a_test')\n"
        "    sys.path.pop(0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, SCRIPTS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr[-3000:]
