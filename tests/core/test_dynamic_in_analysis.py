"""Dynamic rules feed the analysis as interpretations: marked DYNAMIC in the proof, discounted in P."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.extensions.dynamic_rules import DynamicRuleStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
# An interpretation as an LLM might propose it (the fixture stands for the LLM's text, not for law).
RULE = """
def rule(facts):
    # a rupture notified in 2024, during the sector crisis, is treated as force majeure
    return {"force_majeure": str(facts.get("notification_date", ""))[:4] == "2024"}
"""


def test_dynamic_interpretation_is_shown_and_discounted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    monkeypatch.setenv("LEXLOGIC_DATABASE_URL", url)
    store = DynamicRuleStore(url)
    rule = store.add(RULE, author="model-x", name="crise_force_majeure", reliability=0.6)
    store.approve(rule.id, by="Me Martin")
    raw = json.loads(EXAMPLE.read_text())
    raw["facts"].pop("force_majeure", None)  # nobody alleged it: the rule fills the gap
    path = tmp_path / "case.json"
    path.write_text(json.dumps(raw))
    runner = CliRunner()

    without = json.loads(runner.invoke(app, ["analyze", str(path), "--format", "json", "--no-input"]).output)
    assert without["label"] == "LIABLE" and without["probability"]["p_target"] == pytest.approx(1.0)

    result = runner.invoke(app, ["analyze", str(path), "--format", "json", "--no-input", "--dynamic-rules"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["values"]["force_majeure"]["status"] == "dynamic"
    # symbolically the interpretation exonerates — and the proof says it is an interpretation
    assert data["label"] == "NOT_LIABLE"
    exo = json.dumps(data["outcomes"]["exonerated"]["proof"])
    assert '"kind": "dynamic"' in exo and rule.id in exo
    # probabilistically it weighs only its reliability: P(liable) = 1 - 0.6
    assert data["probability"]["p_target"] == pytest.approx(0.4, abs=1e-6)
