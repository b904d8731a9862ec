"""A verdict route's reads on the event loop (issue 33, 33z): the API key and the case's head come in ONE round trip
(``TenantStore.aprincipal_and_head``, read by ``deps.tenant_id``), no longer two awaited apart; the key is still
read on every request, so a revoked key stops the very next one, and a new head is seen by the next request."""

from __future__ import annotations

from typing import Any

import pytest

from lexlogic.engine.store.db import PointReads


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every point read awaited on the event loop (PostgreSQL: one round trip each), by statement."""
    seen: list[Any] = []
    plain = PointReads.afirst

    async def counted(self: PointReads, statement: Any, **params: Any) -> Any:
        seen.append(sorted(params))
        return await plain(self, statement, **params)

    monkeypatch.setattr(PointReads, "afirst", counted)
    return seen


def _slider(api: Any, cid: str) -> str:
    base = api.client.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    return next(s["name"] for s in base["sliders"] if s["group"] == "priors")


def test_a_verdict_and_a_what_if_make_one_read_each(api: Any, reads: list[Any]) -> None:
    c = api.client
    cid = api.create_facts_case()
    name = _slider(api, cid)
    reads.clear()
    new = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.41}}, headers=api.h())
    assert new.status_code == 200 and new.headers["x-cache"] == "miss"
    assert reads == [["key_id", "run_id"]]  # the key and the head together; the case's record is kept
    reads.clear()
    again = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.41}}, headers=api.h())
    assert again.headers["x-cache"] == "hit" and again.content == new.content
    got = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    assert got.status_code == 200 and got.headers["x-cache"] == "hit"
    assert reads == [["key_id", "run_id"]] * 2


def test_a_revoked_key_stops_the_next_verdict_request(api: Any) -> None:
    c = api.client
    cid = api.create_facts_case()
    name = _slider(api, cid)
    assert c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.3}}, headers=api.h()).status_code == 200
    assert c.app.state.services.tenants.revoke(api.key_a)
    for r in (
        c.get(f"/v1/cases/{cid}/verdict", headers=api.h()),  # cached
        c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.3}}, headers=api.h()),  # cached
        c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.35}}, headers=api.h()),  # new
    ):
        assert r.status_code == 401
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h("a2")).status_code == 200  # the tenant's other key


def test_a_new_head_is_seen_by_the_next_request_and_another_tenant_sees_nothing(api: Any) -> None:
    c = api.client
    cid = api.create_facts_case()
    before = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    saved = c.post(f"/v1/cases/{cid}/answers", json={"answers": {"notice_written": False}}, headers=api.h())
    assert saved.status_code == 200
    after = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    assert after.status_code == 200 and after.headers["etag"] != before.headers["etag"]
    assert after.content == saved.content  # the new head's verdict, not the cached one of the old head
    assert c.get(f"/v1/cases/{cid}/verdict", headers=api.h("b")).status_code == 404
    assert c.post(f"/v1/cases/{cid}/what-if", json={}, headers=api.h("b")).status_code == 404
