"""`lexlogic analyze` and `lexlogic schema facts`: output, JSON-path errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rupture_brutale" / "facts.json"
runner = CliRunner()


def test_example_text_output_has_verdict_and_proof() -> None:
    result = runner.invoke(app, ["analyze", str(EXAMPLE), "--no-input"])
    assert result.exit_code == 0, result.output
    assert "VERDICT : Responsabilité" in result.output and "engagée" in result.output
    assert "art. L.442-1 II C. com." in result.output
    debug = runner.invoke(app, ["analyze", str(EXAMPLE), "--no-input", "--proof", "--debug"])
    assert "[L_liable]" in debug.output  # the deciding rule, named with --debug
    assert "art. L.442-1 II C. com." in debug.output.split("Sources :", 1)[1]


def test_example_json_output() -> None:
    result = runner.invoke(app, ["analyze", str(EXAMPLE), "--format", "json", "--no-input"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["label"] == "LIABLE"
    assert data["outcomes"]["liable"]["status"] == "yes"
    assert "L_liable" in json.dumps(data["outcomes"]["liable"]["proof"])
    low, high = data["outcomes"]["damages"]["value"]
    assert 0 < low < high


def _write(tmp_path: Path, payload: object) -> Path:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(payload) if not isinstance(payload, str) else payload)
    return path


@pytest.mark.parametrize(
    "payload, path_fragment",
    [
        ({"pack": "rupture_brutale", "facts": {"notice_given_months": "trois"}}, "$.facts.notice_given_months.value"),
        ({"pack": "rupture_brutale", "facts": {"notification_date": "2024-13-45"}}, "$.facts.notification_date.value"),
        ({"pack": "rupture_brutale", "facts": {"claimant_activity": "banker"}}, "$.facts.claimant_activity.value"),
        ({"pack": "rupture_brutale", "facts": {"volume_drop_pct": 140}}, "$.facts.volume_drop_pct.value"),
        ({"pack": "rupture_brutale", "facts": {"notice_written": "yes"}}, "$.facts.notice_written.value"),
        ({"pack": "rupture_brutale", "facts": {"unheard_of": 1}}, "$.facts.unheard_of"),
        (
            {"pack": "rupture_brutale", "facts": {"notice_written": {"value": True, "confidence": 3}}},
            "$.facts.notice_written.confidence",
        ),
        ({"facts": {}}, "$.pack"),
        ({"pack": "rupture_brutale", "facts": [1, 2]}, "$.facts"),
    ],
)
def test_malformed_case_names_json_path(tmp_path: Path, payload: object, path_fragment: str) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, payload)), "--no-input"])
    assert result.exit_code == 2
    assert path_fragment in result.output


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, '{"pack": "rupture_brutale",\n "facts": {,}}'))])
    assert result.exit_code == 2
    assert "line 2 column" in result.output


def test_unknown_pack(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, {"pack": "nope", "facts": {}}))])
    assert result.exit_code == 2 and "no rule pack named 'nope'" in result.output


def test_missing_decisive_facts_are_unknown_and_named(tmp_path: Path) -> None:
    facts = json.loads(EXAMPLE.read_text())
    del facts["facts"]["notice_written"]
    facts["facts"]["notice_given_months"] = 18  # written: safe harbour; oral: brutal
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, facts)), "--format", "json", "--no-input"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["label"] == "UNDETERMINED"
    assert data["outcomes"]["liable"]["status"] == "unknown"
    assert "notice_written" in data["outcomes"]["liable"]["missing"]
    assert any(q["fact"] == "notice_written" for q in data["questions"])


def test_answer_option_settles_the_question(tmp_path: Path) -> None:
    facts = json.loads(EXAMPLE.read_text())
    del facts["facts"]["notice_written"]
    facts["facts"]["notice_given_months"] = 18
    result = runner.invoke(
        app,
        ["analyze", str(_write(tmp_path, facts)), "--format", "json", "--no-input", "--answer", "notice_written=true"],
    )
    assert json.loads(result.output)["label"] == "NOT_LIABLE"


def test_schema_facts_is_a_json_schema_that_accepts_the_example() -> None:
    result = runner.invoke(app, ["schema", "facts"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["properties"]["pack"] == {"const": "rupture_brutale"}
    assert "notice_written" in schema["properties"]["facts"]["properties"]
    assert schema["properties"]["facts"]["properties"]["claimant_activity"]["oneOf"][0]["enum"][0] == "production"


def test_analyze_subprocess_exit_code(tmp_path: Path) -> None:
    path = _write(tmp_path, {"pack": "rupture_brutale", "facts": {"orders_count": -3}})
    proc = subprocess.run([sys.executable, "-m", "lexlogic.api", "analyze", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "$.facts.orders_count.value" in proc.stderr
