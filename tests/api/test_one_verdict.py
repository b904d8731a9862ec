"""One verdict, three serialisations: the CLI JSON (`lexlogic analyze --format json`), the orchestrator's
persisted state and the HTTP verdict of the same case carry the same numbers under the same names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.case.machine import CaseState
from lexlogic.engine.verdict.model import Verdict
from tests.support.api_app import Api

from .test_verdict_model import AMBIGUOUS

SHARED_FIELDS = ("pack", "status", "label", "summary", "applicable_law", "target", "remedy_range", "main_world")
PROBABILITY_FIELDS = (
    "p_target",
    "p_target_by_narrative",
    "p_narrative",
    "p_outcomes",
    "entropy",
    "method",
    "error",
    "n_worlds",
)


def _essentials(v: dict) -> dict:
    out = {k: v[k] for k in SHARED_FIELDS}
    out["probability"] = {k: v["probability"][k] for k in PROBABILITY_FIELDS}
    out["outcomes"] = {k: o["status"] for k, o in v["outcomes"].items()}
    out["questions"] = [(q["fact"], q["eig"], q["utility"], q["options"]) for q in v["questions"]]
    out["worlds"] = [(w["world"], w["weight"], w["p_target"], w["label"]) for w in v["worlds"]]
    return out


def test_cli_json_state_and_http_verdict_agree(sqlite_api: Api, tmp_path: Path) -> None:
    api, c = sqlite_api, sqlite_api.client
    path = tmp_path / "case.json"
    path.write_text(json.dumps(AMBIGUOUS), encoding="utf-8")
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json", "--no-input"])
    assert result.exit_code == 0, result.output
    cli = json.loads(result.output)

    cid = api.create_facts_case(case_file=AMBIGUOUS)
    run = c.post(f"/v1/cases/{cid}/run?stream=false", headers=api.h())
    assert run.status_code == 200, run.text
    http = c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    states = c.get(f"/v1/cases/{cid}/states", headers=api.h()).json()
    seq = states[-1]["seq"] if isinstance(states, list) else states["states"][-1]["seq"]
    raw_state = c.get(f"/v1/cases/{cid}/states/{seq}", headers=api.h()).json()
    state = CaseState.model_validate(raw_state.get("state", raw_state))
    assert state.evaluation is not None
    persisted = state.evaluation.model_dump(mode="json")

    # each is a valid Verdict (one schema), and the essentials are equal, name for name
    for payload in (cli, http, persisted):
        Verdict.model_validate({k: v for k, v in payload.items() if k != "submissions"})
    assert _essentials(cli) == _essentials(http) == _essentials(persisted)
    assert cli["status"] == "needs_information" and 0 < cli["probability"]["p_target"] < 1
    assert cli["probability"]["p_target"] == pytest.approx(http["probability"]["p_target"], abs=0)


def test_verdict_schema_command_prints_the_model_schema() -> None:
    result = CliRunner().invoke(app, ["schema", "verdict"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    assert schema["title"] == "Verdict" and "probability" in schema["properties"]
    assert set(schema["$defs"]["VerdictStatus"]["enum"]) == {"verdict", "needs_information", "inconsistent"}
