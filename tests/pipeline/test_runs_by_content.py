"""Issue 28: a run is keyed by its inputs. Editing a piece of an analysed dossier and running `analyze DIR`
again starts a new run, says why, and gives the new verdict (the same as a fresh copy); a dossier's
`dossier.yaml` pack is honoured by `analyze`, and by `batch` for every item of a mixed portfolio."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.case.dossier import run_dossier
from lexlogic.engine.jobs.batch import run_batch
from lexlogic.settings import Settings
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _values(result) -> dict:  # type: ignore[no-untyped-def]
    return {k: v.value for k, v in result.verdict.values.items()}


def test_an_edited_piece_starts_a_new_run_and_says_why(tmp_path: Path) -> None:
    dossier = tmp_path / "retard"
    shutil.copytree(EXAMPLES / "late_payment" / "dossier", dossier)
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    first = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o1")
    assert first.verdict is not None and first.verdict.pack == "late_payment"
    same = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o2")
    assert same.resumed_from is not None and same.restarted_because is None  # nothing changed: resumed

    # the payment was a month later: the transfer notice and the lawyer's note both say so now
    avis, note = dossier / "04-avis-de-paiement.md", dossier / "00-note-avocat.md"
    avis.write_text(avis.read_text(encoding="utf-8").replace("19/07/2024", "19/08/2024"), encoding="utf-8")
    note.write_text(note.read_text(encoding="utf-8").replace("19 juillet 2024", "19 août 2024"), encoding="utf-8")
    again = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o3")
    assert again.resumed_from is None
    assert again.restarted_because is not None
    assert "2 pièces modifiées (00-note-avocat.md, 04-avis-de-paiement.md)" in again.restarted_because
    fresh = run_dossier(dossier, packs=SHIPPED, db_url=db, case_id="fresh-copy", out_dir=tmp_path / "o4")
    assert _values(again) == _values(fresh)  # the new verdict, not the old one
    assert _values(first)["days_late"] == 80 and _values(again)["days_late"] == 111

    forced = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o5", resume=True)
    assert forced.resumed_from is not None  # --resume: explicitly the saved run


def test_analyze_dir_prints_why_it_started_afresh(tmp_path: Path) -> None:
    dossier = tmp_path / "retard"
    shutil.copytree(EXAMPLES / "late_payment" / "dossier", dossier)
    env = {"LEXLOGIC_HOME": str(tmp_path / "home")}
    runner = CliRunner()
    first = runner.invoke(app, ["analyze", str(dossier), "--no-input"], env=env)
    assert first.exit_code == 0, first.output
    (dossier / "05-nouvelle-piece.md").write_text("# Relance\n\nSeconde relance du 2 août 2024.\n", encoding="utf-8")
    second = runner.invoke(app, ["analyze", str(dossier), "--no-input"], env=env)
    assert second.exit_code == 0, second.output
    assert "nouvelle analyse" in second.output and "1 pièce ajoutée (05-nouvelle-piece.md)" in second.output
    assert "reprise du dossier" not in second.output


def test_a_dossier_flag_that_cannot_apply_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["analyze", str(EXAMPLES / "late_payment" / "dossier"), "--evidence", str(tmp_path), "--no-input"]
    )
    # (--dynamic-rules and --whatif now apply to a dossier too: tests/pipeline/test_one_driver.py)
    assert result.exit_code == 2 and "--evidence applies to a facts file" in result.output


def test_html_goes_where_it_is_asked(tmp_path: Path) -> None:
    out = tmp_path / "rapport-client.html"
    result = CliRunner().invoke(
        app,
        ["analyze", str(EXAMPLES / "late_payment" / "dossier"), "--no-input", "--html", str(out)],
        env={"LEXLOGIC_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 0, result.output
    assert out.exists() and not (tmp_path / "report.html").exists()


def test_a_batch_mixing_both_packs_analyses_each_with_its_own(tmp_path: Path) -> None:
    portfolio = tmp_path / "portefeuille"
    shutil.copytree(EXAMPLES / "late_payment" / "dossier", portfolio / "retard")
    shutil.copytree(EXAMPLES / "rupture_brutale" / "dossier", portfolio / "rupture")
    report = run_batch(
        portfolio, packs=SHIPPED, settings=Settings(), db_url=f"sqlite:///{tmp_path / 'b.db'}", concurrency=1
    )
    by_key = {r.key: r for r in report.results}
    assert by_key["retard"].pack == "late_payment"
    assert by_key["rupture"].pack == "rupture_brutale"
    assert not any("relation_start" in m for m in by_key["retard"].missing)  # not read with the other pack's law
    lines = [json.loads(r.model_dump_json()) for r in report.results]
    assert {line["pack"] for line in lines} == {"late_payment", "rupture_brutale"}


def test_a_saved_run_this_version_cannot_read_starts_afresh_and_says_why(tmp_path: Path) -> None:
    """A snapshot written by another version (a field it lacks) used to end `analyze DIR` in a traceback."""
    from lexlogic.engine.store.cases import CaseStore

    dossier = tmp_path / "retard"
    shutil.copytree(EXAMPLES / "late_payment" / "dossier", dossier)
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    first = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o1")
    store = CaseStore(db)
    seq, state = store.latest(first.case_id)  # type: ignore[misc]
    del state["inputs"]["pack"]  # what an older version's snapshot lacks
    store.save(first.case_id, state, phase="verdict", status="done", state_hash="older-version")
    again = run_dossier(dossier, packs=SHIPPED, db_url=db, out_dir=tmp_path / "o2")
    assert again.resumed_from is None
    assert again.restarted_because is not None and "pas lisible par cette version" in again.restarted_because
    assert _values(again) == _values(first)
    assert len(store.states(first.case_id)) > seq  # the older snapshots are kept
