from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.bridges import fol_tweety
from lexlogic.engine.extensions.fol_check import check_belief_set
from lexlogic.logic.fol.syntax import parse_belief_set

FIX = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]


INCONSISTENT = """
RelationCommerciale = {relation}

type(Rompue(RelationCommerciale))
type(RuptureNotifiee(RelationCommerciale))

!Rompue(relation)
RuptureNotifiee(relation)
forall X: (RuptureNotifiee(X) => Rompue(X))
"""


def test_inconsistent_case_reports_the_formulas_and_their_facts() -> None:
    bs = parse_belief_set(INCONSISTENT, source="case.fologic")
    origins = ["facts.rupture_kind", "facts.notification_date", "facts.notification_date"]
    bs.origins.update({i: origin for i, origin in enumerate(origins)})
    rep = check_belief_set(bs)
    assert rep.consistent is False
    assert {f.formula for f in rep.involved} == {
        "!Rompue(relation)",
        "RuptureNotifiee(relation)",
        "forall X: (RuptureNotifiee(X) => Rompue(X))",
    }
    assert {f.origin for f in rep.involved} == {"facts.rupture_kind", "facts.notification_date"}
    e = check_belief_set(bs, backend="eprover")
    assert e.consistent is False and {f.formula for f in e.involved} == {f.formula for f in rep.involved}


runner = CliRunner()


def test_cli_check_ok_and_error_location(tmp_path: Path) -> None:
    ok = runner.invoke(app, ["fol", "check", str(FIX / "examplebeliefbase.fologic")])
    assert ok.exit_code == 0 and "6 formulas" in ok.stdout
    bad = tmp_path / "bad.fologic"
    bad.write_text("A = {a}\ntype(P(A))\nP(a)\nP(zz)\n")
    res = runner.invoke(app, ["fol", "check", str(bad)])
    assert res.exit_code == 2
    assert f"{bad}:4:3: Constant 'zz' has not been declared." in res.stderr


def test_cli_query_and_hierarchy() -> None:
    f = str(FIX / "socrate.fologic")
    res = runner.invoke(app, ["fol", "query", f, "EstMortel(socrate)", "--proof"])
    assert res.exit_code == 0 and res.stdout.startswith("entailed")
    assert "EstPhilosophe(socrate)" in res.stdout
    res = runner.invoke(app, ["fol", "query", f, "Orbite(lune)", "--format", "json", "--backend", "eprover"])
    data = json.loads(res.stdout)
    assert data["verdict"] == "not entailed" and data["backend"] == "eprover"
    res = runner.invoke(app, ["fol", "query", f, "Orbite(socrate)"])
    assert res.exit_code == 2 and "no inferred link Personne ⊑ CorpsCeleste" in res.stderr
    res = runner.invoke(app, ["fol", "hierarchy", f])
    assert "Personne ⊑ EtreVivant" in res.stdout and "EstMortel(socrate) (line 11)" in res.stdout


def test_cli_tweety_status_and_install_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fol_tweety.ENV, raising=False)
    res = runner.invoke(app, ["tweety", "status"])
    assert res.exit_code == 0 and "NOT available" in res.stdout
    res = runner.invoke(
        app,
        ["tweety", "install", str(tmp_path / "jars"), "--timeout", "2", "--repository", "http://127.0.0.1:9/maven2"],
    )
    assert res.exit_code == 2 and "cannot fetch org.tweetyproject.logics:fol:1.31" in res.stderr


def test_cli_as_real_subprocess() -> None:
    exe = ROOT / ".venv" / "bin" / "lexlogic"
    if not exe.exists():
        pytest.skip("console script not installed")
    out = subprocess.run(
        [str(exe), "fol", "query", str(FIX / "examplebeliefbase.fologic"), "Eats(rabbit,eagle)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.startswith("entailed  [prolog")
    bad = subprocess.run([str(exe), "fol", "check", "/nonexistent.fologic"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "/nonexistent.fologic: no such file" in bad.stderr


TWEETY_OK, TWEETY_WHY = fol_tweety.available()


@pytest.mark.skipif(not TWEETY_OK, reason=f"Tweety backend not available: {TWEETY_WHY}")
def test_tweety_agrees_with_e_on_lowered_subsorts() -> None:  # pragma: no cover - needs the jars
    from lexlogic.logic.fol import parse_belief_set, parse_formula

    bs = parse_belief_set((FIX / "socrate.fologic").read_text())
    for text, expected in [("EstMortel(socrate)", True), ("exists X: (Orbite(X))", False)]:
        assert fol_tweety.entails(bs, parse_formula(text, bs.signature)[0]).entailed is expected
    assert fol_tweety.consistent(bs).consistent is True
