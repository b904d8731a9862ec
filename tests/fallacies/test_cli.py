"""`lexlogic fallacies`: Typer runner (offline and scripted LLM) and one real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from tests.fallacies.conftest import DEEP_ROWS, call, write_argumentum
from tests.support.fake_llm import ScriptedLLM

runner = CliRunner()
FALLACY = "Toutes les entreprises du secteur appliquent cette clause, elle est donc forcément licite."
CLEAN = "Le jugement a été signifié le 3 mars ; l'appel du 2 juin est hors délai et donc irrecevable."


def _offline(*args: str):  # type: ignore[no-untyped-def]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXLOGIC_LLM")}
    return runner.invoke(app, ["fallacies", *args, "--navigator", "offline"], env=env)


def test_cli_offline_text_and_file(tmp_path: Path) -> None:
    res = _offline(FALLACY)
    assert res.exit_code == 0, res.output
    assert "Appel à la popularité / Appeal to popularity" in res.output and "path 4.4" in res.output
    arg = tmp_path / "arg.txt"
    arg.write_text(CLEAN, encoding="utf-8")
    res = _offline(str(arg))
    assert res.exit_code == 0 and res.output.startswith("no fallacy: ")


def test_cli_long_text_argument_is_not_taken_for_a_path() -> None:
    long_text = " ".join([CLEAN] * 4)  # > 255 bytes, no newline: Path.is_file() would raise ENAMETOOLONG
    res = _offline(long_text)
    assert res.exit_code == 0, res.output
    assert res.output.startswith("no fallacy: ") or "confidence" in res.output  # an analysis, not a traceback


def test_cli_json(tmp_path: Path) -> None:
    res = _offline(FALLACY, "--format", "json")
    data = json.loads(res.output)
    assert data["outcome"] == "fallacies"
    first = data["confirmed"][0]
    assert {"node_id", "path", "name_fr", "name_en", "confidence", "justification"} <= set(first)


def test_cli_llm_with_csv_taxonomy(tmp_path: Path) -> None:
    csv_path = write_argumentum(tmp_path / "t.csv", DEEP_ROWS)
    replies = [
        {"tool_calls": [call("explore_branch", node_id="20")]},
        {"tool_calls": [call("confirm_fallacy", node_id="21", confidence=0.75, justification="joue sur la pitié")]},
    ]
    with ScriptedLLM(replies) as server:
        res = runner.invoke(
            app,
            ["fallacies", "Ayez pitié de mon client.", "--taxonomy", str(csv_path)],
            env={"LEXLOGIC_LLM_BASE_URL": server.base_url},
        )
    assert res.exit_code == 0, res.output
    assert "Appel à la pitié / Appeal to pity  [id 21, path 2.1]  confidence 0.75" in res.output
    assert "joue sur la pitié" in res.output


def test_cli_errors_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("PK,Name\n1,X\n", encoding="utf-8")
    res = _offline("texte", "--taxonomy", str(bad))
    assert res.exit_code == 2 and f"{bad}:1: not an Argumentum taxonomy" in res.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXLOGIC_LLM")}
    res = runner.invoke(app, ["fallacies", "texte", "--navigator", "llm"], env=env)
    assert res.exit_code == 2 and "LEXLOGIC_LLM_BASE_URL" in res.stderr
    with ScriptedLLM([]) as server:  # the server answers 500: a clear error, not a traceback
        res = runner.invoke(app, ["fallacies", "texte"], env={"LEXLOGIC_LLM_BASE_URL": server.base_url})
    assert res.exit_code == 2 and "LLM navigator" in res.stderr


def test_cli_real_subprocess(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "lexlogic"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXLOGIC_LLM")}
    proc = subprocess.run(
        [str(exe), "fallacies", CLEAN, "--format", "json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["outcome"] == "no_fallacy" and data["navigator"] == "offline-memory"
    proc = subprocess.run(
        [str(exe), "fallacies", str(tmp_path / "missing.txt"), "--taxonomy", str(tmp_path / "no.csv")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and "no.csv: cannot read" in proc.stderr
