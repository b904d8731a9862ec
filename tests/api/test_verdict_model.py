"""The API's verdict is engine.verdict.decide: P(liable) overall and per narrative, entropy, method, EIG
questions from the real model; what-if takes prior overrides and Alexy magnitudes, saved only on request."""

from __future__ import annotations

import copy

import pytest

from tests.support.api_app import EXAMPLE, Api
from tests.support.deciding import decide_case


def _case(**facts: object) -> dict:
    case = copy.deepcopy(EXAMPLE)
    for k, v in facts.items():
        if v is None:
            case["facts"].pop(k, None)
        else:
            case["facts"][k] = v
    return case


AMBIGUOUS = _case(
    notice_written=None,
    rupture_kind={
        "value": "total",
        "confidence": 0.6,
        "world": "NARRATIVE_A",
        "alternatives": [{"value": "partial_volume", "confidence": 0.4, "world": "NARRATIVE_B"}],
    },
)
APPRECIATION = _case(notice_given_months=12)  # inside the range of reasonable notice: the judge's call


def test_verdict_is_the_probabilistic_model(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case(case_file=AMBIGUOUS)
    v = c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    ref = decide_case(AMBIGUOUS)
    p = v["probability"]
    assert p["method"] == "exact" and p["n_worlds"] == ref.probability.n_worlds
    assert p["p_target"] == pytest.approx(ref.probability.p_target)
    assert p["p_target_by_narrative"] == pytest.approx(ref.probability.p_target_by_narrative)
    assert p["p_narrative"] == pytest.approx({"NARRATIVE_A": 0.6, "NARRATIVE_B": 0.4})
    assert p["entropy"] == pytest.approx(ref.probability.entropy) and 0 < p["entropy"] <= 1
    assert v["status"] == "needs_information" and v["label"] == "UNDETERMINED"
    worlds = {w["world"]: w for w in v["worlds"]}
    assert worlds["NARRATIVE_A"]["p_target"] == pytest.approx(1.0) and v["main_world"] == "NARRATIVE_A"
    # EIG ranking of the real model: the ambiguity first, with its readings as options
    q = v["questions"]
    assert [x["fact"] for x in q] == [x["fact"] for x in ref.questions]
    assert q[0]["fact"] == "rupture_kind" and q[0]["options"] == ["total", "partial_volume"]
    assert q[0]["eig"] == pytest.approx(ref.questions[0]["eig"]) and q[0]["utility"] == pytest.approx(q[0]["eig"])
    assert v["best_question"]["fact"] == "rupture_kind"
    kinds = {s["name"]: s for s in v["sliders"]}
    assert kinds["rupture_kind"]["kind"] == "ambiguity" and kinds["rupture_kind"]["value"] == pytest.approx(0.6)
    assert kinds["notice_written"]["kind"] == "prior" and kinds["notice_written"]["default"] == pytest.approx(0.7)
    assert {f"confiance_vs_liberte.{k}" for k in ("I1", "W1", "R1", "I2", "W2", "R2")} <= set(kinds)
    assert kinds["confiance_vs_liberte.R2"]["default"] == 1.0 and kinds["confiance_vs_liberte.R1"]["default"] == 0.5
    assert "rupture_kind__A" not in kinds  # the pair is one ambiguity slider
    qs = c.get(f"/v1/cases/{cid}/questions", headers=api.h()).json()
    assert qs["questions"][0]["fact"] == "rupture_kind" and qs["questions"][0]["eig"] > 0


def test_what_if_priors_and_alexy_weights(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case(case_file=AMBIGUOUS)
    url, h = f"/v1/cases/{cid}/what-if", api.h()
    base = c.get(f"/v1/cases/{cid}/verdict", headers=h).json()["probability"]["p_target"]
    # the ambiguity weight: narrative A certain → A's P(liable) (= 1)
    a = c.post(url, json={"priors": {"rupture_kind": 1.0}}, headers=h).json()["probability"]
    assert a["p_target"] == pytest.approx(1.0) and a["p_target"] > base
    # a variable's prior goes to decide's what-if, exactly
    r = c.post(url, json={"priors": {"rupture_kind__A": 0.9}}, headers=h).json()
    assert r["probability"]["p_target"] == pytest.approx(
        decide_case(AMBIGUOUS, whatif={"rupture_kind__A": 0.9}).probability.p_target
    )
    # Alexy magnitudes move P(liable) where the judge's appreciation decides
    cid2 = api.create_facts_case(case_file=APPRECIATION)
    url2 = f"/v1/cases/{cid2}/what-if"
    ps = [
        c.post(url2, json={"weights": {"confiance_vs_liberte.I1": lvl}}, headers=h).json()["probability"]["p_target"]
        for lvl in ("l", 2, "s")
    ]
    assert ps[0] < ps[1] < ps[2]
    assert ps[2] == pytest.approx(
        decide_case(APPRECIATION, whatif={"confiance_vs_liberte.I1": 4.0}).probability.p_target
    )
    # the verdict carries the rule's six magnitudes as sliders, about the judge's call they weigh on
    alexy = [s for s in c.get(f"/v1/cases/{cid2}/verdict", headers=h).json()["sliders"] if s["kind"] == "alexy"]
    assert sorted(s["name"] for s in alexy) == sorted(
        f"confiance_vs_liberte.{k}" for k in ("I1", "W1", "R1", "I2", "W2", "R2")
    )
    assert {s["fact"] for s in alexy} == {"judge_finds_notice_insufficient"}
    # …and only there: outside the range (no notice at all; a notice past the range's top) the judge weighs
    # nothing, so no magnitude moves P(liable)
    for months in (0, 36):
        outside = _case(notice_given_months=months)
        p = {
            decide_case(outside, whatif={f"confiance_vs_liberte.{k}": v}).probability.p_target
            for k, v in (("I1", "l"), ("I1", "s"), ("R2", 0.125), ("W2", 8.0))
        }
        assert len(p) == 1, (months, p)
    w = c.post(url2, json={"weights": {"confiance_vs_liberte.R2": 0.25}}, headers=h).json()
    assert w["weights"] == {"confiance_vs_liberte.R2": 0.25}
    assert next(s for s in w["sliders"] if s["name"] == "confiance_vs_liberte.R2")["value"] == 0.25
    # nothing saved
    assert c.get(f"/v1/cases/{cid2}/verdict", headers=h).json()["probability"]["p_target"] == pytest.approx(ps[1])
    # problems: unknown names, out-of-range, persist of a transient hypothesis
    bad = c.post(url2, json={"weights": {"nope.I1": 2}}, headers=h)
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.weights.nope.I1"
    bad = c.post(url2, json={"priors": {"fault_serious": 0.5}}, headers=h)  # a known fact: no prior to move
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.priors.fault_serious"
    bad = c.post(url, json={"priors": {"notice_written": 1.5}}, headers=h)
    assert bad.status_code == 422
    bad = c.post(url2, json={"weights": {"confiance_vs_liberte.I1": 4}, "persist": True}, headers=h)
    assert bad.status_code == 422 and "persist" in bad.json()["detail"]
    assert len(c.get(f"/v1/cases/{cid2}/states", headers=h).json()) == 1


def test_saved_ambiguity_weight_and_answer(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case(case_file=AMBIGUOUS)
    h = api.h()
    r = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {"rupture_kind": 0.9}, "persist": True}, headers=h)
    assert r.status_code == 200
    assert r.json()["probability"]["p_narrative"]["NARRATIVE_A"] == pytest.approx(0.9)
    assert c.get(f"/v1/cases/{cid}/verdict", headers=h).json()["probability"]["p_narrative"][
        "NARRATIVE_A"
    ] == pytest.approx(0.9)
    # answering the ambiguity settles it: one narrative left, P(liable) from the model
    a = c.post(f"/v1/cases/{cid}/answers", json={"answers": {"rupture_kind": "total"}}, headers=h).json()
    assert a["probability"]["p_narrative"] == {} and a["answers"]["rupture_kind"] == "total"
    assert all(s["name"] != "rupture_kind" for s in a["sliders"])
    # the saved answer is part of the model: a prior on notice_written still works on top of it
    w = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {"notice_written": 0.0}}, headers=h).json()
    assert w["probability"]["p_target"] == pytest.approx(
        decide_case(AMBIGUOUS, {"rupture_kind": "total"}, {"notice_written": 0.0}).probability.p_target
    )


def test_a_what_if_asked_again_is_served_from_the_cache_without_a_model(
    sqlite_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: a cached what-if rebuilt the whole case model (to validate its priors) before looking at
    the cache. Asked again, it is a hit that builds nothing; a new case state (an answer saved) is a miss."""
    from lexlogic.engine.verdict import build

    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case(case_file=AMBIGUOUS)
    url, h = f"/v1/cases/{cid}/what-if", api.h()
    body = {"priors": {"rupture_kind__A": 0.9}}
    first = c.post(url, json=body, headers=h)
    assert first.status_code == 200
    built: list[int] = []
    real = build.model_of
    monkeypatch.setattr(build, "model_of", lambda *a, **k: built.append(1) or real(*a, **k))
    again = c.post(url, json=body, headers=h)
    assert again.headers["X-Cache"] == "hit" and not built
    assert again.json()["probability"]["p_target"] == first.json()["probability"]["p_target"]
    bad = c.post(url, json={"priors": {"no_such_fact": 0.5}}, headers=h)  # never cached: still validated
    assert bad.status_code == 422
