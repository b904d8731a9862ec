"""Issue 34: the same file name uploaded twice at once gave a 500 and deleted the winner's file from the
dossier (each request moved its file into place, then the loser's failed insert removed « its » file — the
winner's). Now the row and the file are put in place in one transaction under the row's lock: one upload
wins (201), the other gets 409, and the file beside the row is the winner's. ``?replace=true`` replaces a
document atomically; a document can be deleted (row and file together)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from tests.support.api_app import Api


def _dossier_file(api: Api, name: str) -> Path | None:
    data = Path(api.client.app.state.services.data_dir)
    found = [p for p in data.rglob(name) if "staging" not in p.parts]
    assert len(found) <= 1, found
    return found[0] if found else None


def _upload(api: Api, cid: str, name: str, body: bytes, **params: str):  # type: ignore[no-untyped-def]
    return api.client.post(
        f"/v1/cases/{cid}/documents", params=params, files={"file": (name, body, "text/plain")}, headers=api.h()
    )


def test_same_name_at_once_one_wins_and_its_file_stays(api: Api) -> None:
    cid = api.client.post("/v1/cases", json={"name": "race"}, headers=api.h()).json()["id"]
    for round_ in range(4):
        name = f"note-{round_}.txt"
        bodies = [f"Note {who} : la relation commerciale dure depuis 2010.\n".encode() * 200 for who in "AB"]
        results: dict[int, int] = {}
        start = threading.Barrier(2)

        def send(i: int, name: str, bodies: list[bytes], start: threading.Barrier, results: dict[int, int]) -> None:
            start.wait()
            results[i] = _upload(api, cid, name, bodies[i]).status_code

        threads = [threading.Thread(target=send, args=(i, name, bodies, start, results)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results.values()) == [201, 409], results
        row = api.client.get(f"/v1/cases/{cid}/documents/note-{round_}", headers=api.h()).json()
        path = _dossier_file(api, name)
        assert path is not None, "the winner's file was deleted"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == row["sha256"]


def test_replace_swaps_row_and_file_together(api: Api) -> None:
    cid = api.client.post("/v1/cases", json={"name": "replace"}, headers=api.h()).json()["id"]
    first, second = b"Premier texte du contrat.\n", b"Second texte du contrat, amende.\n"
    assert _upload(api, cid, "contrat.txt", first).status_code == 201
    assert _upload(api, cid, "contrat.txt", second).status_code == 409  # no silent overwrite
    r = _upload(api, cid, "contrat.txt", second, replace="true")
    assert r.status_code == 201, r.text
    assert r.json()["sha256"] == hashlib.sha256(second).hexdigest()
    path = _dossier_file(api, "contrat.txt")
    assert path is not None and path.read_bytes() == second
    listed = api.client.get(f"/v1/cases/{cid}/documents", headers=api.h()).json()
    assert [d["id"] for d in listed] == ["contrat"]


def test_delete_document_removes_row_and_file(api: Api) -> None:
    c = api.client
    cid = c.post("/v1/cases", json={"name": "delete"}, headers=api.h()).json()["id"]
    assert _upload(api, cid, "lettre.txt", b"Lettre de resiliation.\n").status_code == 201
    assert c.delete(f"/v1/cases/{cid}/documents/lettre", headers=api.h("b")).status_code == 404  # other tenant
    svc = c.app.state.services
    run_id = f"api-{cid}"
    assert svc.runs.claim(run_id, "someone-else:1:x", 60)  # a run in flight: refused
    assert c.delete(f"/v1/cases/{cid}/documents/lettre", headers=api.h()).status_code == 409
    svc.runs.release(run_id, "someone-else:1:x")
    r = c.delete(f"/v1/cases/{cid}/documents/lettre", headers=api.h())
    assert r.status_code == 204, r.text
    assert _dossier_file(api, "lettre.txt") is None
    assert c.get(f"/v1/cases/{cid}/documents", headers=api.h()).json() == []
    assert c.delete(f"/v1/cases/{cid}/documents/lettre", headers=api.h()).status_code == 404
    assert _upload(api, cid, "lettre.txt", b"Nouvelle lettre.\n").status_code == 201  # the name is free again
