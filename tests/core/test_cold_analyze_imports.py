"""A cold `lexlogic analyze FACTS.json` imports and builds only what it uses (issue 33, cold start).

Each item here cost milliseconds of every cold command and is used on a branch the example never takes:
opt_einsum plans tensor contractions (a verdict by enumeration has none); PyYAML reads pack files (a pack
served from the pack cache, weights included, reads none); the models of documents, LLM plan proposals and
dynamic rules' metadata are built on first use (a facts file has none of them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rupture_brutale" / "facts.json"

PROBE = """
import atexit, sys

def seen():
    from lexlogic.api.cli_dynamic import DynamicRuleMeta
    from lexlogic.engine.case.planner import ProposedPlan
    from lexlogic.engine.documents.model import Document

    imported = [m for m in ("opt_einsum", "yaml") if m in sys.modules]
    built = [m.__name__ for m in (Document, ProposedPlan, DynamicRuleMeta) if m.__pydantic_complete__]
    print("IMPORTED", imported, "BUILT", built, file=sys.stderr)

atexit.register(seen)
sys.argv = ["lexlogic", "analyze", sys.argv[1], "--no-input"]
from lexlogic.api.cli import app
app()
"""


def _analyze(home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEXLOGIC_HOME": str(home)}
    env.pop("LEXLOGIC_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(EXAMPLE)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


def test_a_cold_analyze_neither_imports_nor_builds_what_it_does_not_use(tmp_path: Path) -> None:
    first = _analyze(tmp_path)  # an empty home: the pack is read from its files (YAML) and its entry written
    assert "VERDICT" in first.stdout, first.stderr
    assert "IMPORTED ['yaml'] BUILT []" in first.stderr
    again = _analyze(tmp_path)  # the pack (and its weights) from the pack cache
    assert again.stdout == first.stdout
    assert "IMPORTED [] BUILT []" in again.stderr
