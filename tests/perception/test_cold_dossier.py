"""Issue 33: what makes a cold dossier cheaper changes no output.

- The example dossier analysed in three fresh processes — no cache at all (``LEXLOGIC_NO_CACHE``: patterns
  compiled, documents read), then a new home (the French pipeline's patterns captured and kept), then the same
  home again (patterns served from ``cache/nlp``, documents from ``cache/documents``) — gives the same verdict
  JSON, facts included, byte for byte (the home's path, printed in the report's location, aside).
- spaCy loaded with torch hidden (what the bridge does) and with torch imported first (what the old code did:
  thinc then imports it) parses the dossier's texts identically.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexlogic.settings import child_environment

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"
LEXLOGIC = Path(sys.executable).with_name("lexlogic")

pytestmark = pytest.mark.slow


def _analyze(home: Path, cwd: Path, *, no_cache: bool = False) -> str:
    env = {k: v for k, v in child_environment(("",)).items() if not k.startswith("LEXLOGIC_")}
    env["LEXLOGIC_HOME"] = str(home)
    if no_cache:
        env["LEXLOGIC_NO_CACHE"] = "1"
    cmd = [str(LEXLOGIC), "analyze", str(DOSSIER), "--no-input", "--fresh", "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=900)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.stdout.replace(str(home), "<home>")


def test_the_verdict_and_facts_are_the_same_with_and_without_the_caches(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plain = _analyze(tmp_path / "plain", tmp_path, no_cache=True)
    assert not (tmp_path / "plain" / "cache").exists()
    building = _analyze(home, tmp_path)
    kept = sorted(p.name for p in (home / "cache" / "nlp").iterdir())
    assert any(name.endswith(".group.json") for name in kept) and any(name.endswith(".code") for name in kept)
    served = _analyze(home, tmp_path)
    assert sorted(p.name for p in (home / "cache" / "nlp").iterdir()) == kept  # served, not rebuilt
    verdict = json.loads(plain)
    assert verdict["facts"] and building == plain and served == plain


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
