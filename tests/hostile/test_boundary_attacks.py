"""Issue 34: one validation path for every body and query string, whatever the headers; page headers.

Before: two Content-Type headers skipped the input check (it read one, FastAPI the other) and a NUL then
gave 500 on PostgreSQL; query strings were never checked (``?case_id=a%00b`` → 500); a lone surrogate
→ 500; a 30-digit integer in a what-if → 500; the page set no CSP / nosniff / frame policy; a ``#key=``
link planted a key; ``?case=`` went unencoded into fetch paths.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.api_app import EXAMPLE, Api

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"


def _no_5xx(r) -> None:  # type: ignore[no-untyped-def]
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])


def test_two_content_type_headers_are_refused(api: Api) -> None:
    body = json.dumps({"case_file": {**EXAMPLE, "case_id": "a\u0000b"}})
    for order in (("text/plain", "application/json"), ("application/json", "text/plain")):
        headers = [("X-API-Key", api.key_a), ("Content-Type", order[0]), ("Content-Type", order[1])]
        r = api.client.post("/v1/cases", content=body, headers=headers)
        _no_5xx(r)


@pytest.mark.parametrize("ctype", ["text/plain", "application/octet-stream", None])
def test_a_json_body_is_checked_whatever_its_declared_type(api: Api, ctype: str | None) -> None:
    body = json.dumps({"case_file": {**EXAMPLE, "case_id": "a\u0000b"}})
    headers = {"X-API-Key": api.key_a, **({"Content-Type": ctype} if ctype else {})}
    r = api.client.post("/v1/cases", content=body, headers=headers)
    _no_5xx(r)


@pytest.mark.parametrize(
    "query",
    ["case_id=a%00b", "limit=10&q=%ED%A0%80", "limit=123456789012345678901234567890", "x%1b=1", "q=%FF%FE"],
)
def test_query_strings_are_checked(api: Api, query: str) -> None:
    r = api.client.get(f"/v1/cases?{query}", headers=api.h())
    assert r.status_code == 422, (r.status_code, r.text[:300])
    assert r.json()["errors"][0]["location"] == "query"


def test_lone_surrogates_are_422(api: Api) -> None:
    raw = '{"case_file": ' + json.dumps(EXAMPLE)[:-1] + ', "case_id": "x\\ud800y"}}'
    r = api.client.post("/v1/cases", content=raw, headers={**api.h(), "Content-Type": "application/json"})
    assert r.status_code == 422 and "surrogate" in r.text
    r = api.client.get("/v1/cases/%ED%A0%80", headers=api.h())
    assert r.status_code == 422


@pytest.mark.parametrize(
    "body",
    [
        '{"answers": {"orders_count": 123456789012345678901234567890}}',
        '{"answers": {"orders_count": "123456789012345678901234567890"}}',
        '{"answers": {"annual_gross_margin": {"2021": 1e308, "2022": 1e308, "2023": 1e308}}}',
    ],
)
def test_outsized_numbers_in_a_what_if_are_4xx(api: Api, body: str) -> None:
    cid = api.create_facts_case()
    r = api.client.post(
        f"/v1/cases/{cid}/what-if", content=body, headers={**api.h(), "content-type": "application/json"}
    )
    _no_5xx(r)


def test_the_page_carries_csp_nosniff_and_no_framing(api: Api) -> None:
    for path in ("/", "/static/app.js"):
        r = api.client.get(path)
        assert r.status_code == 200
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    assert api.client.get("/v1/health").headers["x-content-type-options"] == "nosniff"


def test_the_page_never_takes_a_key_from_the_url_and_encodes_case_ids() -> None:
    """A static reading of the page's script (the browser suite drives it for real)."""
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    assert 'setItem("lexlogic-key", hash' not in js and 'hash.get("key")' not in js
    assert "/v1/cases/${state.caseId}" not in js and "/v1/cases/${id}" not in js
    assert "?case=${encodeURIComponent(" in js
