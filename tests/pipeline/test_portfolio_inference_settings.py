"""A deployment's ``LEXLOGIC_INFERENCE_*`` reach the verdicts of ``lexlogic batch`` (issue 33): the CLI's Settings
travel to the portfolio's evaluator, in this process (``-c 1``) and in the pool's processes (``-c 2``), and to the
per-case path's (``--local``: the evaluator a worker builds, ``tasks.orchestrator_for``), as they reach ``analyze``'s (``tests/prob/test_inference_settings_reach_verdicts.py``).

A result line does not name the inference route, but it prints P(target) to 4 decimals: with the contraction and
the enumeration refused (one entry, one world) the route is sampling, whose estimate is not the exact P — while
staying near it (the same verdict, estimated)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.prob.real_cases import make_case

ROOT = Path(__file__).resolve().parents[2]
NARROW = {"LEXLOGIC_INFERENCE_MAX_INTERMEDIATE": "1", "LEXLOGIC_INFERENCE_MAX_WORLDS": "1"}

pytestmark = pytest.mark.timeout(600)


def _lines(cases: Path, out: Path, workers: int, mode: str = "--portfolio", **env: str) -> dict[str, dict[str, object]]:
    db = f"sqlite:///{out.with_suffix('.db')}"
    run = subprocess.run(
        [sys.executable, "-m", "lexlogic.api", "batch", str(cases), mode, "-c", str(workers)]
        + ["--db", db, "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=500,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return {x["key"]: x for x in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


@pytest.mark.parametrize("workers,mode", [(1, "--portfolio"), (2, "--portfolio"), (1, "--local")])
def test_a_deployments_inference_settings_change_the_batchs_estimates(tmp_path: Path, workers: int, mode: str) -> None:
    """``--local``: the per-case path (each case a run on the local pool, as on a worker: ``tasks.orchestrator_for``)."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for seed in (0, 1):  # two structures: two groups, so ``-c 2`` runs them on the pool's processes
        (cases / f"case-{seed}.json").write_text(json.dumps(make_case(12, seed)), encoding="utf-8")
    exact = _lines(cases, tmp_path / "exact.jsonl", workers, mode)
    sampled = _lines(cases, tmp_path / "sampled.jsonl", workers, mode, **NARROW)
    assert exact.keys() == sampled.keys() and len(exact) == 2
    moved = 0
    for key, line in exact.items():
        p, q = line["p_liability"], sampled[key]["p_liability"]
        assert isinstance(p, float) and isinstance(q, float), (line, sampled[key])
        assert abs(p - q) < 0.05, (key, p, q)  # the same verdict, estimated
        moved += p != q
        assert line["verdict"] == sampled[key]["verdict"]
    assert moved >= 1, exact  # the settings reached the evaluator: a sampled estimate, not the exact P
