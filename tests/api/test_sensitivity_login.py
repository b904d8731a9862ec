"""The sliders ranked in one call (checked against the what-if verdict, an independent path: full verdict
build per point) and the local mode's one-time login token."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from lexlogic.api.local_login import LoginTokens
from tests.support.api_app import EXAMPLE, Api


def _whatif_p(api: Api, cid: str, slider: dict, x: float) -> float:
    body = {slider["group"]: {slider["name"]: x}}
    r = api.client.post(f"/v1/cases/{cid}/what-if", json=body, headers=api.h())
    assert r.status_code == 200, r.text
    return r.json()["probability"]["p_target"]


@pytest.mark.parametrize("notice", [None, 12])
def test_sensitivity_equals_what_if_at_both_ends(sqlite_api: Api, notice: int | None) -> None:
    case = copy.deepcopy(EXAMPLE)
    if notice is not None:  # inside the range of reasonable notice: the judge's appreciation (Alexy) matters
        case["facts"]["notice_given_months"] = notice
    cid = sqlite_api.create_facts_case(case_file=case)
    v = sqlite_api.client.get(f"/v1/cases/{cid}/verdict", headers=sqlite_api.h()).json()
    r = sqlite_api.client.post(f"/v1/cases/{cid}/sensitivity", json={}, headers=sqlite_api.h())
    assert r.status_code == 200, r.text
    assert r.headers["x-cache"] == "miss"
    body = r.json()
    assert body["p_target"] == pytest.approx(v["probability"]["p_target"], abs=1e-9)
    ranked = body["sliders"]
    assert {s["name"] for s in ranked} == {s["name"] for s in v["sliders"]}
    spreads = [s["sensitivity"] for s in ranked]
    assert spreads == sorted(spreads, reverse=True)
    by_name = {s["name"]: s for s in v["sliders"]}
    for eff in ranked:
        s = by_name[eff["name"]]
        assert eff["p_min"] == pytest.approx(_whatif_p(sqlite_api, cid, s, s["min"]), abs=1e-6), eff
        assert eff["p_max"] == pytest.approx(_whatif_p(sqlite_api, cid, s, s["max"]), abs=1e-6), eff
    if notice is not None:
        assert any(e["kind"] == "alexy" and e["sensitivity"] > 0.01 for e in ranked), ranked
    again = sqlite_api.client.post(f"/v1/cases/{cid}/sensitivity", json={}, headers=sqlite_api.h())
    assert again.headers["x-cache"] == "hit" and again.json() == body


DOSSIER_CASE = Path(__file__).parent / "data" / "dossier_case_file.json"  # what the reader made of the example dossier


def _whatif_at(api: Api, cid: str, hyp: dict, slider: dict, x: float) -> float:
    body = {g: dict(hyp.get(g, {})) for g in ("priors", "weights")}
    body[slider["group"]][slider["name"]] = x
    r = api.client.post(f"/v1/cases/{cid}/what-if", json=body, headers=api.h())
    assert r.status_code == 200, r.text
    return r.json()["probability"]["p_target"]


@pytest.mark.parametrize(
    "hyp",
    [{}, {"priors": {"fault_serious": 0.9, "rupture_kind": 0.3}, "weights": {"confiance_vs_liberte.I1": 4}}],
    ids=["as-read", "with-hypotheses"],
)
def test_one_pass_ranking_on_the_read_dossier_equals_what_if(sqlite_api: Api, hyp: dict) -> None:
    """The machine-read dossier (every reading a variable, an ambiguity between the narratives, the judge's
    call with a folded Alexy rule): the one-pass ends (closed form for priors, one inference on the same
    model for the others) equal the what-if verdict's P — a full verdict build per point, another path —
    for the ambiguity, every Alexy magnitude and the priors at both ends of the ranking."""
    case = json.loads(DOSSIER_CASE.read_text())
    cid = sqlite_api.create_facts_case(case_file=case)
    r = sqlite_api.client.post(f"/v1/cases/{cid}/sensitivity", json=hyp, headers=sqlite_api.h())
    assert r.status_code == 200, r.text
    body = r.json()
    # one model for the whole ranking (the former path built 8); a hypothesis the model builder consumed
    # (P(fault_serious) = 0.9 becomes the fact's prior) sends its own slider to the former path: one more
    assert body["models"] == (1 if not hyp else 2), body
    v = sqlite_api.client.post(f"/v1/cases/{cid}/what-if", json=hyp, headers=sqlite_api.h()).json()
    assert body["p_target"] == pytest.approx(v["probability"]["p_target"], abs=1e-9)
    ranked = body["sliders"]
    priors = [e for e in ranked if e["kind"] == "prior"]
    assert len(priors) >= 10 and any(e["kind"] == "ambiguity" for e in ranked)
    chosen = [e for e in ranked if e["kind"] != "prior"] + priors[:4] + priors[-2:]
    by_name = {s["name"]: s for s in v["sliders"]}
    for eff in chosen:
        s = by_name[eff["name"]]
        assert eff["p_min"] == pytest.approx(_whatif_at(sqlite_api, cid, hyp, s, s["min"]), abs=1e-6), eff
        assert eff["p_max"] == pytest.approx(_whatif_at(sqlite_api, cid, hyp, s, s["max"]), abs=1e-6), eff
    assert priors[0]["sensitivity"] > 0.05  # the closed form moves P (not a constant)


def test_sensitivity_refuses_an_unknown_hypothesis(sqlite_api: Api) -> None:
    cid = sqlite_api.create_facts_case()
    r = sqlite_api.client.post(
        f"/v1/cases/{cid}/sensitivity", json={"priors": {"no_such_fact": 0.3}}, headers=sqlite_api.h()
    )
    assert r.status_code == 422 and "no_such_fact" in r.text
    assert sqlite_api.client.post(f"/v1/cases/{cid}/sensitivity", json={}).status_code == 401


def test_login_token_is_single_use_and_expires(sqlite_api: Api) -> None:
    tokens = sqlite_api.client.app.state.login_tokens  # type: ignore[attr-defined]
    token = tokens.issue(sqlite_api.key_a)
    r = sqlite_api.client.post("/v1/login", json={"token": token})
    assert r.status_code == 200 and r.json() == {"key": sqlite_api.key_a}
    again = sqlite_api.client.post("/v1/login", json={"token": token})
    assert again.status_code == 401 and "already used" in again.json()["detail"]
    now = [0.0]
    clock = LoginTokens(clock=lambda: now[0])
    t = clock.issue("k", ttl=10)
    now[0] = 11
    assert clock.redeem(t) is None
    assert sqlite_api.client.post("/v1/login", json={"token": "x" * 43}).status_code == 401
    assert sqlite_api.client.post("/v1/login", json={}).status_code == 422


def test_serve_on_loopback_prints_a_one_time_login_link(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`lexlogic serve` (a real process on 127.0.0.1): a login link on stderr, redeemed once for a working key."""
    import os
    import re
    import signal
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "LEXLOGIC_HOME": str(tmp_path / "home")}
    env.pop("LEXLOGIC_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "lexlogic.api", "serve", "--port", str(port), "--log-level", "warning"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        url = None
        deadline = time.monotonic() + 90
        assert proc.stderr is not None
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            m = re.search(r"(http://127\.0\.0\.1:\d+/\?login=[\w-]+)", line)
            url = m.group(1) if m else None
        assert url, "no login link printed"
        token = url.split("login=")[1]
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code in (200, 503):
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        r = httpx.post(f"http://127.0.0.1:{port}/v1/login", json={"token": token})
        assert r.status_code == 200, r.text
        key = r.json()["key"]
        assert httpx.get(f"http://127.0.0.1:{port}/v1/cases", headers={"X-API-Key": key}).status_code == 200
        assert httpx.post(f"http://127.0.0.1:{port}/v1/login", json={"token": token}).status_code == 401
        assert key not in url  # the key itself never travels in the URL
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
