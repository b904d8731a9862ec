"""Fuzzing with poisons: NaN/±Infinity tokens, NUL and control characters, huge strings and numbers,
impossible dates, deep nesting — injected at random places of VALID bodies of every JSON route (so they
reach the handlers), and in path parameters. Property: never a 5xx, never a hang.

Complements tests/api/test_schemathesis.py (schema-driven generation, which never produces NaN tokens
nor raw NUL bytes in JSON text).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from lexlogic.engine.tenancy.quota import QuotaLimits
from tests.support.api_app import EXAMPLE

TMP = Path(tempfile.mkdtemp(prefix="lexlogic-hostile-fuzz-"))
APP = create_app(
    ApiSettings(
        db_url=f"sqlite:///{TMP / 'api.db'}",
        data_dir=TMP / "data",
        quota_limits=QuotaLimits(proposals_per_minute=10_000, concurrent_runs=4, worker_seconds_per_minute=10_000),
    )
)
STATE: dict[str, Any] = {}
RAW_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" * 40]
STRINGS = ["\x00", "a\x00b", "\x1b[31m", "x" * 100_001, "9999-12-31", "0000-00-00", "2021-02-30", "\u202e", "\ud800"]


def _client() -> TestClient:
    if "client" not in STATE:
        _, key = APP.state.services.tenants.create_key("fuzz")
        _, key2 = APP.state.services.tenants.create_key("fuzz", label="reviewer")
        c = TestClient(APP, raise_server_exceptions=False)
        h = {"X-API-Key": key}
        cid = c.post("/v1/cases", json={"case_file": EXAMPLE}, headers=h).json()["id"]
        rid = c.post(
            "/v1/dynamic-rules", json={"text": "def rule(facts):\n    return len(facts)\n", "author": "f"}, headers=h
        ).json()["id"]
        STATE.update(client=c, h=h, h2={"X-API-Key": key2}, cid=cid, rid=rid)
    return STATE["client"]


def _routes() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("/v1/cases", {"name": "n", "pack": "rupture_brutale", "case_file": EXAMPLE}),
        ("/v1/cases/{cid}/answers", {"answers": {"notice_written": True, "notice_given_months": 3}}),
        (
            "/v1/cases/{cid}/what-if",
            {"answers": {"notice_given_months": 2}, "priors": {"notice_written": 0.3}, "persist": False},
        ),
        ("/v1/dynamic-rules", {"text": "def rule(facts):\n    return 1\n", "author": "a", "output_schema": "int"}),
        ("/v1/dynamic-rules/{rid}/run", {"facts": {"a": 1, "b": [1, 2], "c": {"d": "2021-01-01"}}}),
        ("/v1/dynamic-rules/{rid}/approve", {"by": "Me", "activate": False, "note": "ok"}),
    ]


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


MARK = "__POISON__"


def _inject(body: Any, at: tuple, replacement: Any) -> Any:
    if not at:
        return replacement
    body = json.loads(json.dumps(body))
    cur = body
    for part in at[:-1]:
        cur = cur[part]
    cur[at[-1]] = replacement
    return body


@pytest.mark.timeout(600)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(
    route=st.integers(min_value=0, max_value=5),
    where=st.integers(min_value=0, max_value=10_000),
    kind=st.sampled_from(["token", "string", "key", "deep", "huge_list"]),
    pick=st.integers(min_value=0, max_value=100),
)
def test_poisoned_bodies_never_answer_5xx(route: int, where: int, kind: str, pick: int) -> None:
    c = _client()
    template, body = _routes()[route]
    path = template.format(cid=STATE["cid"], rid=STATE["rid"])
    spots = _paths(body)
    at = spots[where % len(spots)]
    if kind == "token":
        text = json.dumps(_inject(body, at, MARK)).replace(f'"{MARK}"', RAW_TOKENS[pick % len(RAW_TOKENS)])
    elif kind == "string":
        text = json.dumps(_inject(body, at, STRINGS[pick % len(STRINGS)]), ensure_ascii=pick % 2 == 0)
    elif kind == "key":
        text = json.dumps(_inject(body, at, {STRINGS[pick % len(STRINGS)][:300]: 1}))
    elif kind == "deep":
        text = json.dumps(_inject(body, at, MARK)).replace(f'"{MARK}"', "[" * 60 + "]" * 60)
    else:
        text = json.dumps(_inject(body, at, list(range(50_000))))
    headers = STATE["h2"] if "approve" in template else STATE["h"]
    t0 = time.monotonic()
    r = c.post(
        path, content=text.encode("utf-8", "surrogatepass"), headers={**headers, "content-type": "application/json"}
    )
    assert r.status_code < 500, (template, kind, at, r.status_code, r.text[:300])
    assert time.monotonic() - t0 < 30


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(segment=st.sampled_from(["%00", "a%00b", "%1b%5b31m", "x" * 5000, "%ff%fe", "..%2f..%2fetc", "%0d%0aX: y"]))
def test_poisoned_path_parameters_never_answer_5xx(segment: str) -> None:
    c = _client()
    for template in (
        "/v1/cases/{s}",
        "/v1/cases/{cid}/documents/{s}",
        "/v1/cases/{cid}/documents/{s}/text",
        "/v1/dynamic-rules/{s}",
        "/v1/packs/{s}",
        "/v1/cases/{cid}/states/{s}",
    ):
        r = c.get(template.format(s=segment, cid=STATE["cid"]), headers=STATE["h"])
        assert r.status_code < 500, (template, segment[:40], r.status_code, r.text[:200])
