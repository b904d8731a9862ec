"""The what-if sliders ranked on the example dossier: one POST …/sensitivity (cold: caches emptied, and
warm: a cache hit) against the page's former way (two POST …/what-if per slider, in sequence), through the
real FastAPI app (TestClient: no network), median of 3.

Then the ranking itself, in process, on what the reader made of the dossier (tests/api/data): the one-pass
ranking (one model; prior sliders in closed form) against the former one (a model per case-file shape, an
inference per point), interleaved at the same load, every cache of the inference emptied before each run
(compiled world tables and contraction plans included); and the largest difference between their numbers.

With ``--browser``: the page in headless Chromium (a real uvicorn server on 127.0.0.1), the read dossier's case
opened 3 times as a new case each time: milliseconds from navigation to the verdict on screen and to the ranked
sliders on screen (the first visit is the coldest: nothing of that model compiled yet).

    .venv/bin/python benchmarks/sensitivity.py [--browser]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"


def main() -> None:
    from fastapi.testclient import TestClient

    from lexlogic.api.app import create_app
    from lexlogic.api.deps import ApiSettings

    tmp = Path(tempfile.mkdtemp())
    app = create_app(ApiSettings(db_url=f"sqlite:///{tmp / 'b.db'}", data_dir=tmp / "data"))
    svc = app.state.services
    _, key = svc.tenants.create_key("bench")
    h = {"X-API-Key": key}
    with TestClient(app) as c:
        cid = c.post("/v1/cases", json={"name": "bench", "pack": "rupture_brutale"}, headers=h).json()["id"]
        for f in sorted(DOSSIER.iterdir()):
            c.post(f"/v1/cases/{cid}/documents", files={"file": (f.name, f.read_bytes())}, headers=h)
        c.post(f"/v1/cases/{cid}/run?stream=false", headers=h)
        sliders = c.get(f"/v1/cases/{cid}/verdict", headers=h).json()["sliders"]

        def empty() -> None:
            svc.verdicts.verdicts.data.clear()
            svc.verdicts.analyses.data.clear()

        def one_call() -> float:
            t = time.perf_counter()
            r = c.post(f"/v1/cases/{cid}/sensitivity", json={}, headers=h)
            assert r.status_code == 200, r.text
            return time.perf_counter() - t

        def per_slider() -> float:
            t = time.perf_counter()
            for s in sliders:
                for x in (s["min"], s["max"]):
                    r = c.post(f"/v1/cases/{cid}/what-if", json={s["group"]: {s["name"]: x}}, headers=h)
                    assert r.status_code == 200, r.text
            return time.perf_counter() - t

        c.get(f"/v1/cases/{cid}/verdict", headers=h)  # the page has the verdict before it ranks
        cold, warm, old = [], [], []
        for _ in range(3):
            empty()
            c.get(f"/v1/cases/{cid}/verdict", headers=h)
            cold.append(one_call())
            warm.append(one_call())
            empty()
            c.get(f"/v1/cases/{cid}/verdict", headers=h)
            old.append(per_slider())
        body = c.post(f"/v1/cases/{cid}/sensitivity", json={}, headers=h).json()
    print(f"example dossier: {len(sliders)} sliders, {body['models']} models built per ranking")
    print(
        f"one POST …/sensitivity, cold (caches emptied): median {statistics.median(cold):.3f} s  {[round(x, 3) for x in cold]}"
    )
    print(f"one POST …/sensitivity, warm (cache hit):      median {statistics.median(warm) * 1000:.1f} ms")
    print(
        f"former page: {2 * len(sliders)} POST …/what-if in sequence: median {statistics.median(old):.3f} s "
        f"(× {statistics.median(old) / statistics.median(cold):.1f} the one call)"
    )
    print("requests the page makes to rank the sliders: 1 (was", 2 * len(sliders), ")")
    ranking_in_process(c, h, svc)


def ranking_in_process(c, h, svc) -> None:  # type: ignore[no-untyped-def]
    """One pass against the former path, on the read dossier's case file, truly cold (see the docstring)."""
    import json

    from lexlogic.engine.verdict.model import Slider
    from lexlogic.engine.verdict.sensitivity import rank_sliders
    from lexlogic.logic.memos import Memos

    case = json.loads((ROOT / "tests" / "api" / "data" / "dossier_case_file.json").read_text())
    cid = c.post("/v1/cases", json={"case_file": case}, headers=h).json()["id"]
    sliders = [Slider(**s) for s in c.get(f"/v1/cases/{cid}/verdict", headers=h).json()["sliders"]]
    typed = svc.verdicts.read(case)  # the case typed once, as the endpoint does
    times: dict[bool, list[float]] = {True: [], False: []}
    results = {}
    for _ in range(3):
        for one_pass in (True, False):
            fresh = Memos()  # every inference memo empty: truly cold
            t = time.perf_counter()
            results[one_pass] = rank_sliders(svc.packs, typed, {}, {}, {}, sliders, one_pass=one_pass, memos=fresh)
            times[one_pass].append(time.perf_counter() - t)
    new, old = results[True], results[False]
    former = {e.name: e for e in old.sliders}
    diff = max(
        max(abs(e.p_min - former[e.name].p_min), abs(e.p_max - former[e.name].p_max))  # type: ignore[operator]
        for e in new.sliders
    )
    print(f"read dossier case file: {len(sliders)} sliders, ranking in process, every inference cache emptied:")
    print(
        f"  one pass: median {statistics.median(times[True]):.3f} s {[round(x, 3) for x in times[True]]}, "
        f"{new.models} model"
    )
    print(
        f"  former:   median {statistics.median(times[False]):.3f} s {[round(x, 3) for x in times[False]]}, "
        f"{old.models} models  (× {statistics.median(times[False]) / statistics.median(times[True]):.1f})"
    )
    print(f"  largest |ΔP| between the two: {diff:.2e}")


def browser() -> None:
    """Navigation → verdict rendered, navigation → sliders ranked, in Chromium (see the docstring)."""
    import json

    from playwright.sync_api import sync_playwright

    from lexlogic.api.app import create_app
    from lexlogic.api.deps import ApiSettings
    from tests.support.api_app import served

    tmp = Path(tempfile.mkdtemp())
    app = create_app(ApiSettings(db_url=f"sqlite:///{tmp / 'b.db'}", data_dir=tmp / "data"))
    _, key = app.state.services.tenants.create_key("bench")
    case = json.loads((ROOT / "tests" / "api" / "data" / "dossier_case_file.json").read_text())
    import httpx

    with served(app) as base, sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox", "--headless"])
        page = b.new_page(viewport={"width": 1440, "height": 900}, bypass_csp=True)
        page.add_init_script(f"localStorage.setItem('lexlogic-key', {key!r})")
        rows = []
        for _ in range(3):
            cid = httpx.post(f"{base}/v1/cases", json={"case_file": case}, headers={"X-API-Key": key}).json()["id"]
            page.goto(f"{base}/?case={cid}")
            page.wait_for_function(f"document.body.dataset.loaded === {cid!r}", timeout=120_000)
            shown = page.evaluate("performance.now()")
            page.wait_for_function("document.body.dataset.ranked === '1'", timeout=120_000)
            ranked = page.evaluate("performance.now()")
            rows.append((shown, ranked))
        b.close()
    for i, (shown, ranked) in enumerate(rows):
        print(
            f"visit {i + 1}: verdict on screen {shown:.0f} ms, sliders ranked {ranked:.0f} ms after navigation "
            f"(ranking {ranked - shown:.0f} ms after the verdict)"
        )


if __name__ == "__main__":
    if "--browser" in sys.argv:
        browser()
    else:
        main()
