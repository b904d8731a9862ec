"""The API on the example case: verdict with proof, what-if (saved only on request), answers, time
travel, graph shapes, problem details (422 with JSON path, 413), and the `lexlogic keys` CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app as cli
from lexlogic.engine.store.tenants import TenantStore
from tests.support.api_app import EXAMPLE, ROOT, Api


def test_verdict_what_if_answers_and_time_travel(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    v = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    # computed at creation, off the request thread (issue 33): a hit, or a miss if the GET came first
    assert v.status_code == 200 and v.headers["x-cache"] in ("hit", "miss")
    body = v.json()
    assert body["label"] == "LIABLE" and body["proof"]["rule_id"] == "L_liable" and body["why_not"] is None
    assert body["remedy_range"] and body["remedy_range"][0] < body["remedy_range"][1]
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).headers["x-cache"] == "hit"
    # what-if: a serious fault → not liable, but the saved case is unchanged
    w = c.post(f"/v1/cases/{cid}/what-if", json={"answers": {"fault_serious": True}}, headers=api.h()).json()
    assert w["label"] == "NOT_LIABLE" and w["why_not"] is not None
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()["label"] == "LIABLE"
    n_states = len(c.get(f"/v1/cases/{cid}/states", headers=api.h()).json())
    assert n_states == 1
    # persist=true saves it (new states), and time travel brings the old head back
    p = c.post(f"/v1/cases/{cid}/what-if", json={"answers": {"fault_serious": True}, "persist": True}, headers=api.h())
    assert p.json()["label"] == "NOT_LIABLE"
    states = c.get(f"/v1/cases/{cid}/states", headers=api.h()).json()
    assert len(states) > n_states and states[-1]["phase"] == "VERDICT"
    assert c.get(f"/v1/cases/{cid}", headers=api.h()).json()["answers"] == {"fault_serious": True}
    r = c.post(f"/v1/cases/{cid}/states/1/restore", headers=api.h())
    assert r.status_code == 200 and r.json()["note"] == "restored from 1"
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()["label"] == "LIABLE"
    assert c.get(f"/v1/cases/{cid}/states/999", headers=api.h()).status_code == 404
    # answers endpoint (saved) and questions
    a = c.post(f"/v1/cases/{cid}/answers", json={"answers": {"fault_tolerated": False}}, headers=api.h())
    assert a.status_code == 200 and a.json()["answers"]["fault_tolerated"] is False
    assert c.get(f"/v1/cases/{cid}/questions", headers=api.h()).status_code == 200


def test_graph_shapes_and_critical_path(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    case = {
        **EXAMPLE,
        "facts": {
            **EXAMPLE["facts"],
            "notice_written": {
                "value": True,
                "confidence": 0.8,
                "grounding": [
                    {"kind": "document", "document_id": "lettre", "char_start": 0, "char_end": 5, "quote": "Objet"}
                ],
            },
        },
    }
    cid = api.create_facts_case(case_file=case)
    g = c.get(f"/v1/cases/{cid}/graph", headers=api.h()).json()
    shapes = {n["kind"]: n["shape"] for n in g["nodes"]}
    assert shapes == {"verdict": "diamond", "rule": "diamond", "fact": "circle", "evidence": "square"}
    ids = {n["id"]: n for n in g["nodes"]}
    assert ids["verdict"]["critical"] and ids["fact:notice_written"]["certainty"] == 0.8
    ev = ids["ev:lettre:0-5"]
    assert ev["quote"] == "Objet" and ev["critical"]
    assert any(
        e["kind"] == "grounds" and e["source"] == ev["id"] and e["target"] == "fact:notice_written" for e in g["edges"]
    )
    assert all(e["source"] in ids and e["target"] in ids for e in g["edges"])


def test_problem_details(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    r = c.post(
        "/v1/cases", json={"case_file": {"pack": "rupture_brutale", "facts": {"orders_count": -3}}}, headers=api.h()
    )
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    assert r.json()["errors"][0]["path"] == "$.case_file.facts.orders_count.value"
    r = c.get("/v1/cases?limit=0", headers=api.h())
    assert r.status_code == 422 and r.json()["errors"][0] == {
        "location": "query",
        "path": "$.limit",
        "message": r.json()["errors"][0]["message"],
    }
    big = b'{"case_file": {"pad": "' + b"x" * 1_100_000 + b'"}}'
    r = c.post("/v1/cases", content=big, headers={**api.h(), "Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["title"] == "Content Too Large"
    r = c.delete("/v1/cases", headers=api.h())
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == {"GET", "POST"}
    cid = c.post("/v1/cases", json={"pack": "rupture_brutale"}, headers=api.h()).json()["id"]
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).status_code == 409  # no facts before a run
    assert c.post(f"/v1/cases/{cid}/run?stream=false", headers=api.h()).status_code == 409  # no documents
    r = c.post(f"/v1/cases/{cid}/documents", files={"file": ("evil.exe", b"MZ")}, headers=api.h())
    assert r.status_code == 415


def test_packs(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    assert [p["name"] for p in c.get("/v1/packs", headers=api.h()).json()] == ["late_payment", "rupture_brutale"]
    for name in ("late_payment", "rupture_brutale"):
        assert c.post(f"/v1/packs/{name}/check", headers=api.h()).json()["ok"] is True
    rep = c.post("/v1/packs/rupture_brutale/test?only=prescription", headers=api.h()).json()
    assert rep["passed"] >= 1 and rep["failed"] == 0
    assert c.get("/v1/packs/nope", headers=api.h()).status_code == 404


def test_keys_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'k.db'}"
    r = CliRunner().invoke(cli, ["keys", "create", "--tenant", "acme", "--db", db])
    assert r.exit_code == 0, r.output
    key = r.stdout.strip().splitlines()[0]
    store = TenantStore(db)
    assert store.authenticate(key) is not None
    key_id = key.split("_")[1]
    out = subprocess.run(
        [str(ROOT / ".venv/bin/lexlogic"), "keys", "revoke", key_id, "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and key_id in out.stdout
    assert store.authenticate(key) is None
    again = CliRunner().invoke(cli, ["keys", "revoke", key_id, "--db", db])
    assert again.exit_code == 2 and "no active key" in again.stderr
    store.close()
