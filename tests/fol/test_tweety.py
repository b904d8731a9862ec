"""The Tweety bridge against REAL TweetyProject classes, when LEXLOGIC_TWEETY_CLASSPATH points at them.

Tweety's jars are not on any registry this machine reaches: build them from TweetyProject's public
source (modules commons, logics.commons, logics.fol and the part of math they need) with plain javac in a
scratch folder outside the repository (notes/issue-21.md says how), then
``LEXLOGIC_TWEETY_CLASSPATH=/path/tweety-fol-1.31.jar pytest tests/fol/test_tweety.py``.
Without them every test here is skipped with the reason, except the ones about the missing backend.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.bridges import fol_reasoner, fol_tweety
from lexlogic.logic.fol import parse_belief_set, parse_formula
from lexlogic.logic.fol.answers import FolReasonerError

FIX = Path(__file__).parent / "fixtures"
OK, WHY = fol_tweety.available()
needs_tweety = pytest.mark.skipif(not OK, reason=f"Tweety backend not available: {WHY}")
runner = CliRunner()


def test_without_jars_the_backend_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fol_tweety.ENV, "/nonexistent/tweety.jar")
    bs = parse_belief_set((FIX / "socrate.fologic").read_text())
    with pytest.raises(FolReasonerError, match="not available"):
        fol_tweety.entails(bs, parse_formula("EstMortel(socrate)", bs.signature)[0])


def test_status_refuses_a_jar_without_tweety(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    if shutil.which("java") is None:
        pytest.skip("no java")
    import zipfile

    fake = tmp_path / "fake.jar"
    with zipfile.ZipFile(fake, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    monkeypatch.setenv(fol_tweety.ENV, str(fake))
    res = runner.invoke(app, ["tweety", "status", "--timeout", "60"])
    assert res.exit_code == 2 and "NOT usable" in res.stderr and "FolSignature" in res.stderr


@needs_tweety
def test_status_loads_the_classes_and_runs_an_entailment() -> None:
    res = runner.invoke(app, ["tweety", "status"])
    assert res.exit_code == 0, res.stderr
    assert "loaded: FolSignature, FolBeliefSet, FolParser, SimpleFolReasoner, EFOLReasoner" in res.stdout
    assert "Flies(tweety) |= Flies(tweety): true" in res.stdout and "tweety backend: ok" in res.stdout


@needs_tweety
@pytest.mark.parametrize(
    "fixture,query",
    [
        ("socrate.fologic", "EstMortel(socrate)"),
        ("socrate.fologic", "exists X: (Orbite(X))"),
        ("examplebeliefbase.fologic", "Eats(rabbit,eagle)"),
        ("examplebeliefbase.fologic", "Flies(penguin)"),
    ],
)
def test_tweety_agrees_with_e(fixture: str, query: str) -> None:
    bs = parse_belief_set((FIX / fixture).read_text())
    q = parse_formula(query, bs.signature)[0]
    e = fol_reasoner.entails(bs, q, backend="eprover")
    t = fol_tweety.entails(bs, q)
    assert t.entailed is e.entailed and t.backend == "tweety-eprover"


@needs_tweety
def test_tweety_consistency_and_parser_errors() -> None:
    bs = parse_belief_set((FIX / "socrate.fologic").read_text())
    assert fol_tweety.consistent(bs).consistent is True
    assert fol_tweety.consistent(bs, reasoner="simple").consistent is True


@needs_tweety
def test_a_runaway_query_stops_at_its_limit(tmp_path: Path) -> None:
    consts = ", ".join(f"c{i}" for i in range(1, 13))
    text = (
        f"Thing = {{{consts}}}\ntype(R(Thing,Thing))\ntype(Q(Thing))\n"
        "forall X: (forall Y: (!R(X,Y) || Q(Y)))\n"
        "forall X: (forall Y: (forall Z: (!R(X,Y) || !R(Y,Z) || R(X,Z))))\nR(c1,c2)\n"
    )
    bs = parse_belief_set(text)
    t0 = time.monotonic()
    ans = fol_tweety.entails(
        bs, parse_formula("Q(c3)", bs.signature)[0], reasoner="simple", limits=fol_tweety.TweetyLimits(seconds=3)
    )
    assert ans.entailed is None and ans.reason.startswith("unknown (timeout)")
    assert time.monotonic() - t0 < 15
    f = tmp_path / "runaway.fologic"
    f.write_text(text)
    import os

    env = {**os.environ, "LEXLOGIC_TWEETY_TIMEOUT": "3"}
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "lexlogic.api", "fol", "query", str(f), "Q(c3)", "--backend", "tweety-simple"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.stdout.startswith("unknown (timeout)"), out.stdout + out.stderr
