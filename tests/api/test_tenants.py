"""Tenant isolation: every endpoint that takes an id answers 404 (problem+json) to another tenant."""

from __future__ import annotations

import re
import time

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from lexlogic.engine.store.tenants import TenantStore, split_key
from tests.support.api_app import Api

RULE = "def rule(facts):\n    return {'many_orders': facts.get('orders_count', 0) > 100}\n"
NOTE = b"# Note\n\nLa relation a dure onze ans. Preavis de trois mois.\n"


def _id_routes() -> set[tuple[str, str]]:
    app = create_app(ApiSettings(db_url="sqlite://", data_dir="/tmp/unused-lexlogic"))
    return {
        (method.upper(), path)
        for path, ops in app.openapi()["paths"].items()
        if "{" in path
        for method in ops
        if not path.startswith("/v1/packs")
    }


def test_other_tenant_gets_404_on_every_id_endpoint(api: Api) -> None:
    c = api.client
    case = api.create_facts_case("a")
    up = c.post(
        f"/v1/cases/{case}/documents", files={"file": ("00-note.md", NOTE, "text/markdown")}, headers=api.h("a")
    )
    assert up.status_code == 201, up.text
    doc = up.json()["id"]
    bg = c.post(
        f"/v1/cases/{case}/documents",
        params={"background": "true"},
        files={"file": ("01-bg.md", NOTE, "text/markdown")},
        headers=api.h("a"),
    )
    assert bg.status_code == 202, bg.text
    job = bg.json()["id"]
    for _ in range(300):
        if c.get(f"/v1/cases/{case}/documents/jobs/{job}", headers=api.h("a")).json()["status"] in ("done", "failed"):
            break
        time.sleep(0.1)
    run = c.post(f"/v1/cases/{case}/run?stream=false", headers=api.h("a"))
    assert run.status_code == 200 and run.json()["status"] == "verdict", run.text
    rule = c.post("/v1/dynamic-rules", json={"text": RULE, "author": "gpt-4o", "case_id": case}, headers=api.h("a"))
    assert rule.status_code == 201, rule.text
    rid = rule.json()["id"]
    calls = {
        ("GET", "/v1/cases/{case_id}"): lambda: c.get(f"/v1/cases/{case}", headers=api.h("b")),
        ("GET", "/v1/cases/{case_id}/documents"): lambda: c.get(f"/v1/cases/{case}/documents", headers=api.h("b")),
        ("POST", "/v1/cases/{case_id}/documents"): lambda: c.post(
            f"/v1/cases/{case}/documents", files={"file": ("x.md", NOTE, "text/markdown")}, headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/documents/{doc_id}"): lambda: c.get(
            f"/v1/cases/{case}/documents/{doc}", headers=api.h("b")
        ),
        ("DELETE", "/v1/cases/{case_id}/documents/{doc_id}"): lambda: c.delete(
            f"/v1/cases/{case}/documents/{doc}", headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/documents/{doc_id}/text"): lambda: c.get(
            f"/v1/cases/{case}/documents/{doc}/text", headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/documents/jobs/{job_id}"): lambda: c.get(
            f"/v1/cases/{case}/documents/jobs/{job}", headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/documents/jobs/{job_id}/events"): lambda: c.get(
            f"/v1/cases/{case}/documents/jobs/{job}/events", headers=api.h("b")
        ),
        ("POST", "/v1/cases/{case_id}/run"): lambda: c.post(f"/v1/cases/{case}/run?stream=false", headers=api.h("b")),
        ("GET", "/v1/cases/{case_id}/states"): lambda: c.get(f"/v1/cases/{case}/states", headers=api.h("b")),
        ("GET", "/v1/cases/{case_id}/states/{seq}"): lambda: c.get(f"/v1/cases/{case}/states/1", headers=api.h("b")),
        ("POST", "/v1/cases/{case_id}/states/{seq}/restore"): lambda: c.post(
            f"/v1/cases/{case}/states/1/restore", headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/verdict"): lambda: c.get(f"/v1/cases/{case}/verdict", headers=api.h("b")),
        ("POST", "/v1/cases/{case_id}/what-if"): lambda: c.post(
            f"/v1/cases/{case}/what-if", json={"answers": {"fault_serious": True}}, headers=api.h("b")
        ),
        ("POST", "/v1/cases/{case_id}/sensitivity"): lambda: c.post(
            f"/v1/cases/{case}/sensitivity", json={}, headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/questions"): lambda: c.get(f"/v1/cases/{case}/questions", headers=api.h("b")),
        ("POST", "/v1/cases/{case_id}/answers"): lambda: c.post(
            f"/v1/cases/{case}/answers", json={"answers": {"fault_serious": True}}, headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/graph"): lambda: c.get(f"/v1/cases/{case}/graph", headers=api.h("b")),
        # dynamic rules (owned through api_rule_owners)
        ("GET", "/v1/dynamic-rules/{rule_id}"): lambda: c.get(f"/v1/dynamic-rules/{rid}", headers=api.h("b")),
        ("POST", "/v1/dynamic-rules/{rule_id}/approve"): lambda: c.post(
            f"/v1/dynamic-rules/{rid}/approve", json={"by": "Me B"}, headers=api.h("b")
        ),
        ("POST", "/v1/dynamic-rules/{rule_id}/retire"): lambda: c.post(
            f"/v1/dynamic-rules/{rid}/retire", json={"by": "Me B"}, headers=api.h("b")
        ),
        ("POST", "/v1/dynamic-rules/{rule_id}/run"): lambda: c.post(
            f"/v1/dynamic-rules/{rid}/run", json={"facts": {"orders_count": 1}}, headers=api.h("b")
        ),
        ("POST", "/v1/cases/{case_id}/dynamic-rules/run"): lambda: c.post(
            f"/v1/cases/{case}/dynamic-rules/run", headers=api.h("b")
        ),
        ("POST", "/v1/cases/{case_id}/claims/verify"): lambda: c.post(
            f"/v1/cases/{case}/claims/verify", json={"claims": ["La relation a duré onze ans."]}, headers=api.h("b")
        ),
        # evidence graph of the case
        ("POST", "/v1/cases/{case_id}/evidence-graph/extract"): lambda: c.post(
            f"/v1/cases/{case}/evidence-graph/extract", headers=api.h("b")
        ),
        ("GET", "/v1/cases/{case_id}/evidence-graph/entities/{entity}"): lambda: c.get(
            f"/v1/cases/{case}/evidence-graph/entities/relation", headers=api.h("b")
        ),
    }
    assert set(calls) == _id_routes(), "a route taking an id is not covered by this test"
    before = c.get(f"/v1/cases/{case}/states", headers=api.h("a")).json()
    for (method, path), call in calls.items():
        r = call()
        assert r.status_code == 404, (method, path, r.status_code, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        body = r.json()
        assert body["status"] == 404 and "tenant" not in (body.get("detail") or "").lower()
        assert case not in (body.get("detail") or "") or "no case" in body["detail"]
        assert rid not in (body.get("detail") or "") or "no dynamic rule" in body["detail"]
    # nothing leaked or changed: A still sees its case, unchanged, and B lists nothing
    assert c.get(f"/v1/cases/{case}/states", headers=api.h("a")).json() == before
    assert [d["id"] for d in c.get(f"/v1/cases/{case}/documents", headers=api.h("a")).json()] == [doc, "01-bg"]
    assert c.get("/v1/cases", headers=api.h("b")).json()["items"] == []
    assert c.get("/v1/dynamic-rules", headers=api.h("b")).json() == []
    mine = c.get(f"/v1/dynamic-rules/{rid}", headers=api.h("a")).json()
    assert mine["status"] == "proposed" and [e["to_status"] for e in mine["history"]] == ["proposed"]
    assert c.get(f"/v1/cases/{case}/evidence-graph/entities/relation", headers=api.h("a")).json()["level"] == "NONE"
    assert [x["id"] for x in c.get("/v1/cases", headers=api.h("a")).json()["items"]] == [case]
    # and the owner gets 200 on the same reads
    for path in (
        f"/v1/cases/{case}",
        f"/v1/cases/{case}/documents/{doc}/text",
        f"/v1/cases/{case}/verdict",
        f"/v1/cases/{case}/graph",
        f"/v1/cases/{case}/states/1",
    ):
        assert c.get(path, headers=api.h("a")).status_code == 200, path


def test_unknown_and_revoked_keys_are_401(api: Api) -> None:
    c = api.client
    assert c.get("/v1/cases").status_code == 401
    r = c.get("/v1/cases", headers={"X-API-Key": "llx_nope_nope"})
    assert r.status_code == 401 and r.headers["content-type"].startswith("application/problem+json")
    assert r.headers.get("www-authenticate", "").startswith("Bearer")
    assert c.get("/v1/cases", headers={"Authorization": f"Bearer {api.key_a}"}).status_code == 200
    svc = c.app.state.services  # type: ignore[attr-defined]
    key_id, secret = split_key(api.key_a)  # type: ignore[misc]
    tampered = f"llx_{key_id}_{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}"
    assert c.get("/v1/cases", headers={"X-API-Key": tampered}).status_code == 401
    assert svc.tenants.revoke(key_id)
    assert c.get("/v1/cases", headers=api.h("a")).status_code == 401
    assert c.get("/v1/cases", headers=api.h("b")).status_code == 200


def test_keys_are_hashed_at_rest(db_url: str) -> None:
    store = TenantStore(db_url)
    key_id, key = store.create_key("t", "ci")
    secret = split_key(key)[1]  # type: ignore[index]
    from sqlalchemy import text

    with store.engine.connect() as conn:
        rows = conn.execute(text("SELECT key_id, secret_sha256 FROM api_keys")).all()
    assert rows and all(secret not in str(r) for r in rows)
    assert re.fullmatch(r"[0-9a-f]{64}", rows[0][1])
    assert store.authenticate(key) == store.tenant("t", create=False)
    store.close()
