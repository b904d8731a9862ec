"""The slider ranking under new hypotheses computes no verdict (issue 33): its sliders come from the cached
case model and equal the verdict's own, and every slider's ends equal the what-if verdict's P (the checks of
tests/api/test_sensitivity_login.py run on this path too)."""

from __future__ import annotations

import pytest

from lexlogic.engine.verdict import build
from tests.support.api_app import Api


def test_ranking_under_new_hypotheses_builds_no_verdict(sqlite_api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    v = c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    hyp = {"priors": {v["sliders"][0]["name"]: 0.37}, "weights": {"confiance_vs_liberte.I1": 4.0}}
    built: list[int] = []
    real = build.build_verdict
    monkeypatch.setattr(build, "build_verdict", lambda *a, **k: built.append(1) or real(*a, **k))
    r = c.post(f"/v1/cases/{cid}/sensitivity", json=hyp, headers=api.h())
    assert r.status_code == 200, r.text
    assert not built, "the ranking computed a verdict"
    monkeypatch.undo()
    expected = c.post(f"/v1/cases/{cid}/what-if", json=hyp, headers=api.h()).json()["sliders"]  # asked after
    assert {s["name"] for s in r.json()["sliders"]} == {s["name"] for s in expected}


def test_slider_list_equals_the_verdict_sliders(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    svc = c.app.state.services  # type: ignore[attr-defined]
    cid = api.create_facts_case()
    first = c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    case = svc.cases.get_case(svc.tenants.principal(api.key_a)[0], cid)
    stored = svc.runs.get(case.run_id, svc.runs.head_seq(case.run_id))["case_file"]
    for priors, weights in [({}, {}), ({first["sliders"][0]["name"]: 0.2}, {"confiance_vs_liberte.R2": 0.25})]:
        v = c.post(f"/v1/cases/{cid}/what-if", json={"priors": priors, "weights": weights}, headers=api.h()).json()
        got = build.slider_list(svc.packs, svc.verdicts.read(stored), {}, priors, weights)
        assert [s.model_dump(mode="json") for s in got] == v["sliders"]
