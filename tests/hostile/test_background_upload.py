"""Large uploads are read in the background (202) with progress as server-sent events; a bomb fails the job
and leaves nothing behind."""

from __future__ import annotations

import json
import time

from tests.support.api_app import Api

from .bombs import pdf, pdf_bomb


def _events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _wait(api: Api, cid: str, job: str) -> dict:
    for _ in range(300):
        j = api.client.get(f"/v1/cases/{cid}/documents/jobs/{job}", headers=api.h()).json()
        if j["status"] in ("done", "failed"):
            return j
        time.sleep(0.1)
    raise AssertionError("job never ended")


def test_background_upload_reports_progress_and_ends_with_the_document(api: Api) -> None:
    c = api.client
    cid = c.post("/v1/cases", json={"name": "big"}, headers=api.h()).json()["id"]
    pages = [f"BT /F1 12 Tf 72 712 Td (Contrat cadre page {i}) Tj ET".encode() for i in range(1)]
    body = pdf(pages, pages=12, compress=False)
    r = c.post(
        f"/v1/cases/{cid}/documents",
        params={"background": "true"},
        files={"file": ("grand-contrat.pdf", body, "application/pdf")},
        headers=api.h(),
    )
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["status"] in ("queued", "reading") and job["events"].endswith("/events")
    # a second upload of the same document while the first is read: 409
    dup = c.post(f"/v1/cases/{cid}/documents", files={"file": ("grand-contrat.pdf", body)}, headers=api.h())
    assert dup.status_code == 409 or _wait(api, cid, job["id"])["status"] == "done"
    events = _events(c.get(job["events"], headers=api.h()).text)
    kinds = [e for e, _ in events]
    assert kinds[-1] == "done" and "progress" in kinds
    progress = [d for e, d in events if e == "progress" and d["pages_total"]]
    assert progress and progress[-1]["pages_done"] == progress[-1]["pages_total"] == 12
    done = _wait(api, cid, job["id"])
    assert done["status"] == "done" and done["document"]["pages"] == 12
    assert c.get(f"/v1/cases/{cid}/documents/grand-contrat", headers=api.h()).status_code == 200
    # another tenant cannot see the job
    assert c.get(f"/v1/cases/{cid}/documents/jobs/{job['id']}", headers=api.h("b")).status_code == 404


def test_background_bomb_fails_the_job_and_is_removed(api: Api) -> None:
    c = api.client
    svc = c.app.state.services  # type: ignore[attr-defined]
    cid = c.post("/v1/cases", json={"name": "bomb"}, headers=api.h()).json()["id"]
    r = c.post(
        f"/v1/cases/{cid}/documents",
        params={"background": "true"},
        files={"file": ("bomb.pdf", pdf_bomb(200))},
        headers=api.h(),
    )
    assert r.status_code == 202
    job = _wait(api, cid, r.json()["id"])
    assert job["status"] == "failed" and "inflate" in job["error"]
    events = _events(c.get(r.json()["events"], headers=api.h()).text)
    assert events[-1][0] == "error"
    case = svc.cases.get_case(svc.tenants.authenticate(api.key_a), cid)
    folder = svc.dossier_dir(case)
    assert not any(folder.parent.rglob("*.pdf"))  # neither in the dossier nor in staging
