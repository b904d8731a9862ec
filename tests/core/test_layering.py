"""One installed namespace (issue 14): from any directory, `import lexlogic` works and the repository's
folders (api, engine, bridges, sandbox, logic) are not importable as top-level packages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LAYERS = ["api", "engine", "bridges", "sandbox", "logic"]


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_lexlogic_imports_from_any_directory(tmp_path: Path) -> None:
    run = _python("import lexlogic, lexlogic.logic.calendar, lexlogic.logic.errors; print(lexlogic.__name__)", tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "lexlogic"


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_is_not_a_top_level_package(tmp_path: Path, layer: str) -> None:
    run = _python(f"import {layer}", tmp_path)
    assert run.returncode != 0
    assert "ModuleNotFoundError" in run.stderr or "ImportError" in run.stderr


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_lives_under_lexlogic(tmp_path: Path, layer: str) -> None:
    repo = Path(__file__).resolve().parents[2]
    run = _python(f"import lexlogic.{layer} as m; print(m.__file__)", tmp_path)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip()).resolve().parent == repo / layer
