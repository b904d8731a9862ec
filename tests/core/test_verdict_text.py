"""The verdict a lawyer reads: short, French, no identifiers; the whole proof once on --proof; and never
"established" wording for an outcome that is not established, in any output."""

from __future__ import annotations

import copy
import json
import re
from html import unescape
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.api.report_html import render_report
from lexlogic.engine.verdict.build import build_verdict, read_case
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text(encoding="utf-8"))
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
runner = CliRunner()


def _write(tmp_path: Path, case: dict) -> Path:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def _undetermined() -> dict:
    case = copy.deepcopy(EXAMPLE)
    case["facts"]["notice_given_months"] = 12  # inside the range of reasonable notice: the judge's call
    return case


def test_default_verdict_is_short_french_and_free_of_identifiers(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, EXAMPLE)), "--no-input"])
    assert result.exit_code == 0, result.output
    lines = result.output.rstrip("\n").splitlines()
    assert len(lines) <= 60, len(lines)
    assert not SNAKE.findall(result.output), SNAKE.findall(result.output)
    for tag in ("[rule", "[fact", "[computed", "[no evidence", "[MISSING", "LIABLE", "NARRATIVE_"):
        assert tag not in result.output
    assert re.search(r"\d{1,3}(?:\u202f|\xa0| )\d{3} €", result.output)  # French money formatting
    assert "4 mars 2013" in result.output  # French dates


def test_debug_shows_identifiers(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, EXAMPLE)), "--no-input", "--debug"])
    assert result.exit_code == 0 and "[regular_orders]" in result.output


def test_proof_prints_each_shared_subtree_once(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(_write(tmp_path, EXAMPLE)), "--no-input", "--proof"])
    assert result.exit_code == 0, result.output
    proof = result.output.split("Preuve de la conclusion (arbre complet) :", 1)[1]
    assert "Sources :" in proof and "[1]" in proof
    assert "voir plus haut" in proof  # the relation's subtree is used by several conclusions
    tree = proof.split("Sources :", 1)[0]
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", tree)  # no identifier, even for atoms nobody gave a sentence
    assert tree.count("§") == 0  # sources are numbered notes after the tree, not repeated at every node


def test_unknown_outcome_is_never_worded_as_established(tmp_path: Path) -> None:
    case = _undetermined()
    v = build_verdict(read_case(SHIPPED, case), {}, packs=SHIPPED)
    assert v.label.value == "UNDETERMINED"
    target = v.outcomes[v.target]
    assert target.status == "unknown"
    affirmative = v.headline
    assert "indéterminé" in affirmative or "apprécier" in affirmative
    for r in v.reasons:
        o = v.outcomes.get(r.outcome)
        if o is not None and o.status == "unknown":
            assert r.state in ("indéterminé", "à apprécier par le juge"), r
    # CLI text and JSON say the same
    text = runner.invoke(app, ["analyze", str(_write(tmp_path, case)), "--no-input"]).output
    for r in v.reasons:  # a reason that is not established never carries the ✔ mark
        if r.state != "établi":
            assert "✔ " + r.sentence not in text and r.sentence in text
    data = json.loads(
        runner.invoke(app, ["analyze", str(_write(tmp_path, case)), "--no-input", "--format", "json"]).output
    )
    assert data["headline"] == v.headline and data["label"] == "UNDETERMINED"
    # the report shows no green proof of the target
    state = {"case_id": "x", "status": "verdict", "evaluation": v.model_dump(mode="json"), "case_file": case}
    html = unescape(render_report(state, [], SHIPPED.pack("rupture_brutale")))
    assert "Preuve de la conclusion" not in html and "Ce qui fonderait la conclusion — non établie" in html
    assert "✔ " + v.headline not in html
    assert v.headline in html


def test_proof_of_an_open_conclusion_marks_what_rests_on_open_points(tmp_path: Path) -> None:
    """An international relation with foreign law chosen: liability turns on a reading the judge must make
    (contractual or tort). The tree shown is one possible reading: nothing that rests on the open point is ✔."""
    case = copy.deepcopy(EXAMPLE)
    case["facts"].update(
        {
            "international_relation": True,
            "chosen_law": "foreign",
            "damage_in_france": True,
            "products_marketed_in_france": False,
            "notification_date": "2022-10-03",
        }
    )
    report = tmp_path / "rapport.html"
    result = runner.invoke(
        app, ["analyze", str(_write(tmp_path, case)), "--no-input", "--proof", "--html", str(report)]
    )
    assert result.exit_code == 0, result.output
    assert "À apprécier par le juge" in result.output
    assert "Preuve de la conclusion" not in result.output
    page = unescape(report.read_text(encoding="utf-8"))  # --html writes the report of a facts file too
    assert "class='unknown'>? Responsabilité de l'auteur" in page
    assert "class='holds'>✔ Responsabilité de l'auteur" not in page
    tree = result.output.split("réglaient comme indiqué :", 1)[1].split("Sources :", 1)[0]
    lines = [x.strip() for x in tree.splitlines() if x.strip()]
    assert lines[0].startswith("? ")  # the conclusion itself is not shown as proven
    hypotheses = [x for x in lines if "(hypothèse : point encore ouvert)" in x]
    assert hypotheses and all(x.startswith("? ") for x in hypotheses)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", tree)  # no identifier
