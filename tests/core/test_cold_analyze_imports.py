"""A cold `lexlogic analyze FACTS.json` imports and builds only what it uses (issue 33, cold start).

Each item here cost milliseconds of every cold command and is used on a branch the example never takes:
opt_einsum plans tensor contractions (a verdict by enumeration has none); PyYAML reads pack files (a pack
served from the pack cache, weights included, reads none); the models of documents, LLM plan proposals and
dynamic rules' metadata are built on first use (a facts file has none of them), and so are the weights
file's (a served pack carries them unpickled, never validated); the CLI's other command modules are imported
only by the command they register. And no model field's default factory is the builtin ``list``: pydantic
reads its signature by tokenizing its text, 0.3–0.4 ms a field (``logic/model_defaults.py``).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rupture_brutale" / "facts.json"
LAYERS = ("api", "bridges", "engine", "logic", "sandbox", "lexlogic")

PROBE = """
import atexit, sys

def seen():
    others = [m for m in sys.modules if m.startswith("lexlogic.api.cli_") and m.split(".")[-1] not in OURS]
    imported = [m for m in ("opt_einsum", "yaml", "lexlogic.sandbox") if m in sys.modules] + sorted(others)
    from pydantic import BaseModel
    from lexlogic.api.cli_dynamic import DynamicRuleMeta
    from lexlogic.engine.case.planner import ProposedPlan
    from lexlogic.engine.documents.model import Document
    from lexlogic.logic.weights import NumberLaw, Output, PriorSpec, WeightsFile
    models = (Document, ProposedPlan, DynamicRuleMeta, WeightsFile, NumberLaw, Output, PriorSpec)
    built = [m.__name__ for m in models if m.__pydantic_complete__]
    todo, classes = [BaseModel], []
    while todo:
        classes += (new := [c for c in todo.pop().__subclasses__() if c not in classes])
        todo += new
    lists = [f"{c.__name__}.{n}" for c in classes if c.__module__.startswith("lexlogic")
             for n, f in c.__pydantic_fields__.items() if f.default_factory is list]
    print("IMPORTED", imported, "BUILT", built, "LIST FACTORIES", lists, file=sys.stderr)

OURS = ("cli_common", "cli_lazy", "cli_rules")
atexit.register(seen)
sys.argv = ["lexlogic", "analyze", sys.argv[1], "--no-input"]
from lexlogic.api.cli import app
app()
"""


def _analyze(home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEXLOGIC_HOME": str(home)}
    env.pop("LEXLOGIC_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(EXAMPLE)], capture_output=True, text=True, cwd=home, env=env, timeout=120
    )


def test_a_cold_analyze_neither_imports_nor_builds_what_it_does_not_use(tmp_path: Path) -> None:
    first = _analyze(tmp_path)  # an empty home: the pack is read from its files (YAML) and its entry written
    assert "VERDICT" in first.stdout, first.stderr
    weights = "['WeightsFile', 'PriorSpec']"  # weights.yaml validated (laws and outputs inside WeightsFile's schema)
    assert f"IMPORTED ['yaml'] BUILT {weights} LIST FACTORIES []" in first.stderr
    again = _analyze(tmp_path)  # the pack (and its weights) from the pack cache
    assert again.stdout == first.stdout
    assert "IMPORTED [] BUILT [] LIST FACTORIES []" in again.stderr


def test_no_pydantic_field_defaults_to_the_builtin_list() -> None:
    """Every module of the package, read as source: ``Field(default_factory=list)`` nowhere (``new_list``)."""
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
                    found += [
                        f"{path.relative_to(ROOT)}:{kw.lineno}"
                        for kw in node.keywords
                        if kw.arg == "default_factory" and isinstance(kw.value, ast.Name) and kw.value.id == "list"
                    ]
    assert found == []


SPIN = """
import time
import lexlogic.api.cli, numpy
time.sleep(0.4)  # OpenBLAS's threads spun ~0.1 s of CPU each after numpy's import, then slept
print(round((time.process_time() - time.thread_time()) * 1000, 1))
"""


def test_numpys_blas_threads_do_not_spin_after_its_import(tmp_path: Path) -> None:
    """The CPU of every thread but the main one, in a process that imported the CLI then numpy: OpenBLAS's
    threads sleep at once (``api/cli.py``) instead of spinning ~50 ms of a cold command's CPU."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    done = subprocess.run([sys.executable, "-c", SPIN], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert float(done.stdout) < 15.0, done.stdout + done.stderr
