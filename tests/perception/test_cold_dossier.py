"""Issue 33: what makes a cold dossier cheaper changes no output.

- The example dossier analysed in fresh processes — no cache at all (``LEXLOGIC_NO_CACHE``: patterns
  compiled, documents read; no warm-up thread either: spaCy and dateparser loaded when first used), then a new home (the French pipeline's patterns and lemmatizer tables captured
  and kept), then another new home holding those caches (both served from ``cache/nlp``, documents from
  ``cache/documents``; a new database, so the evidence journal counts what this run recorded), then an empty
  home on an installation whose set-up built the NLP data (`spacy_nlp.INSTALLED`, made here by set-up's own
  step into a temporary folder: read from there, nothing written to the home's ``cache/nlp``) — gives the same
  result JSON (verdict, case file and its facts, plan, question, log), byte for byte; aside are the home's path
  (in the report's location) and the stages' durations (``timings``, ``seconds``). The runs other than the
  last see no installation's data (``INSTALLED`` set to None), whatever this venv's set-up built.
- spaCy loaded with torch hidden (what the bridge does) and with torch imported first (what the old code did:
  thinc then imports it) parses the dossier's texts identically.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexlogic.settings import child_environment

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"

pytestmark = pytest.mark.slow


#: the `lexlogic` command with the installation's NLP data looked for in argv[1] ("": nowhere)
CLI = """
import sys
from pathlib import Path
from lexlogic.bridges import spacy_nlp
spacy_nlp.INSTALLED = Path(sys.argv[1]) if sys.argv[1] else None
sys.argv = ["lexlogic", *sys.argv[2:]]
from lexlogic.api.cli import main
main()
"""


def _analyze(home: Path, cwd: Path, *, no_cache: bool = False, installed: Path | None = None) -> str:
    env = {k: v for k, v in child_environment(("",)).items() if not k.startswith("LEXLOGIC_")}
    env["LEXLOGIC_HOME"] = str(home)
    if no_cache:  # the reference: nothing kept, nothing loaded ahead (spaCy and dateparser on first use)
        env["LEXLOGIC_NO_CACHE"] = "1"
        env["LEXLOGIC_NLP_WARMUP"] = "0"
    where = str(installed) if installed is not None else ""
    cmd = [sys.executable, "-c", CLI, where, "analyze", str(DOSSIER), "--no-input", "--fresh", "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    result = json.loads(done.stdout.replace(str(home), "<home>"))
    del result["timings"], result["seconds"]  # how long each stage took: the only fields that may differ
    return json.dumps(result, ensure_ascii=False, indent=1)


def test_the_verdict_and_facts_are_the_same_with_and_without_the_caches(tmp_path: Path) -> None:
    plain = _analyze(tmp_path / "plain", tmp_path, no_cache=True)
    assert not (tmp_path / "plain" / "cache").exists()
    building = _analyze(tmp_path / "building", tmp_path)
    kept = sorted(p.name for p in (tmp_path / "building" / "cache" / "nlp").iterdir())
    assert any(name.endswith(".group.json") for name in kept) and any(name.endswith(".code") for name in kept)
    assert any(name.startswith("lemmas-") and name.endswith(".npz") for name in kept)  # the lemmatizer's tables
    # a new home (no database, no saved run: the journal counts what THIS run recorded) with the caches made above
    shutil.copytree(tmp_path / "building" / "cache", tmp_path / "served" / "cache")
    served = _analyze(tmp_path / "served", tmp_path)
    assert sorted(p.name for p in (tmp_path / "served" / "cache" / "nlp").iterdir()) == kept  # served, not rebuilt
    assert _facts(json.loads(plain))  # the facts table read from the pieces is in what is compared
    assert _diff(plain, building) == [] and _diff(plain, served) == []
    # an empty home on an installation whose set-up built the NLP data (its own step, into a temporary folder)
    installed = tmp_path / "venv-share" / "nlp"
    step = [sys.executable, "-m", "lexlogic.engine.perception.install", str(installed)]
    env = {**child_environment(("",)), "LEXLOGIC_HOME": str(tmp_path / "unused")}
    made = subprocess.run(step, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert made.returncode == 0 and "built" in made.stdout, made.stdout + made.stderr[-2000:]
    listed = sorted(p.name for p in installed.iterdir())
    on_install = _analyze(tmp_path / "first", tmp_path, installed=installed)
    assert not (tmp_path / "first" / "cache" / "nlp").exists()  # read from the installation, nothing built
    assert sorted(p.name for p in installed.iterdir()) == listed  # nor written there
    assert _diff(plain, on_install) == []


def _diff(a: str, b: str) -> list[str]:
    return list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[:40]


def _facts(node: object) -> list[object]:
    """The first non-empty ``facts`` list in the verdict JSON (wherever the dossier's output nests it)."""
    if isinstance(node, dict):
        if isinstance(node.get("facts"), list) and node["facts"]:
            return list(node["facts"])
        node = list(node.values())
    if isinstance(node, list):
        for child in node:
            if found := _facts(child):
                return found
    return []


PARSE = """
import hashlib, json, sys
from pathlib import Path
if sys.argv[1] == "torch":
    import torch  # noqa: F401 — thinc then sees it, as in the old code
from lexlogic.bridges import spacy_nlp
from lexlogic.engine.documents.ingest import ingest_dossier
nlp = spacy_nlp.french()
texts = [d.text for d in ingest_dossier(sys.argv[2])]
digest = hashlib.sha256()
for doc in nlp.pipe(texts):
    digest.update(json.dumps(doc.to_json(), sort_keys=True).encode())
    digest.update(json.dumps([[t.lemma_, t.norm_, str(t.morph), t.ent_iob_] for t in doc]).encode())
print(json.dumps({"digest": digest.hexdigest(), "torch": "torch" in sys.modules}))
"""


def test_spacy_parses_the_same_with_and_without_torch(tmp_path: Path) -> None:
    env = {**child_environment(("",)), "LEXLOGIC_HOME": str(tmp_path)}
    got = {}
    for mode in ("torch", "hidden"):
        done = subprocess.run(
            [sys.executable, "-c", PARSE, mode, str(DOSSIER)], capture_output=True, text=True, cwd=tmp_path, env=env
        )
        assert done.returncode == 0, done.stderr[-2000:]
        got[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["torch"]["torch"] and not got["hidden"]["torch"]
    assert got["torch"]["digest"] == got["hidden"]["digest"]
