"""Issue 28: one pass per run. On the example dossier (instrumented counters): the pack is loaded once, the
case file is parsed once (the narrative worlds and the established-facts-only case are derived from the typed
case), and the symbolic analysis runs once per narrative world (plus once for the case with its ambiguities
open, and once for its established facts alone)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

import lexlogic.engine.packs.library as library
import lexlogic.engine.symbolic.memo as memo
from lexlogic.engine.case.dossier import run_dossier
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.facts import parse_case
from lexlogic.settings import SHIPPED_RULES
from tests.pipeline.conftest import DOSSIER


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, Counter[str]]:
    """Count every parse of a case file (by content) and every symbolic analysis, wherever it is called."""
    counts: dict[str, Counter[str]] = {"parse": Counter(), "analyse": Counter()}
    original_parse = parse_case
    original_analyse = memo.analyse

    def parse(raw, pack, source="<case>"):  # type: ignore[no-untyped-def]
        counts["parse"][canonical_hash(raw)] += 1
        return original_parse(raw, pack, source)

    def analyse(pack, program, case, answers=None, dynamic=None, **kw):  # type: ignore[no-untyped-def]
        counts["analyse"][canonical_hash({"c": case.model_dump(mode="json"), "a": answers or {}})] += 1
        return original_analyse(pack, program, case, answers, dynamic, **kw)

    for name, module in list(sys.modules.items()):  # wherever it was imported: a bypass is counted too
        if name.startswith("lexlogic.") and getattr(module, "parse_case", None) is original_parse:
            monkeypatch.setattr(module, "parse_case", parse)
        if name.startswith("lexlogic.") and getattr(module, "analyse", None) is original_analyse:
            monkeypatch.setattr(module, "analyse", analyse)
    monkeypatch.setattr(library, "_by_digest", {})  # a cold process: the pack must be loaded by this run
    return counts


def test_the_example_dossier_is_read_in_one_pass(counted: dict[str, Counter[str]], tmp_path: Path) -> None:
    loads_before = library.LOAD_COUNT[0]
    packs = PackLibrary(SHIPPED_RULES)
    result = run_dossier(DOSSIER, packs=packs, db_url=f"sqlite:///{tmp_path / 'r.db'}", out_dir=tmp_path)
    assert result.verdict is not None
    assert library.LOAD_COUNT[0] - loads_before == 1  # the pack, loaded and compiled once
    worlds = len(result.verdict.worlds)
    ambiguous = worlds > 1
    parses, analyses = counted["parse"], counted["analyse"]
    assert set(parses.values()) == {1}, parses  # no case file parsed twice
    # the case, once: the case with its machine readings removed (issue 29: what the given facts decide alone)
    # and each world's file are derived from the typed case, never re-parsed (they were 1 + worlds more parses)
    assert sum(parses.values()) == 1
    assert set(analyses.values()) == {1}, analyses  # no (case, answers) analysed twice
    assert sum(analyses.values()) == 2 + (worlds if ambiguous else 0)


def test_answers_reuse_the_run_without_reloading_the_pack(counted: dict[str, Counter[str]], tmp_path: Path) -> None:
    packs = PackLibrary(SHIPPED_RULES)
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = run_dossier(DOSSIER, packs=packs, db_url=db, out_dir=tmp_path)
    assert first.status == "awaiting_answer" and first.question is not None
    loads = library.LOAD_COUNT[0]
    options = first.question.get("options") or [True]
    second = run_dossier(
        DOSSIER, packs=packs, db_url=db, out_dir=tmp_path, answers={first.question["fact"]: options[0]}
    )
    assert second.resumed_from is not None  # same pieces, same pack: the run goes on
    assert library.LOAD_COUNT[0] == loads  # the library keeps its loaded pack


def test_a_facts_file_is_read_in_one_pass(counted: dict[str, Counter[str]]) -> None:
    """The facts file goes through the same machine: parsed once when read (the run adopts the typed case; it
    was parsed twice before, once by the command and once by the run), analysed once (no readings, one world)."""
    from typer.testing import CliRunner

    from lexlogic.api.cli import app

    facts = DOSSIER.parent / "facts.json"
    result = CliRunner().invoke(app, ["analyze", str(facts), "--no-input", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert sum(counted["parse"].values()) == 1, counted["parse"]
    assert sum(counted["analyse"].values()) == 1, counted["analyse"]
