"""The optional routers: dynamic rules (per tenant, run in the sandbox), evidence graph of a case's
documents, fallacy analysis of a text."""

from __future__ import annotations

from tests.support.api_app import Api

RULE = "def rule(facts):\n    return {'long_relation': facts.get('orders_count', 0) > 100}\n"
DOC = (
    "# Contrat cadre\n\n## Article 1 — Loi applicable\n\nPar défaut, le droit français s'applique au présent "
    "contrat.\n\n## Article 9 — Litiges\n\nPar défaut, le droit français s'applique au présent contrat.\n"
).encode()


def test_dynamic_rule_lifecycle_and_runs(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    r = c.post(
        "/v1/dynamic-rules",
        json={"text": RULE, "author": "gpt-4o", "output_schema": {"long_relation": "bool"}, "reliability": 0.6},
        headers=api.h(),
    )
    assert r.status_code == 201, r.text
    rule = r.json()
    assert rule["status"] == "proposed" and rule["history"][0]["to_status"] == "proposed"
    rid = rule["id"]
    # a rule refused by the sandbox policy is never stored (422 naming the line)
    bad = c.post(
        "/v1/dynamic-rules",
        json={"text": "import os\ndef rule(facts):\n    return 1\n", "author": "x"},
        headers=api.h(),
    )
    assert bad.status_code == 422 and ":1" in bad.json()["detail"]
    # dry run in the sandbox, any status
    run = c.post(f"/v1/dynamic-rules/{rid}/run", json={"facts": {"orders_count": 540}}, headers=api.h()).json()
    assert run["output"] == {"long_relation": True} and run["facts"][0]["reliability"] == 0.6
    premises = run["provenance"]["sets"][run["facts"][0]["premises"]]  # premises named by id, stored once
    assert (
        run["facts"][0]["proof"]["kind"] == "dynamic"
        and run["provenance"]["nodes"][premises[0]]["atom"] == "orders_count"
    )
    # the author cannot approve their own rule, nor can the key that proposed it; another key can
    assert c.post(f"/v1/dynamic-rules/{rid}/approve", json={"by": "gpt-4o"}, headers=api.h("a2")).status_code == 409
    assert c.post(f"/v1/dynamic-rules/{rid}/approve", json={"by": "Me Dupont"}, headers=api.h()).status_code == 403
    a = c.post(f"/v1/dynamic-rules/{rid}/approve", json={"by": "Me Dupont"}, headers=api.h("a2")).json()
    assert a["status"] == "active" and a["approved_by"] == "Me Dupont"
    assert "[approved with key" in a["history"][1]["note"]
    # active rules run on a case's facts
    cid = api.create_facts_case()
    out = c.post(f"/v1/cases/{cid}/dynamic-rules/run", headers=api.h()).json()
    assert [(f["name"], f["value"]) for f in out["facts"]] == [("long_relation", True)] and out["failures"] == []
    # tenant B sees nothing, runs nothing of A's, and the same text is no duplicate for B
    assert c.get("/v1/dynamic-rules", headers=api.h("b")).json() == []
    assert [x["id"] for x in c.get("/v1/dynamic-rules", headers=api.h()).json()] == [rid]
    cid_b = api.create_facts_case("b")
    assert c.post(f"/v1/cases/{cid_b}/dynamic-rules/run", headers=api.h("b")).json()["facts"] == []
    assert c.post("/v1/dynamic-rules", json={"text": RULE, "author": "gpt-4o"}, headers=api.h("b")).status_code == 201
    assert c.post("/v1/dynamic-rules", json={"text": RULE, "author": "gpt-4o"}, headers=api.h()).status_code == 422
    # scoping to another tenant's case: not found
    assert (
        c.post(
            "/v1/dynamic-rules", json={"text": RULE + "\n", "author": "x", "case_id": cid}, headers=api.h("b")
        ).status_code
        == 404
    )
    # retire (final)
    ret = c.post(f"/v1/dynamic-rules/{rid}/retire", json={"by": "Me Dupont", "reason": "obsolete"}, headers=api.h())
    assert ret.json()["status"] == "retired"
    assert c.post(f"/v1/dynamic-rules/{rid}/approve", json={"by": "Me Dupont"}, headers=api.h("a2")).status_code == 409
    assert c.post(f"/v1/cases/{cid}/dynamic-rules/run", headers=api.h()).json()["facts"] == []
    # a runaway rule is stopped by the sandbox and reported, never a 5xx
    loop = c.post(
        "/v1/dynamic-rules",
        json={"text": "def rule(facts):\n    while True:\n        pass\n", "author": "x"},
        headers=api.h(),
    ).json()["id"]
    res = c.post(f"/v1/dynamic-rules/{loop}/run", json={"facts": {}}, headers=api.h()).json()
    assert res["facts"] == [] and res["failures"][0]["kind"] == "limit"


def test_evidence_graph_of_a_case(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = c.post("/v1/cases", json={"pack": "rupture_brutale"}, headers=api.h()).json()["id"]
    assert c.post(f"/v1/cases/{cid}/evidence-graph/extract", headers=api.h()).status_code == 409  # no documents
    up = c.post(f"/v1/cases/{cid}/documents", files={"file": ("contrat.md", DOC, "text/markdown")}, headers=api.h())
    assert up.status_code == 201, up.text
    ex = c.post(f"/v1/cases/{cid}/evidence-graph/extract", headers=api.h()).json()
    assert ex["documents"] == ["contrat"] and ex["method"] == "PATTERN" and ex["assertions"] >= 1
    assert ex["promoted"] >= 1 and sum(ex["by_tier"].values()) == ex["promoted"]
    again = c.post(f"/v1/cases/{cid}/evidence-graph/extract", headers=api.h()).json()
    assert again["skipped"] == ["contrat"] and again["assertions"] == 0 and again["promoted"] == ex["promoted"]
    # a discursive assertion seen in two sections is promoted STRICT; the query returns it with grade and tier
    assert ex["by_tier"]["STRICT"] == 1
    q = c.get(f"/v1/cases/{cid}/evidence-graph/entities/droit français", headers=api.h()).json()
    assert q["level"] == "STRICT" and len(q["edges"]) == 1
    e = q["edges"][0]
    assert e["relation"] == "APPLIES_TO" and e["tier"] == "STRICT" and e["grade"] and "contrat" in e["target"]
    # the other tenant cannot reach this case's graph
    assert c.get(f"/v1/cases/{cid}/evidence-graph/entities/droit français", headers=api.h("b")).status_code == 404
    assert c.get(f"/v1/cases/{cid}/evidence-graph/entities/x?depth=0", headers=api.h()).status_code == 422


def test_fallacies(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    r = c.post(
        "/v1/fallacies/analyse",
        json={"text": "Tout le monde le fait, donc c'est forcément légal.", "navigator": "offline", "trace": True},
        headers=api.h(),
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["outcome"] in ("fallacies", "no_fallacy") and body["navigator"] and body["trace"]
    if body["outcome"] == "fallacies":
        assert body["confirmed"][0]["trail"] and 0 <= body["confirmed"][0]["confidence"] <= 1
    else:
        assert body["reason"]
    assert c.post("/v1/fallacies/analyse", json={"text": "x"}).status_code == 401
    r = c.post("/v1/fallacies/analyse", json={"text": "x", "navigator": "llm"}, headers=api.h())
    assert r.status_code == 422 and "LLM" in r.json()["detail"]


def test_claims_against_the_case_documents(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = c.post("/v1/cases", json={"pack": "rupture_brutale"}, headers=api.h()).json()["id"]
    note = "# Note\n\nLa relation commerciale a duré onze ans. Le préavis accordé était de trois mois.\n".encode()
    assert (
        c.post(
            f"/v1/cases/{cid}/documents", files={"file": ("note.md", note, "text/markdown")}, headers=api.h()
        ).status_code
        == 201
    )
    r = c.post(
        f"/v1/cases/{cid}/claims/verify", json={"claims": ["Le préavis accordé était de trois mois."]}, headers=api.h()
    )
    assert r.status_code == 200, r.text
    res = r.json()["results"][0]
    assert res["status"] in ("VERIFIED", "CONTRADICTED", "AMBIGUOUS", "UNKNOWN")
    if res["status"] == "VERIFIED":
        assert res["evidence"]["document_id"] == "note" and "trois mois" in res["evidence"]["content"]
    assert c.post(f"/v1/cases/{cid}/claims/verify", json={"claims": []}, headers=api.h()).status_code == 422
