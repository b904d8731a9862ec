"""`lexlogic kg extract|ingest|promote|query` through Typer's runner and once as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.kg.model import ExtractionMethod
from tests.kg.factory import discursive, explicit

runner = CliRunner()
DOC = (
    "Article 4 — Paiement\nLe prix est payable en euros ou en francs suisses. "
    "Par défaut, le droit français s'applique au présent contrat.\n"
    "Article 5 — Effets\nPar défaut, le retard entraîne la résiliation.\n"
)


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("LEXLOGIC_LLM_BASE_URL", raising=False)
    return f"sqlite:///{tmp_path / 'kg.db'}"


def test_extract_text_and_json(tmp_path, db):
    f = tmp_path / "contrat.txt"
    f.write_text(DOC, encoding="utf-8")
    out = runner.invoke(app, ["kg", "extract", str(f)])
    assert out.exit_code == 0, out.output
    assert "ASSERT  DISCURSIVE/ALTERNATIVE  PATTERN  euros --ALTERNATIVE_TO--> francs suisses" in out.output
    assert "ABSTAIN WHITELIST_VIOLATION" in out.output and "contrat.txt § Article 5 — Effets" in out.output
    data = json.loads(runner.invoke(app, ["kg", "extract", str(f), "--format", "json"]).output)
    assert {a["basis"] for a in data["assertions"]} == {"ALTERNATIVE", "DEFAULT"}
    assert data["abstentions"][0]["reason"] == "WHITELIST_VIOLATION"
    inline = runner.invoke(app, ["kg", "extract", "By default, French law applies to this contract."])
    assert "french law" in inline.output.lower() and "text [0:" in inline.output


def test_extract_to_case_then_promote_and_query(tmp_path, db):
    for doc in ("A", "B"):
        r = runner.invoke(app, ["kg", "extract", DOC, "--doc-id", doc, "--case", "c1", "--db", db])
        assert r.exit_code == 0 and "journaled in case 'c1'" in r.output
    promoted = runner.invoke(app, ["kg", "promote", "--case", "c1", "--db", db])
    assert promoted.exit_code == 0, promoted.output
    assert "DISCURSIVE/STRICT" in promoted.output and "STRICT 2" in promoted.output
    q = runner.invoke(app, ["kg", "query", "droit français", "--case", "c1", "--db", db])
    assert "droit français --APPLIES_TO--> présent contrat  [DISCURSIVE, STRICT]" in q.output
    fallback = runner.invoke(app, ["kg", "query", "retard", "--case", "c1", "--db", db, "--escalate"])
    assert "level TEXT" in fallback.output and "entraîne la résiliation" in fallback.output
    none = runner.invoke(app, ["kg", "query", "retard", "--case", "c1", "--db", db])
    assert "level NONE" in none.output


def test_ingest_explicit_and_tiers(tmp_path, db):
    lines = [explicit("lease", text="The lease requires insurance.").model_dump_json()]
    weak = "Payment by card instead of cheque."
    lines += [
        discursive(s="card", o="cheque", text=weak, markers=("instead of",), section=s).model_dump_json() for s in "ab"
    ]
    f = tmp_path / "a.jsonl"
    f.write_text("\n".join(lines), encoding="utf-8")
    assert "journaled 3" in runner.invoke(app, ["kg", "ingest", str(f), "--case", "k", "--db", db]).output
    out = json.loads(runner.invoke(app, ["kg", "promote", "--case", "k", "--db", db, "--format", "json"]).output)
    assert sorted((r["id"], r["tier"]) for r in out["relations"]) == [
        ("card|ALTERNATIVE_TO|cheque", "EXTENDED"),
        ("lease|REQUIRES|insurance", "STRICT"),
    ]
    strict = runner.invoke(app, ["kg", "query", "card", "--case", "k", "--db", db])
    extended = runner.invoke(app, ["kg", "query", "card", "--case", "k", "--db", db, "--tiers", "extended"])
    assert "level NONE" in strict.output and "[DISCURSIVE, EXTENDED]" in extended.output
    js = json.loads(runner.invoke(app, ["kg", "query", "lease", "--case", "k", "--db", db, "--format", "json"]).output)
    assert js["edges"][0]["grade"] == "EXPLICIT" and js["level"] == "STRICT"


def test_ingest_errors_name_file_and_line(tmp_path, db):
    f = tmp_path / "bad.jsonl"
    f.write_text(explicit().model_dump_json() + "\n{oops\n", encoding="utf-8")
    r = runner.invoke(app, ["kg", "ingest", str(f), "--db", db])
    assert r.exit_code == 2 and f"{f}:2:2: invalid JSON" in r.stderr
    f.write_text(discursive(method=ExtractionMethod.LLM).model_dump_json() + "\n", encoding="utf-8")
    r = runner.invoke(app, ["kg", "ingest", str(f), "--db", db])
    assert r.exit_code == 2 and f"{f}:1: refused (discursive.method, WHITELIST_VIOLATION)" in r.stderr
    f.write_text('{"subject": "a"}\n', encoding="utf-8")
    r = runner.invoke(app, ["kg", "ingest", str(f), "--db", db])
    assert r.exit_code == 2 and f"{f}:1: $.relation: Field required" in r.stderr
    assert runner.invoke(app, ["kg", "query", "x", "--tiers", "bogus", "--db", db]).exit_code == 2


def test_real_subprocess_round_trip(tmp_path):
    exe = str(Path(sys.executable).with_name("lexlogic"))
    env = {**os.environ, "LEXLOGIC_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}", "LEXLOGIC_LLM_BASE_URL": ""}
    for doc in ("A", "B"):
        subprocess.run(
            [exe, "kg", "extract", DOC, "--doc-id", doc, "--case", "p"],
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )
    subprocess.run([exe, "kg", "promote", "--case", "p"], env=env, check=True, capture_output=True, timeout=120)
    q = subprocess.run(
        [exe, "kg", "query", "euros", "--case", "p"], env=env, capture_output=True, text=True, timeout=120
    )
    assert q.returncode == 0 and "euros --ALTERNATIVE_TO--> francs suisses  [DISCURSIVE, STRICT]" in q.stdout


def test_extract_uses_the_llm_when_configured(monkeypatch):
    from tests.support.fake_llm import ScriptedLLM

    confirm = {"content": json.dumps({"verdict": "confirm", "reason": None, "note": "stated"})}
    with ScriptedLLM([confirm]) as server:
        monkeypatch.setenv("LEXLOGIC_LLM_BASE_URL", server.base_url)
        out = runner.invoke(app, ["kg", "extract", "Payment may be made in euros or in US dollars."])
        offline = runner.invoke(app, ["kg", "extract", "Payment may be made in euros or in US dollars.", "--no-llm"])
        assert len(server.requests) == 1
    assert "DISCURSIVE/ALTERNATIVE  HYBRID" in out.output
    assert "DISCURSIVE/ALTERNATIVE  PATTERN" in offline.output
