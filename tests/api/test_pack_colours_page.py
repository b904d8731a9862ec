"""Issue 29 on the page (headless Chromium), both packs: the verdict's colour is the pack's polarity
(`target_colours` in pack.yaml: a liability found is red, penalties due are not), dashed while the target
rests on readings to confirm; the badge is the verdict's status words and the probability is named by the
pack's target label; no engine word (LIABLE, liability) reaches the page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from tests.support.api_app import ROOT, served

from .test_browser import ARGS, CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CASES = {
    "rupture_brutale-facts": ROOT / "examples" / "rupture_brutale" / "facts.json",
    "late_payment-facts": ROOT / "examples" / "late_payment" / "facts.json",
    "rupture_brutale-read-dossier": Path(__file__).parent / "data" / "dossier_case_file.json",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, httpx.Client]]:
    from playwright.sync_api import sync_playwright

    tmp = tmp_path_factory.mktemp("colours")
    app = create_app(ApiSettings(db_url=f"sqlite:///{tmp / 'api.db'}", data_dir=tmp / "data"))
    _, key = app.state.services.tenants.create_key("browser")
    with served(app) as base, httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=120) as api:
        with sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--headless", *ARGS])
            p = b.new_page(viewport={"width": 1440, "height": 900}, bypass_csp=True)
            p.add_init_script(f"localStorage.setItem('lexlogic-key', {key!r})")
            yield p, base, api
            b.close()


@pytest.mark.parametrize("name", list(CASES))
def test_verdict_colour_and_words_are_the_packs(site: tuple[Any, str, httpx.Client], name: str) -> None:
    from playwright.sync_api import expect

    page, base, api = site
    r = api.post("/v1/cases", json={"case_file": json.loads(CASES[name].read_text())})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    v = api.get(f"/v1/cases/{cid}/verdict").json()
    page.goto(f"{base}/?case={cid}")
    expect(page.locator("body")).to_have_attribute("data-loaded", cid, timeout=60_000)
    assert v["tone"] in ("red", "green", "blue", "neutral", "open")
    classes = (page.locator("#verdict").get_attribute("class") or "").split()
    assert f"tone-{v['tone']}" in classes, classes
    if v["pack"] == "late_payment":
        assert v["label"] == "LIABLE" and v["tone"] == "blue"  # penalties due: never the red of a liability
    if v["pack"] == "rupture_brutale" and v["label"] == "LIABLE":
        assert v["tone"] == "red"
    tentative = not v["outcome_knowledge"][v["target"]]["on_record"]
    assert ("tentative" in classes) == tentative, (classes, tentative)
    if name.endswith("read-dossier"):
        assert tentative  # every reading is to confirm: the colour says so (dashed)
    assert page.locator("#verdict-label").inner_text().strip().lower() == v["status_text"].lower()
    assert page.locator("#headline").inner_text() == v["headline"]
    assert page.locator("#prob").inner_text().startswith(f"P({v['target_label']})")
    assert v["target_label"] and v["target_label"] != v["target"]
    body = page.locator("body").inner_text()
    assert "LIABLE" not in body and "liability" not in body.lower() and "P(liable)" not in body
