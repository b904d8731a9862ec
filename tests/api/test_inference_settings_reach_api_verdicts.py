"""A deployment's ``LEXLOGIC_INFERENCE_*`` reach the verdicts the API serves (issue 33): GET …/verdict, a
what-if and a new case's verdict computed in the background all come from the verdict service, which used the
built-in limits whatever the settings said. A tiny ``inference_max_intermediate`` must move their route from the
contraction to sampling, as it does for the CLI (tests/prob/test_inference_settings_reach_verdicts.py)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lexlogic.settings import Settings
from tests.prob.real_cases import make_case
from tests.support.api_app import Api, make_api


def _plans(api: Api, case_file: dict[str, Any]) -> list[dict[str, Any]]:
    """The probability plans of a new case's verdict and of one of its what-ifs."""
    c = api.client
    cid = api.create_facts_case(case_file=case_file)
    v = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    assert v.status_code == 200, v.text
    prior = next(s["name"] for s in v.json()["sliders"] if s["group"] == "priors")
    w = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {prior: 0.3}}, headers=api.h())
    assert w.status_code == 200, w.text
    return [v.json()["probability"]["plan"], w.json()["probability"]["plan"]]


def test_the_settings_limits_choose_the_route_of_api_verdicts(tmp_path: Path) -> None:
    case_file = make_case(12, 0)
    app = contextmanager(make_api)  # closed (its background threads too) even when an assertion fails
    with app(f"sqlite:///{tmp_path / 'default.db'}", tmp_path / "default") as default:
        for plan in _plans(default, case_file):
            assert plan["route"] == "contraction", plan
    narrow_settings = Settings(inference_max_intermediate=1)
    with app(f"sqlite:///{tmp_path / 'narrow.db'}", tmp_path / "narrow", core=narrow_settings) as narrow:
        for plan in _plans(narrow, case_file):
            assert plan["route"] == "sampling" and "limits 1 entries" in str(plan["reason"]), plan
            assert plan["samples"] and int(plan["samples"]) <= 1 << 18


def _ranking_p(api: Api, case_file: dict[str, Any]) -> float:
    """P(target) of the slider ranking (POST …/sensitivity) of a new case."""
    cid = api.create_facts_case(case_file=case_file)
    r = api.client.post(f"/v1/cases/{cid}/sensitivity", json={}, headers=api.h())
    assert r.status_code == 200, r.text
    return float(r.json()["p_target"])


def test_the_settings_limits_reach_the_slider_ranking(tmp_path: Path) -> None:
    """The ranking used the built-in limits (and its own copy of the enumeration limit) whatever the settings
    said: with a tiny ``inference_max_intermediate`` its P(target) is now a sampled estimate, near the exact one."""
    case_file = make_case(12, 0)
    app = contextmanager(make_api)
    with app(f"sqlite:///{tmp_path / 'default.db'}", tmp_path / "default") as default:
        exact = _ranking_p(default, case_file)
    narrow_settings = Settings(inference_max_intermediate=1)
    with app(f"sqlite:///{tmp_path / 'narrow.db'}", tmp_path / "narrow", core=narrow_settings) as narrow:
        sampled = _ranking_p(narrow, case_file)
    assert sampled != exact and abs(sampled - exact) < 0.05, (exact, sampled)
