"""The permanent Type-1/Type-2 regression sets and the KPI sentinel (run here, hence in CI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.kg.sentinel import DATA_DIR, Type1Item, Type2Item, load_jsonl, run

ROOT = Path(__file__).resolve().parents[2]


def test_regression_sets_are_large_enough_and_bilingual():
    t1 = load_jsonl(DATA_DIR / "type1.jsonl", Type1Item)
    t2 = load_jsonl(DATA_DIR / "type2.jsonl", Type2Item)
    assert len(t2) >= 40 and {i.lang for i in t2} == {"en", "fr"}
    assert {"causality", "transitivity", "world-knowledge"} <= {i.category for i in t2}
    assert {i.expect.basis.value for i in t1} >= {"ALTERNATIVE", "DEFAULT", "EXCEPTION"}
    assert {i.lang for i in t1} == {"en", "fr"}
    assert len({i.id for i in t1 + t2}) == len(t1) + len(t2)


def test_kpis_hold():
    report = run()
    kpis = {k.name: k for k in report.kpis}
    assert kpis["fp_type2"].value == 0.0, [o for o in report.type2 if not o.ok]
    assert kpis["accept_type1"].value >= 0.80, [o for o in report.type1 if not o.ok]
    assert kpis["abstain_motivated"].value == 1.0
    assert report.ok
    assert sum(report.abstentions_by_reason.values()) > 0


def test_sentinel_command_exit_codes(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(app, ["kg", "sentinel"])
    assert ok.exit_code == 0, ok.output
    assert "fp_type2" in ok.output and "accept_type1" in ok.output and "abstain_motivated" in ok.output
    as_json = json.loads(runner.invoke(app, ["kg", "sentinel", "--format", "json"]).output)
    assert as_json["ok"] is True and len(as_json["type2"]) >= 40
    # a broken KPI: a Type-2 sentence that does produce a STRICT relation
    shutil.copy(DATA_DIR / "type1.jsonl", tmp_path / "type1.jsonl")
    lines = (DATA_DIR / "type2.jsonl").read_text(encoding="utf-8").splitlines()
    lines.append(
        json.dumps(
            {
                "id": "planted",
                "lang": "en",
                "category": "planted",
                "text": "Payment may be made in euros or in US dollars.",
                "forbidden": "-",
            }
        )
    )
    (tmp_path / "type2.jsonl").write_text("\n".join(lines), encoding="utf-8")
    broken = runner.invoke(app, ["kg", "sentinel", "--data-dir", str(tmp_path)])
    assert broken.exit_code == 1 and "FAIL fp_type2" in broken.output and "planted" in broken.output


def test_malformed_data_is_an_error_naming_file_and_line(tmp_path):
    shutil.copy(DATA_DIR / "type1.jsonl", tmp_path / "type1.jsonl")
    (tmp_path / "type2.jsonl").write_text(
        '{"id": "x", "lang": "en", "category": "c", "text": "t", "forbidden": "f"}\n'
        '{"id": "y", "lang": "en", "text": "t", "forbidden": "f"}\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["kg", "sentinel", "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'type2.jsonl'}:2: $.category: Field required" in result.stderr


def test_sentinel_as_a_real_subprocess():
    exe = Path(sys.executable).with_name("lexlogic")
    proc = subprocess.run(
        [str(exe), "kg", "sentinel"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "LEXLOGIC_LLM_BASE_URL": ""},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK   fp_type2" in proc.stdout
