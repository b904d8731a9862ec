"""`lexlogic verify`: CliRunner against the real app, and once as a real subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def dossier(tmp_path_factory):  # type: ignore[no-untyped-def]
    d = tmp_path_factory.mktemp("dossier")
    (d / "lettre_rupture.txt").write_text(
        "Lyon, le 12 mars 2021.\n\nPar la présente lettre recommandée, la société Beta vous notifie la rupture "
        "de la relation commerciale avec un préavis de trois mois.\n",
        encoding="utf-8",
    )
    (d / "attestation.md").write_text(
        "# Attestation\n\nLe chiffre d'affaires réalisé par Alpha avec Beta s'élève à 1 150 000 euros HT pour "
        "l'exercice 2020.\n",
        encoding="utf-8",
    )
    return d


@pytest.fixture()
def env(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LEXLOGIC_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LEXLOGIC_LLM_BASE_URL", raising=False)
    return tmp_path


def test_verify_json_contradicted(dossier, env):
    res = runner.invoke(
        app,
        [
            "verify",
            str(dossier),
            "Beta a notifié la rupture avec un préavis de six mois.",
            "--format",
            "json",
            "--k",
            "2",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["status"] == "CONTRADICTED" and data["candidates"] == 2
    assert data["evidence"]["grounding"]["document_id"].startswith("lettre_rupture")
    assert "trois mois" in data["evidence"]["content"]
    assert (env / "home" / "evidence").is_dir()  # the index is persisted per case


def test_verify_submission_text(dossier, env, tmp_path):
    sub = tmp_path / "conclusions.txt"
    sub.write_text(
        "Beta a notifié la rupture avec un préavis de trois mois. Il convient de rappeler la loi. "
        "Le chiffre d'affaires d'Alpha avec Beta était de 1 500 000 euros HT en 2020.",
        encoding="utf-8",
    )
    res = runner.invoke(app, ["verify", str(dossier), "--submission", str(sub), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # every sentence is accounted for: verified, or set aside with its reason (issue 19)
    assert [r["status"] for r in data] == ["VERIFIED", "NOT_A_CLAIM", "CONTRADICTED"]
    assert data[1]["kind"] == "legal_argument" and data[1]["reason"]
    assert [r["n"] for r in data] == [1, 2, 3]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["verify", "/nonexistent/dossier", "x"], "/nonexistent/dossier: not a directory"),
        (["verify", "{d}"], "exactly one of CLAIM or --submission"),
        (["verify", "{d}", "--submission", "/nonexistent/conclusions.txt"], "/nonexistent/conclusions.txt"),
    ],
)
def test_errors_exit_2_with_a_clear_message(dossier, env, args, needle):
    res = runner.invoke(app, [a.format(d=dossier) for a in args])
    assert res.exit_code == 2
    assert needle in res.stderr


def test_real_subprocess_on_an_empty_dossier(env, tmp_path):
    empty = tmp_path / "vide"
    empty.mkdir()
    exe = Path(sys.executable).with_name("lexlogic")
    proc = subprocess.run(
        [str(exe), "verify", str(empty), "Beta a rompu la relation.", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "LEXLOGIC_HOME": str(tmp_path / "home")},
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "UNKNOWN" and data["confidence"] == 0.0 and data["evidence"] is None
