from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.bridges import fol_tweety
from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.fol_builder import case_belief_set, text_to_belief_set
from lexlogic.engine.fol_check import InconsistentBeliefSetError, check_belief_set, ensure_consistent
from lexlogic.logic.fol import Atom, Const
from tests.support.fake_llm import ScriptedLLM

FIX = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]


def call(tool: str, **args):  # type: ignore[no-untyped-def]
    return {"name": tool, "arguments": args}


def test_text_to_belief_set_tool_loop_returns_errors_to_the_llm() -> None:
    replies = [
        {"tool_calls": [call("add_sort", name="personne"), call("add_sort", name="corps céleste")]},
        {
            "tool_calls": [
                call("add_predicate_schema", name="est mortel", argument_sorts=["personne"]),
                call("add_predicate_schema", name="orbite", argument_sorts=["corps celeste"]),
            ]
        },
        {
            "tool_calls": [
                call("add_atomic_fact", predicate="EstMortel", arguments=["Socrate"]),
                call("add_atomic_fact", predicate="orbite", arguments=["Socrate"]),
            ]
        },
        {"tool_calls": [{"name": "add_atomic_fact", "arguments": "{not json"}]},
        {"content": "done"},
    ]
    with ScriptedLLM(replies) as server:
        client = LLMClient(server.base_url, "scripted")
        res = text_to_belief_set("Socrate est mortel.", client)
        requests = server.requests
    assert res.finished and res.turns == 5 and res.tool_calls == 7
    assert Atom("EstMortel", (Const("socrate"),)) in res.belief_set.formulas
    assert len(res.errors) == 2
    # the rejection went back to the model as the tool's result, on the next request
    tool_msgs = [m for m in requests[3]["messages"] if m["role"] == "tool"]
    assert any(m["content"].startswith("error: rejected Orbite(socrate)") for m in tool_msgs)
    assert "not valid JSON" in requests[4]["messages"][-1]["content"]
    assert {t["function"]["name"] for t in requests[0]["tools"]} >= {"add_sort", "add_atomic_fact"}


def test_text_to_belief_set_is_bounded() -> None:
    replies = [{"tool_calls": [call("add_sort", name=f"s{i}")]} for i in range(5)]
    with ScriptedLLM(replies) as server:
        res = text_to_belief_set("x", LLMClient(server.base_url, "m"), max_turns=3)
    assert not res.finished and res.turns == 3 and len(server.requests) == 3
    assert len(res.belief_set.signature.sorts) == 3


CASE = {
    "claimant_name": "Société Alpha SA",
    "defendant_name": "Beta SAS",
    "framework_contract": True,
    "orders_count": 3,
    "regular_orders": True,
    "systematic_tenders": False,
    "rupture_kind": "total",
    "notification_date": "2023-01-10",
}


def test_case_belief_set_from_structured_facts_is_consistent() -> None:
    b = case_belief_set(CASE)
    sorts = b.bs.signature.sorts
    assert sorts["PersonneMorale"] == ["societe_alpha_sa", "beta_sas"]
    assert len(sorts["Commande"]) == 3 and sorts["Contrat"] == ["contrat_cadre"]
    assert b.bs.labels["societe_alpha_sa"] == "Société Alpha SA"
    report = ensure_consistent(b.bs)
    assert report.consistent is True


def test_inconsistent_case_reports_the_formulas_and_their_facts() -> None:
    bs = case_belief_set(CASE | {"rupture_kind": "none"}).bs
    with pytest.raises(InconsistentBeliefSetError) as info:
        ensure_consistent(bs)
    rep = info.value.report
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
