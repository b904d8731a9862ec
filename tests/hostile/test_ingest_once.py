"""Issue 34, point 7: ingestion once, in the limited process, keyed by content.

Before: the limited child read AND wrote the shared document cache (so a compromised parse could plant a
reading for any content, served to whoever uploaded it next), the cache key held the file name (the staged
upload « a1b2c3d4-lettre.txt » and its dossier copy « lettre.txt » were two entries), so a run re-read every
upload inside the API process (a 30-page PDF cost the API 59.5 s of CPU).

Now the parent looks the content up in the TENANT's cache, else a child reads it and returns the reading;
the parent checks it (sizes, spans, digest, media type) and alone writes the entry. Written as attacks: a
child that returns a forged or oversized reading is refused and nothing is cached; the same bytes uploaded
twice and then run are read once, never in the API process; one tenant's entry (even a tampered one that
passes every check) is never served to another."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from lexlogic.engine.documents import confine, ingest, isolated
from lexlogic.engine.documents.cache import scoped
from lexlogic.engine.documents.ingest import IngestError, content_key
from lexlogic.engine.documents.isolated import IngestLimits, IngestRefused, ingest_isolated
from lexlogic.settings import Settings
from tests.support.api_app import make_api

TEXT = "Lettre de résiliation.\n\nLa relation commerciale a duré douze ans.\n"
DOSSIER = Path(__file__).resolve().parents[2] / "examples/rupture_brutale/dossier"


class Count:
    """Counts the readings made by a child and those made in this (the API's) process."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.children = 0
        self.here = 0
        child, here = isolated._read_in_child, ingest.read_content

        def in_child(*a, **k):  # type: ignore[no-untyped-def]
            self.children += 1
            return child(*a, **k)

        def in_process(*a, **k):  # type: ignore[no-untyped-def]
            self.here += 1
            return here(*a, **k)

        monkeypatch.setattr(isolated, "_read_in_child", in_child)
        monkeypatch.setattr(ingest, "read_content", in_process)


# --- a forged child ----------------------------------------------------------------------------------------


def _reply(text: str, **doc: object) -> dict[str, object]:
    body = {
        "id": "x",
        "media_type": "text/plain",
        "text": text,
        "pages": [{"number": 1, "char_start": 0, "char_end": len(text)}],
        "sha256": hashlib.sha256(TEXT.encode()).hexdigest(),
    }
    return {"ok": True, "document": {**body, **doc}}


FORGED = {
    "span outside the text": _reply(TEXT, pages=[{"number": 1, "char_start": 0, "char_end": 10**9}]),
    "digest of other content": _reply(TEXT, sha256="0" * 64),
    "media type of another format": _reply(TEXT, media_type="application/pdf"),
    "a word that is not in the text": _reply(
        TEXT,
        pages=[
            {
                "number": 1,
                "char_start": 0,
                "char_end": len(TEXT),
                "words": [{"text": "ARRÊT", "char_start": 0, "char_end": 5}],
            }
        ],
    ),
    "text over the limit": _reply("x" * 5000, pages=[]),
}


def _forge(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """The child process replaced by ``script`` (a real process, the real pipe): what a subverted parse
    could answer."""
    monkeypatch.setattr(isolated, "_BOOT", script)


@pytest.mark.parametrize("what", sorted(FORGED))
def test_a_forged_reading_is_refused_and_nothing_is_cached(
    what: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "lettre.txt"
    src.write_text(TEXT, encoding="utf-8")
    cache = tmp_path / "cache"
    payload = json.dumps(FORGED[what])
    _forge(monkeypatch, f"import sys; sys.stdout.write({payload!r})")
    with pytest.raises(IngestError, match="lettre.txt"):
        ingest_isolated(src, IngestLimits(max_text_chars=1000), cache=cache)
    assert not list(cache.rglob("*.json")), "a refused reading was cached"
    monkeypatch.undo()  # the real child: the same file reads, and is cached once
    doc = ingest_isolated(src, IngestLimits(max_text_chars=1000), cache=cache)
    assert doc.text == TEXT and doc.id == "lettre"
    assert [p.name for p in cache.glob("*.json")] == [f"{content_key(TEXT.encode(), '.txt')}.json"]


def test_an_oversized_reply_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "lettre.txt"
    src.write_text(TEXT, encoding="utf-8")
    limits = IngestLimits(max_text_chars=1000)  # replies are capped at 8 bytes a character + 1 MB
    _forge(monkeypatch, "import sys; sys.stdout.write('{\"ok\": true, \"document\": \"' + 'x' * 1100000 + '\"}')")
    with pytest.raises(IngestRefused, match="larger than"):
        ingest_isolated(src, limits, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_the_child_is_given_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the child receives (its argv): the file and the limits, never a cache folder to write into."""
    src = tmp_path / "lettre.txt"
    src.write_text(TEXT, encoding="utf-8")
    _forge(monkeypatch, f"import sys; sys.stdout.write({json.dumps(_reply(TEXT))!r})")
    seen: list[list[str]] = []
    popen = isolated.subprocess.Popen

    def spy(args, **kw):  # type: ignore[no-untyped-def]
        seen.append(list(args))
        return popen(args, **kw)

    monkeypatch.setattr(isolated.subprocess, "Popen", spy)
    ingest_isolated(src, cache=tmp_path / "cache")
    cfg = json.loads(seen[0][-1])
    assert "cache" not in cfg and str(tmp_path / "cache") not in " ".join(seen[0])


SUBVERTED = """import sys
sys.path.append({root!r})
from pathlib import Path
from lexlogic.engine.documents import ingest, isolated
real = ingest.read_content

def subverted(path, data, progress=None):  # what a parse taken over by a hostile file would try
    for target in {targets!r}:
        try:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_text("planted")
        except OSError:
            pass
    doc = real(path, data, progress)
    for secret in {secrets!r}:  # read what it can, and smuggle it out in its own document's text
        try:
            doc.text += Path(secret).read_bytes().decode("latin-1")
        except OSError:
            pass
    return doc

ingest.read_content = subverted
isolated._child(sys.argv[1], sys.argv[2])
"""


@pytest.mark.skipif(not confine.abi(), reason="this kernel has no Landlock")
def test_a_subverted_parse_cannot_write_the_cache_nor_read_another_tenant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real child (its limits, its confinement), whose parse tries to plant entries in the cache — its
    own tenant's folder, another's, a new file beside the upload — and to read another tenant's document
    and the server's environment (/proc/<parent>/environ), smuggled out in its own reading's text."""
    src = tmp_path / "lettre.txt"
    src.write_text(TEXT, encoding="utf-8")
    cache = tmp_path / "cache"
    key = content_key(TEXT.encode(), ".txt")
    targets = [str(cache / f"{key}.json"), str(cache / "tenants" / "other" / f"{key}.json"), str(tmp_path / "x")]
    other = tmp_path / "tenant-b" / "contrat-secret.txt"
    other.parent.mkdir()
    other.write_text("SECRET-OF-TENANT-B", encoding="utf-8")
    secrets = [str(other), f"/proc/{os.getpid()}/environ", "/etc/shadow"]
    root = str(Path(isolated.__file__).resolve().parents[2])
    _forge(monkeypatch, SUBVERTED.format(root=root, targets=targets, secrets=secrets))
    doc = ingest_isolated(src, cache=cache)
    assert doc.text == TEXT, doc.text[len(TEXT) : len(TEXT) + 80]
    assert [t for t in targets if Path(t).exists() and Path(t).read_text() == "planted"] == []
    assert sorted(p.name for p in cache.rglob("*") if p.is_file()) == [f"{key}.json"]  # the parent's only


# --- once per content, through the API ---------------------------------------------------------------------


@pytest.fixture
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    yield from make_api(f"sqlite:///{tmp_path / 'api.db'}", tmp_path, core=Settings(home=tmp_path / "home"))


def _tenant(app, who: str) -> str:  # type: ignore[no-untyped-def]
    return app.client.app.state.services.tenants.principal(app.key_a if who == "a" else app.key_b)[0]


def _upload(app, cid: str, name: str, body: bytes, who: str = "a"):  # type: ignore[no-untyped-def]
    return app.client.post(f"/v1/cases/{cid}/documents", files={"file": (name, body, "text/plain")}, headers=app.h(who))


def test_same_bytes_uploaded_twice_then_run_are_read_once(app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    count = Count(monkeypatch)
    body = (DOSSIER / "01-contrat-cadre.md").read_bytes()
    cid = app.client.post("/v1/cases", json={"name": "once"}, headers=app.h()).json()["id"]
    assert _upload(app, cid, "contrat-cadre.md", body).status_code == 201
    assert (count.children, count.here) == (1, 0)
    assert _upload(app, cid, "copie-du-contrat.md", body).status_code == 201  # same bytes, another name
    assert (count.children, count.here) == (1, 0), "the same content was read again"
    r = app.client.post(f"/v1/cases/{cid}/run", params={"stream": "false"}, headers=app.h())
    assert r.status_code == 200, r.text
    assert (count.children, count.here) == (1, 0), "the run read the uploads again (here or in a child)"
    assert r.json()["log"] and "2 documents" in " ".join(r.json()["log"])


def test_a_reading_is_never_served_to_another_tenant(app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    count = Count(monkeypatch)
    body = TEXT.encode()
    case_a = app.client.post("/v1/cases", json={"name": "a"}, headers=app.h("a")).json()["id"]
    case_b = app.client.post("/v1/cases", json={"name": "b"}, headers=app.h("b")).json()["id"]
    assert _upload(app, case_a, "lettre.txt", body, "a").status_code == 201
    root = tmp_path / "home" / "cache" / "documents"
    entry = scoped(root, _tenant(app, "a")) / f"{content_key(body, '.txt')}.json"  # type: ignore[operator]
    # tenant A's entry tampered so that it passes every check (same length, same digest): a lie that only
    # the content could tell — what a subverted parse would leave behind
    lie = TEXT.replace("douze", "deux ")
    doc = json.loads(entry.read_text(encoding="utf-8"))
    assert doc["text"] == TEXT and len(lie) == len(TEXT)
    entry.write_text(json.dumps({**doc, "text": lie}), encoding="utf-8")
    assert _upload(app, case_a, "encore.txt", body, "a").json()["sha256"]  # A's own cache is used: no child
    assert count.children == 1
    a_text = app.client.get(f"/v1/cases/{case_a}/documents/encore/text", headers=app.h("a")).json()["text"]
    assert a_text == lie
    assert _upload(app, case_b, "lettre.txt", body, "b").status_code == 201  # B reads for itself
    assert count.children == 2
    b_text = app.client.get(f"/v1/cases/{case_b}/documents/lettre/text", headers=app.h("b")).json()["text"]
    assert b_text == TEXT, "tenant B was served tenant A's reading"
    assert sorted(p.parent.name for p in (root / "tenants").rglob("*.json")) == sorted(
        [scoped(root, _tenant(app, "a")).name, scoped(root, _tenant(app, "b")).name]  # type: ignore[union-attr]
    )


def test_a_cache_entry_failing_the_checks_is_read_again(app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    count = Count(monkeypatch)
    body = TEXT.encode()
    cid = app.client.post("/v1/cases", json={"name": "c"}, headers=app.h()).json()["id"]
    assert _upload(app, cid, "lettre.txt", body).status_code == 201
    entry = scoped(tmp_path / "home" / "cache" / "documents", _tenant(app, "a")) / f"{content_key(body, '.txt')}.json"  # type: ignore[operator]
    doc = json.loads(entry.read_text(encoding="utf-8"))
    doc["pages"][0]["char_end"] = 10**9  # a span outside the text
    entry.write_text(json.dumps(doc), encoding="utf-8")
    assert _upload(app, cid, "copie.txt", body).status_code == 201
    assert count.children == 2  # not served: read again, and the entry rewritten by the parent
    assert json.loads(entry.read_text(encoding="utf-8"))["pages"][0]["char_end"] == len(TEXT)


def test_a_worker_reads_an_api_run_through_the_tenants_cache(tmp_path: Path) -> None:
    """A run of the API taken by a Celery worker: the same reader (limited child, tenant's cache)."""
    from lexlogic.engine.jobs.tasks import Job, orchestrator_for

    settings = Settings(home=tmp_path / "home")
    orch = orchestrator_for(None, Job(kind="api", scope="tenant-a"), settings)  # type: ignore[arg-type]
    assert orch.documents_cache == scoped(settings.documents_cache, "tenant-a")
    assert orch.read_document is not None
    local = orchestrator_for(None, Job(kind="batch"), settings)  # type: ignore[arg-type]
    assert local.documents_cache == settings.documents_cache and local.read_document is None
