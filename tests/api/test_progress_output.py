"""The progress of `analyze DIR` and `batch` when the output is not a terminal: plain lines, each step with
a total fixed from its first line to its last, `batch` one line per finished case, and its summary in French,
per pack, in each pack's own target words."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples/rupture_brutale/dossier"
LINE = re.compile(r"^\[(\d+)/(\d+)\] (.+?) (\d+)/(\d+)(?: : (.*?))? — ")


def _steps(stderr: str) -> dict[str, list[tuple[int, int, str]]]:
    steps: dict[str, list[tuple[int, int, str]]] = {}
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m:
            steps.setdefault(m.group(3), []).append((int(m.group(4)), int(m.group(5)), m.group(6) or ""))
    return steps


@pytest.mark.slow
def test_analyze_dossier_progress_is_plain_with_fixed_totals(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        app,
        ["analyze", str(DOSSIER), "--no-input", "--html", str(tmp_path / "r.html")],
        env={"LEXLOGIC_HOME": str(tmp_path / "home"), "LEXLOGIC_DATABASE_URL": f"sqlite:///{tmp_path / 'db'}"},
    )
    assert r.exit_code == 0, r.output
    steps = _steps(r.stderr)
    names = list(steps)
    assert names == ["lecture des pièces", "extraction des faits", "plan des vérifications", "vérifications", "verdict"]
    n_docs = len([f for f in DOSSIER.iterdir() if not f.name.startswith(".")])
    for name, rows in steps.items():
        totals = {t for _, t, _ in rows}
        assert len(totals) == 1, (name, rows)  # the total never changes once the step started
        done = [d for d, _, _ in rows]
        assert done == sorted(done) and done[-1] == rows[0][1], (name, rows)  # forward, and to completion
    assert steps["lecture des pièces"][0][1] == n_docs
    assert {item for _, _, item in steps["lecture des pièces"]} >= {f.name for f in DOSSIER.iterdir()}
    assert any(item for _, _, item in steps["vérifications"])  # the current check is named
    assert "\x1b[" not in r.stderr  # no terminal control codes in a pipe
    assert r.stderr.rstrip().splitlines()[-1].startswith("terminé : une question attend une réponse (")


def _cases(tmp_path: Path) -> Path:
    d = tmp_path / "portfolio"
    d.mkdir()
    rupture = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text(encoding="utf-8"))
    late = json.loads((ROOT / "examples/late_payment/facts.json").read_text(encoding="utf-8"))
    (d / "a-rupture.json").write_text(json.dumps(rupture), encoding="utf-8")
    other = copy.deepcopy(rupture)
    other["facts"]["notice_given_months"] = 12
    (d / "b-rupture-preavis.json").write_text(json.dumps(other), encoding="utf-8")
    (d / "c-retard.json").write_text(json.dumps(late), encoding="utf-8")
    (d / "d-invalide.json").write_text(json.dumps({"facts": {"no_such_fact": 1}}), encoding="utf-8")
    return d


def test_batch_prints_one_line_per_case_and_a_french_summary_per_pack(tmp_path: Path) -> None:
    d = _cases(tmp_path)
    out = tmp_path / "results.jsonl"
    db = f"sqlite:///{tmp_path / 'b.db'}"
    r = CliRunner().invoke(app, ["batch", str(d), "--out", str(out), "--local", "-c", "1", "--db", db])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if re.match(r"^\[\d+/\d+\] ", x)]
    assert [x.split("]")[0] + "]" for x in lines] == ["[1/4]", "[2/4]", "[3/4]", "[4/4]"], r.stderr
    named = [x.split("] ", 1)[1].split(" — ")[0] for x in lines]
    assert sorted(named) == ["a-rupture.json", "b-rupture-preavis.json", "c-retard.json", "d-invalide.json"]
    assert "invalide" in next(x for x in lines if "d-invalide.json" in x)
    assert "reste ≈" in lines[0] and "reste" not in lines[-1]
    summary = r.output.split(lines[-1], 1)[1] if lines[-1] in r.output else r.output
    late = json.loads(
        (ROOT / "rules/late_payment/pack.yaml")
        .read_text(encoding="utf-8")
        .split("target_label:")[1]
        .split("\n")[0]
        .strip()
    )
    assert late in summary and "responsabilité" in summary  # each pack's own target words
    assert "rupture_brutale" in summary and "late_payment" in summary
    assert not re.search(r"\bLIABLE\b|\bmean\b|\bresults\b|P\(liability\)", summary), summary
    assert len(out.read_text(encoding="utf-8").splitlines()) == 4
    again = CliRunner().invoke(app, ["batch", str(d), "--out", str(out), "--local", "-c", "1", "--db", db])
    assert again.exit_code == 0 and not re.search(r"^\[\d+/\d+\] ", again.stderr, re.M)  # nothing new to announce
    assert "4 déjà faites" in again.output
