"""`lexlogic check`: broken packs are reported as file:line with exit code 2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

PACK = Path(__file__).resolve().parents[2] / "rules" / "rupture_brutale"
runner = CliRunner()


@pytest.fixture()
def pack_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "rupture_brutale"
    shutil.copytree(PACK, dest)
    return dest


def _check(path: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["check", str(path)])
    return result.exit_code, result.output + (result.stderr if hasattr(result, "stderr") else "")


def test_shipped_pack_is_clean() -> None:
    code, out = _check(PACK)
    assert code == 0, out


def test_asp_syntax_error_reports_file_and_line(pack_copy: Path) -> None:
    lp = pack_copy / "brutalite.lp"
    lines = lp.read_text().splitlines()
    lines.insert(4, "brutal :- notice_insufficient not safe_harbour.")  # missing comma
    lp.write_text("\n".join(lines))
    code, out = _check(pack_copy)
    assert code == 2
    assert f"{lp}:5: ASP syntax error" in out


def test_unknown_predicate(pack_copy: Path) -> None:
    lp = pack_copy / "liability.lp"
    lp.write_text(lp.read_text() + "\n%@ {id: X_typo, label: typo, sources: [L442_1_II]}\nliable :- brutall.\n")
    code, out = _check(pack_copy)
    assert code == 2
    assert "unknown predicate brutall/0" in out
    assert f"{lp}:" in out


def test_unknown_jsonlogic_operator(pack_copy: Path) -> None:
    comp = pack_copy / "computations.yaml"
    comp.write_text(comp.read_text().replace("date_on_or_after:", "date_after_or_on:", 1))
    code, out = _check(pack_copy)
    assert code == 2
    assert "unknown or forbidden JSON-Logic operator 'date_after_or_on'" in out
    assert f"{comp}:" in out


def test_method_operator_is_refused(pack_copy: Path) -> None:
    comp = pack_copy / "computations.yaml"
    comp.write_text(
        comp.read_text().replace(
            "logic: {date_on_or_after: [{var: notification_date}, {param: reform_2019_date}]}",
            "logic: {method: [{var: notification_date}, upper]}",
            1,
        )
    )
    code, out = _check(pack_copy)
    assert code == 2 and "'method'" in out and "blocked" in out


def test_rule_without_legal_source(pack_copy: Path) -> None:
    lp = pack_copy / "exoneration.lp"
    lp.write_text(lp.read_text().replace("sources: [L442_1_II, C_CIV_1218, CA_PARIS_20210326_FM]", "sources: []"))
    code, out = _check(pack_copy)
    assert code == 2 and "rule F_exo_fm has no legal source" in out


def test_unknown_source_id(pack_copy: Path) -> None:
    lp = pack_copy / "exoneration.lp"
    lp.write_text(lp.read_text().replace("sources: [L442_1_II, C_CIV_1218", "sources: [L442_1_II, C_CIV_9999"))
    code, out = _check(pack_copy)
    assert code == 2 and "cites unknown source 'C_CIV_9999'" in out


def test_broken_manifest_yaml(pack_copy: Path) -> None:
    manifest = pack_copy / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("target: liable", "target: [liable"))
    code, out = _check(pack_copy)
    assert code == 2 and f"{manifest}:" in out and "invalid YAML" in out


def test_check_as_a_real_subprocess(pack_copy: Path) -> None:
    (pack_copy / "rupture.lp").write_text("rupture :- rupture_kind(total.\n")
    proc = subprocess.run(
        [sys.executable, "-m", "lexlogic.api", "check", str(pack_copy)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert f"{pack_copy / 'rupture.lp'}:1:" in proc.stderr


def test_rules_md_is_current() -> None:
    from lexlogic.engine.workbench.docs import pack_table

    assert (PACK / "RULES.md").read_text(encoding="utf-8") == pack_table(PACK), (
        "RULES.md is stale: run `lexlogic docs rules/rupture_brutale --write`"
    )


def test_warns_on_an_uncertain_fact_weighed_at_one_half(pack_copy: Path) -> None:
    """A yes/no fact with no prior and no default is a 0.5 coin nobody chose: `check` says where (file:line),
    as a warning (exit 0); a declared prior (facts.yaml or weights.yaml) or a default silences it."""
    facts = pack_copy / "facts.yaml"
    text = facts.read_text()
    extra = (
        '  planted_coin: {type: bool, label: "Fait planté sans prior"}\n'
        '  planted_with_prior: {type: bool, prior: 0.3, label: "Fait planté avec prior"}\n'
        '  planted_named_prior: {type: bool, prior: p_notice_judged_insufficient, label: "Prior nommé hors appréciation"}\n'
        '  planted_default: {type: bool, default: false, burden: claimant, label: "Fait planté avec défaut"}\n'
    )
    head, sep, rest = text.partition("facts:\n")
    facts.write_text(head + sep + extra + rest)
    assert runner.invoke(app, ["docs", str(pack_copy), "--write"]).exit_code == 0  # RULES.md follows the facts
    result = runner.invoke(app, ["check", str(pack_copy)])
    out = result.output + (result.stderr if hasattr(result, "stderr") else "")
    assert result.exit_code == 0, out
    lines = facts.read_text().splitlines()
    at = {
        name: next(i + 1 for i, x in enumerate(lines) if x.lstrip().startswith(f"{name}:"))
        for name in ("planted_coin", "planted_named_prior")
    }
    assert f"{facts}:{at['planted_coin']}: warning: fact 'planted_coin'" in out
    assert "P = 0.5" in out
    assert f"{facts}:{at['planted_named_prior']}: warning: fact 'planted_named_prior'" in out
    assert "read only on an appreciation fact" in out
    assert "planted_with_prior" not in out and "planted_default" not in out
    # a fact with an expert prior in weights.yaml is not warned about
    assert "'notice_written'" not in out and "'fault_serious'" not in out
    assert "warnings)" in out
