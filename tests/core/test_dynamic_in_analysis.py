"""Dynamic rules feed the analysis as interpretations: marked DYNAMIC in the proof, discounted in P."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli import app
from engine.dynamic_rules import DynamicRuleStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
RULE = '''
def rule(facts):
    # interpretation: more than 80 % of the claimant's turnover with one client = dependence
    share = facts.get("share_with_defendant_pct", 0)
    return {"economic_dependence_proven": share > 80}
'''


def test_dynamic_interpretation_in_proof_and_probability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    monkeypatch.setenv("LEXLOGIC_DATABASE_URL", url)
    store = DynamicRuleStore(url)
    rule = store.add(RULE, author="model-x", name="dependance_part_ca", reliability=0.6)
    store.approve(rule.id, by="Me Martin")
    raw = json.loads(EXAMPLE.read_text())
    facts = raw["facts"]
    facts.pop("economic_dependence_proven")
    # a relation in the range without dependence, brutal with it: the interpretation decides
    facts["notice_given_months"] = 0
    facts["arbitration_clause"] = False
    path = tmp_path / "case.json"
    path.write_text(json.dumps(raw))
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json", "--no-input", "--dynamic-rules"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["values"]["economic_dependence_proven"]["status"] == "dynamic"
    text = json.dumps(data["outcomes"])
    assert '"kind": "dynamic"' in text and rule.id in text
    # the symbolic chain holds (notice 0 is brutal anyway) but the dependence is an interpretation
    assert data["verdict"] == "LIABLE"
    without = CliRunner().invoke(app, ["analyze", str(path), "--format", "json", "--no-input"])
    assert json.loads(without.output)["values"]["economic_dependence_proven"]["status"] == "unknown"
