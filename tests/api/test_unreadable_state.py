"""A saved state written by another version of lexlogic (here: a phase this version does not know) gives a
clear 409 on the API and a clear message with exit code 2 on ``lexlogic case replay`` — never a 500 or a
traceback (issue 33). ``analyze`` already started afresh in that case (``dossier._start_or_resume``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.store.cases import CaseStore
from tests.support.api_app import Api

UNREADABLE = "n'est pas lisible par cette version"


def _written_by_another_version(store: CaseStore, run_id: str) -> int:
    """Append a state as a later version would write it: a phase this version has never heard of."""
    latest = store.latest(run_id)
    assert latest is not None
    state: dict[str, Any] = dict(latest[1])
    state["phase"] = "DELIBERATING"
    return store.save(run_id, state, phase="DELIBERATING", status="running", state_hash="v2", note="lexlogic 2.0")


def test_the_api_answers_409_on_a_state_it_cannot_read(sqlite_api: Api) -> None:
    c = sqlite_api.client
    svc = c.app.state.services  # type: ignore[attr-defined]
    cid = sqlite_api.create_facts_case()
    _written_by_another_version(svc.runs, f"api-{cid}")
    for method, path, body in (
        ("GET", f"/v1/cases/{cid}/verdict", None),
        ("GET", f"/v1/cases/{cid}/questions", None),
        ("POST", f"/v1/cases/{cid}/what-if", {"answers": {}}),
    ):
        r = c.request(method, path, json=body, headers=sqlite_api.h())
        assert r.status_code == 409, (path, r.status_code, r.text[:300])
        problem = r.json()
        assert r.headers["content-type"].startswith("application/problem+json")
        assert UNREADABLE in problem["detail"] and "phase" in problem["detail"], problem
        assert problem["type"].endswith("unreadable-state"), problem


def test_replay_says_the_state_is_unreadable_and_exits_2(tmp_path: Path) -> None:
    from lexlogic.engine.case.machine import CaseState

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = CaseStore(url)
    store.save(
        "c1",
        CaseState(case_id="c1", pack="rupture_brutale").model_dump(mode="json"),
        phase="INIT",
        status="running",
        state_hash="h1",
        note="created",
    )
    seq = _written_by_another_version(store, "c1")
    store.close()
    result = CliRunner().invoke(app, ["case", "replay", "c1", str(seq), "--db", url])
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert UNREADABLE in result.output and "c1@2" in result.output, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
