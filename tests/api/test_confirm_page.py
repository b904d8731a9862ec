"""Issue 29 on the page (headless Chromium): beside each fact read by the machine, « Confirmer » posts the
reading as the user's answer and « Corriger » lets the user pick or type another value; both go through
POST …/answers and the verdict on the page is the new one. The case is what the reader made of the example
dossier (tests/api/data), posted as a case file: no perception in this test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from tests.support.api_app import served

from .test_browser import ARGS, CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CASE = Path(__file__).parent / "data" / "dossier_case_file.json"


@pytest.fixture()
def page_and_case(tmp_path: Path) -> Iterator[tuple[Any, str, httpx.Client]]:
    from playwright.sync_api import expect, sync_playwright

    app = create_app(ApiSettings(db_url=f"sqlite:///{tmp_path / 'api.db'}", data_dir=tmp_path / "data"))
    _, key = app.state.services.tenants.create_key("browser")
    with served(app) as base, httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=120) as api:
        r = api.post("/v1/cases", json={"case_file": json.loads(CASE.read_text())})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        with sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--headless", *ARGS])
            p = b.new_page(viewport={"width": 1440, "height": 900}, bypass_csp=True)
            p.add_init_script(f"localStorage.setItem('lexlogic-key', {key!r})")
            p.goto(f"{base}/?case={cid}")
            expect(p.locator("body")).to_have_attribute("data-loaded", cid, timeout=60_000)
            yield p, cid, api
            b.close()


def _row(page: Any, fact: str) -> Any:
    return page.locator(f'#facts-table tbody tr[data-fact="{fact}"]').first


def _after_render(page: Any, before: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.renders) > {before}", timeout=60_000)
    page.wait_for_function("!/analyse…/.test(document.querySelector('#status').textContent)", timeout=60_000)


def test_confirm_and_correct_readings_from_the_page(page_and_case: tuple[Any, str, httpx.Client]) -> None:
    from playwright.sync_api import expect

    page, cid, api = page_and_case
    v0 = api.get(f"/v1/cases/{cid}/verdict").json()
    read = [r for r in v0["facts"] if r.get("knowledge") == "read"]
    assert read and all(r["confirm"] is not None for r in read)
    assert all(r["confirm"] is None for r in v0["facts"] if r.get("knowledge") != "read")
    # every read row has its two buttons; no other row has one
    for r in v0["facts"]:
        n = _row(page, r["fact"]).locator("button.confirm-btn").count()
        assert n == (1 if r.get("knowledge") == "read" else 0) or r["fact"] == "rupture_kind", r["fact"]

    # 1. confirm the arbitration clause read « aucune » (false): it becomes the user's answer
    p0 = page.locator("#prob").get_attribute("data-p")
    renders = int(page.locator("body").get_attribute("data-renders"))
    _row(page, "arbitration_clause").locator("button.confirm-btn").click()
    _after_render(page, renders)
    state = api.get(f"/v1/cases/{cid}").json()
    assert state["answers"].get("arbitration_clause") is False, state["answers"]
    expect(_row(page, "arbitration_clause").locator("td").nth(2)).to_have_text("réponse donnée")
    v1 = api.get(f"/v1/cases/{cid}/verdict").json()
    assert page.locator("#prob").get_attribute("data-p") == str(v1["probability"]["p_target"])
    assert v1["probability"]["p_target"] != float(p0)  # the verdict moved: the reading was a 0.85 coin
    assert page.locator("#verdict-label").inner_text().strip().lower() == v1["status_text"].lower()

    # 2. correct a yes/no reading: the clause on fault_alleged read « oui », corrected to « non »
    renders = int(page.locator("body").get_attribute("data-renders"))
    row = _row(page, "fault_alleged")
    row.locator("button.correct-btn").click()
    expect(row.locator("button.correct-btn")).to_have_attribute("aria-expanded", "true")
    sel = row.locator("select.correct-value")
    assert sel.input_value() == "false"  # a correction proposes the other value
    row.locator(".correct-form button[type=submit]").click()
    _after_render(page, renders)
    assert api.get(f"/v1/cases/{cid}").json()["answers"].get("fault_alleged") is False

    # 3. correct a number by typing it: the written notice read 3 months, in fact 9
    renders = int(page.locator("body").get_attribute("data-renders"))
    row = _row(page, "notice_given_months")
    row.locator("button.correct-btn").click()
    box = row.locator("input.correct-value")
    assert box.input_value() == "3"
    box.fill("9")
    box.press("Enter")
    _after_render(page, renders)
    answers = api.get(f"/v1/cases/{cid}").json()["answers"]
    assert answers.get("notice_given_months") == 9, answers
    v3 = api.get(f"/v1/cases/{cid}/verdict").json()
    row_text = _row(page, "notice_given_months").inner_text()
    assert "9 mois" in row_text and "réponse donnée" in row_text, row_text
    assert page.locator("#headline").inner_text() == v3["headline"]
    assert page.locator("#status").inner_text().startswith("Réponse enregistrée")
