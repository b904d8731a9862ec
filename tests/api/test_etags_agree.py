"""The verdict routes' ETags (issue 33): a function of what a body depends on, so every process of one deployment
agrees (a client revalidating on another process gets its 304) — and an edited pack or other code gives another
ETag (never a 304 for a stale body). The real `serve --workers 2` case is in ``test_serve_workers.py``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import lexlogic
from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from lexlogic.settings import SHIPPED_RULES, Settings
from tests.support.api_app import EXAMPLE

PACK = "rupture_brutale"
WHATIF = {"priors": {}, "answers": {"notice_written": True}}


def _app(tmp: Path, rules: Path = SHIPPED_RULES) -> TestClient:
    core = Settings(rules_dir=rules, home=tmp / "home")
    return TestClient(create_app(ApiSettings(core=core, db_url=f"sqlite:///{tmp / 'api.db'}", data_dir=tmp / "d")))


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient, dict[str, str], str]]:
    """Two app instances on one database (two processes of one deployment), a case made on the first."""
    with _app(tmp_path) as a, _app(tmp_path) as b:
        _, key = a.app.state.services.tenants.create_key("t")  # type: ignore[attr-defined]
        h = {"X-API-Key": key}
        r = a.post("/v1/cases", json={"case_file": EXAMPLE}, headers=h)
        assert r.status_code == 201, r.text
        yield a, b, h, r.json()["id"]


def test_two_instances_agree_and_answer_304_for_each_other(
    two: tuple[TestClient, TestClient, dict[str, str], str],
) -> None:
    a, b, h, cid = two
    for path, method, body in ((f"/v1/cases/{cid}/verdict", "GET", None), (f"/v1/cases/{cid}/what-if", "POST", WHATIF)):
        first = a.request(method, path, json=body, headers=h)
        other = b.request(method, path, json=body, headers=h)
        assert first.status_code == other.status_code == 200
        assert first.content == other.content and first.headers["etag"] == other.headers["etag"], path
    etag = a.get(f"/v1/cases/{cid}/verdict", headers=h).headers["etag"]
    again = b.get(f"/v1/cases/{cid}/verdict", headers={**h, "If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag


def test_another_code_version_gives_another_etag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same case, head and body under another version of the code: another ETag (no 304 for it)."""
    with _app(tmp_path) as a:
        _, key = a.app.state.services.tenants.create_key("t")  # type: ignore[attr-defined]
        h = {"X-API-Key": key}
        cid = a.post("/v1/cases", json={"case_file": EXAMPLE}, headers=h).json()["id"]
        old = a.get(f"/v1/cases/{cid}/verdict", headers=h)
    monkeypatch.setattr(lexlogic, "__version__", lexlogic.__version__ + "+other")
    with _app(tmp_path) as b:
        new = b.get(f"/v1/cases/{cid}/verdict", headers={**h, "If-None-Match": old.headers["etag"]})
    assert new.status_code == 200 and new.content == old.content
    assert new.headers["etag"] != old.headers["etag"]


def test_an_edited_pack_gives_another_etag_and_its_own_body(tmp_path: Path) -> None:
    """A served pack edited (its target's label): the verdict and a what-if asked before are computed again
    under the new pack, with another ETag; a client holding the old one gets the new body, not a 304."""
    rules = tmp_path / "rules"
    shutil.copytree(SHIPPED_RULES / PACK, rules / PACK)
    with _app(tmp_path, rules) as a:
        svc = a.app.state.services  # type: ignore[attr-defined]
        svc.packs.watch_every = 0.0  # look at the pack's files on every use (a second by default)
        _, key = svc.tenants.create_key("t")
        h = {"X-API-Key": key}
        cid = a.post("/v1/cases", json={"case_file": EXAMPLE}, headers=h).json()["id"]
        verdict, whatif = (
            a.get(f"/v1/cases/{cid}/verdict", headers=h),
            a.post(f"/v1/cases/{cid}/what-if", json=WHATIF, headers=h),
        )
        assert verdict.json()["target_label"] == "responsabilité"
        manifest = rules / PACK / "pack.yaml"
        text = manifest.read_text(encoding="utf-8")
        manifest.write_text(text.replace('target_label: "responsabilité"', 'target_label: "responsabilité (éditée)"'))
        stamp = manifest.stat().st_mtime + 5  # the watch looks at the newest modification time
        os.utime(manifest, (stamp, stamp))
        after = a.get(f"/v1/cases/{cid}/verdict", headers={**h, "If-None-Match": verdict.headers["etag"]})
        assert after.status_code == 200 and after.json()["target_label"] == "responsabilité (éditée)"
        assert after.headers["etag"] != verdict.headers["etag"]
        again = a.post(f"/v1/cases/{cid}/what-if", json=WHATIF, headers=h)
        assert (
            again.json()["target_label"] == "responsabilité (éditée)"
            and again.headers["etag"] != whatif.headers["etag"]
        )
