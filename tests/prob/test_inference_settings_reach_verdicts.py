"""A deployment's ``LEXLOGIC_INFERENCE_*`` reach the verdict a user gets (issue 33): the thresholds are read
once at the edge (the CLI's Settings) and travel down to the route's choice, not only in unit calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.prob.real_cases import make_case

ROOT = Path(__file__).resolve().parents[2]


def _plan(case_file: Path, **env: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-m", "lexlogic.api", "analyze", str(case_file), "--format", "json", "--no-input"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=300,
    )
    assert out.returncode in (0, 3), out.stderr[-2000:]
    plan: dict[str, object] = json.loads(out.stdout)["probability"]["plan"]
    return plan


def test_a_deployments_setting_changes_the_route_of_a_cli_verdict(tmp_path: Path) -> None:
    case_file = tmp_path / "case.json"
    case_file.write_text(json.dumps(make_case(12, 0)), encoding="utf-8")
    default = _plan(case_file)
    assert default["route"] == "contraction" and float(default["largest_intermediate"]) > 1  # type: ignore[arg-type]
    narrow = _plan(case_file, LEXLOGIC_INFERENCE_MAX_INTERMEDIATE="1")
    assert narrow["route"] == "sampling" and "limits 1 entries" in str(narrow["reason"]), narrow  # too many worlds
    assert narrow["samples"] and int(narrow["samples"]) <= 1 << 18  # type: ignore[call-overload]
