"""The verdict's two forms and its validators (issue 33): GET …/verdict serves by default the compact form
(each outcome without its proof tree; the target's tree in `proof`), `?proofs=all` every tree as before —
the same trees as the full verdict; an ETag the client can send back for a 304."""

from __future__ import annotations

from tests.support.api_app import Api


def test_the_default_form_leaves_out_only_the_outcomes_trees(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    compact = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    full = c.get(f"/v1/cases/{cid}/verdict?proofs=all", headers=api.h())
    assert compact.status_code == full.status_code == 200
    small, big = compact.json(), full.json()
    assert len(compact.content) * 2 < len(full.content)  # the trees were most of the body
    assert all(o["proof"] is None for o in small["outcomes"].values())
    assert sum(o["proof"] is not None for o in big["outcomes"].values()) >= 10
    assert big["outcomes"]["liable"]["proof"] == big["proof"] == small["proof"]  # the target's tree in both
    for name, o in big["outcomes"].items():  # everything else of an outcome is the same
        assert {**o, "proof": None} == small["outcomes"][name]
    assert {k: v for k, v in big.items() if k != "outcomes"} == {k: v for k, v in small.items() if k != "outcomes"}
    bad = c.get(f"/v1/cases/{cid}/verdict?proofs=some", headers=api.h())
    assert bad.status_code == 422


def test_what_if_takes_the_same_forms(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    body = {"answers": {"notice_written": True}}
    small = c.post(f"/v1/cases/{cid}/what-if", json=body, headers=api.h()).json()
    big = c.post(f"/v1/cases/{cid}/what-if?proofs=all", json=body, headers=api.h()).json()
    assert all(o["proof"] is None for o in small["outcomes"].values())
    assert any(o["proof"] is not None for o in big["outcomes"].values())
    assert small["probability"] == big["probability"] and small["answers"] == big["answers"]


def test_etag_gives_304_until_the_case_changes(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    first = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    etag = first.headers["etag"]
    again = c.get(f"/v1/cases/{cid}/verdict", headers={**api.h(), "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert c.get(f"/v1/cases/{cid}/verdict?proofs=all", headers=api.h()).headers["etag"] != etag
    saved = c.post(f"/v1/cases/{cid}/answers", json={"answers": {"notice_written": True}}, headers=api.h())
    assert saved.status_code == 200, saved.text
    after = c.get(f"/v1/cases/{cid}/verdict", headers={**api.h(), "If-None-Match": etag})
    assert after.status_code == 200 and after.headers["etag"] != etag  # a new state: a new verdict
