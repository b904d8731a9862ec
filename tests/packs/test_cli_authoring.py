"""Authoring comfort: `new pack`, `--rules DIR` on every command, LEXLOGIC_RULES_DIR in --help,
`test -k` / `--no-properties`, `schema pack`, and the planner reading packs where every command does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import typer
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.case.planner import is_major_fact, load_checks, make_plan, replan_major_fact
from lexlogic.engine.packs.library import PackLibrary

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_help_documents_the_rules_folder() -> None:
    result = runner.invoke(app, ["--help"])
    assert "LEXLOGIC_RULES_DIR" in result.output and "--rules" in result.output


def _commands(group: typer.Typer, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [(*prefix, c.name or c.callback.__name__) for c in group.registered_commands if c.callback]
    for g in group.registered_groups:
        if g.typer_instance is not None:
            out += _commands(g.typer_instance, (*prefix, g.name or ""))
    return out


def test_every_command_takes_rules() -> None:
    commands = _commands(app)
    assert len(commands) > 20
    missing = [c for c in commands if "--rules" not in runner.invoke(app, [*c, "--help"]).output]
    assert not missing, missing


def test_new_pack_passes_check_and_test_and_is_found_with_rules(tmp_path: Path) -> None:
    result = runner.invoke(app, ["new", "pack", "delai_demo", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["check", "--rules", str(tmp_path)]).exit_code == 0
    tested = runner.invoke(app, ["test", "--rules", str(tmp_path)])
    assert tested.exit_code == 0 and "0 failed" in tested.output, tested.output
    schema = runner.invoke(app, ["schema", "facts", "--rules", str(tmp_path), "--pack", "delai_demo"])
    assert schema.exit_code == 0 and "delai_demo" in schema.output
    again = runner.invoke(app, ["new", "pack", "delai_demo", "--dir", str(tmp_path)])
    assert again.exit_code == 2


def test_new_pack_writes_the_newer_manifest_keys_and_check_reads_them(tmp_path: Path) -> None:
    """Issue 29: the scaffold writes the verdict's colours, the defeaters' heading and the calibration
    pointer, each with its comment; `check` accepts them, and checks the calibration once it is pointed at."""
    from lexlogic.logic.pack import load_pack

    assert runner.invoke(app, ["new", "pack", "delai_demo", "--dir", str(tmp_path)]).exit_code == 0
    root = tmp_path / "delai_demo"
    manifest = (root / "pack.yaml").read_text(encoding="utf-8")
    assert "# calibration: calibration/reader.yaml" in manifest
    loaded = load_pack(root).manifest
    assert (loaded.target_colours.holds, loaded.target_colours.fails) == ("blue", "neutral")
    assert loaded.defeaters_heading == "Fins de non-recevoir examinées et écartées"
    assert runner.invoke(app, ["check", "--rules", str(tmp_path)]).exit_code == 0

    (root / "pack.yaml").write_text(manifest.replace("# calibration:", "calibration:"), encoding="utf-8")
    line = next(i for i, t in enumerate(manifest.splitlines(), 1) if "# calibration:" in t)
    missing = runner.invoke(app, ["check", "--rules", str(tmp_path)])
    assert missing.exit_code != 0 and f"pack.yaml:{line}" in missing.output and "calibration" in missing.output

    (root / "calibration").mkdir()
    fitted = (
        "version: 1\nprovenance: test\nfitted_on: [calib]\npseudo_count: 10\nraw_points: [[0.8, 0.7], [0.9, 0.85]]\n"
    )
    (root / "calibration" / "reader.yaml").write_text(fitted, encoding="utf-8")
    assert runner.invoke(app, ["check", "--rules", str(tmp_path)]).exit_code == 0
    (root / "calibration" / "reader.yaml").write_text(fitted + "by_fact: {gone_fact: 0.2}\n", encoding="utf-8")
    stale = runner.invoke(app, ["check", "--rules", str(tmp_path)])
    assert stale.exit_code != 0 and "gone_fact" in stale.output
    (root / "calibration" / "reader.yaml").write_text("version: one\n", encoding="utf-8")
    broken = runner.invoke(app, ["check", "--rules", str(tmp_path)])
    assert broken.exit_code != 0 and "reader.yaml" in broken.output and "Traceback" not in broken.output


def test_test_filter_and_no_properties() -> None:
    result = runner.invoke(
        app, ["test", str(ROOT / "rules" / "late_payment"), "-k", "prescription", "--no-properties", "-v"]
    )
    assert result.exit_code == 0, result.output
    passed = [line for line in result.output.splitlines() if line.startswith("PASS")]
    assert passed and all("rescription" in line for line in passed)
    assert "property" not in result.output


def test_schema_pack_covers_every_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["schema", "pack", "--write", str(tmp_path)])
    assert result.exit_code == 0, result.output
    kinds = {p.name.split(".")[0] for p in tmp_path.glob("*.schema.json")}
    assert {"pack", "facts", "computations", "parameters", "tests", "properties", "weights", "extraction"} <= kinds
    params = json.loads((tmp_path / "parameters.schema.json").read_text())
    assert "Parameter" in params["$defs"]


def test_planner_reads_packs_of_the_library_it_is_given(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rules" / "late_payment", tmp_path / "retards")
    text = (
        (tmp_path / "retards" / "pack.yaml").read_text(encoding="utf-8").replace("name: late_payment", "name: retards")
    )
    (tmp_path / "retards" / "pack.yaml").write_text(text, encoding="utf-8")
    retards = PackLibrary(tmp_path).pack("retards")
    checks = load_checks(retards)
    assert [c.id for c in checks][:2] == ["scope", "prescription"]
    plan = make_plan(retards)
    for task in plan.tasks:
        task.status = "done"
    assert is_major_fact(plan, "public_buyer") and not is_major_fact(plan, "paid")
    replanned = replan_major_fact(plan, "public_buyer")
    assert replanned.get("scope").status == "pending"


GUIDE_TRIAL = ROOT / "tests" / "packs" / "guide_trial"


def test_check_and_test_take_a_pack_name_under_rules() -> None:
    """`lexlogic test NAME --rules DIR`, as a pack author outside the repository types it."""
    result = runner.invoke(app, ["test", "agent_indemnity", "--rules", str(GUIDE_TRIAL), "--no-properties"])
    assert result.exit_code == 0, result.output
    assert "0 failed" in result.output and "19 passed" in result.output
    checked = runner.invoke(app, ["check", "agent_indemnity", "--rules", str(GUIDE_TRIAL)])
    assert checked.exit_code == 0 and "agent_indemnity: ok" in checked.output
    typo = runner.invoke(app, ["test", "agent_indemnty", "--rules", str(GUIDE_TRIAL)])
    assert typo.exit_code != 0 and "did you mean 'agent_indemnity'" in typo.output


def test_the_newcomers_pack_speaks_its_own_words() -> None:
    """The pack written from the guide alone (tests/packs/guide_trial/REPORT.md): its verdict, its remedy
    sentence, a parameter with its unit — and no other pack's wording."""
    case = GUIDE_TRIAL / "examples_agent_indemnity" / "facts.json"
    result = runner.invoke(app, ["analyze", str(case), "--rules", str(GUIDE_TRIAL), "--no-input", "--proof"])
    assert result.exit_code == 0, result.output
    text = result.output.replace("\u202f", " ").replace("\xa0", " ")  # French spacing (babel)
    assert "Indemnité de fin de contrat" in text and "entre 90 000 € et 97 000 €" in text
    assert "Délai pour notifier au mandant l'intention de réclamer l'indemnité : 12 mois" in text
    assert "valeur légale : 12 mois (art. L.134-12 C. com.)" in text
    assert "rupture" not in text.lower() and "notification_period_months" not in text


def test_lexlogic_test_leaves_no_hypothesis_folder(tmp_path: Path) -> None:
    """Properties run with hypothesis; its home is the temporary folder, not where the author runs the command."""
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("lexlogic")
    done = subprocess.run(
        [str(exe), "test", str(GUIDE_TRIAL / "agent_indemnity"), "-k", "P_"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
    assert not (tmp_path / ".hypothesis").exists()
