"""Dated parameters: one value in parameters.yaml moves the verdict, the labels and RULES.md together,
and the proof shows the value in force at the case's date."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.packs.library import load_folder
from lexlogic.engine.workbench.docs import pack_table
from lexlogic.engine.workbench.ruletests import run_case
from lexlogic.logic.pack import load_pack
from lexlogic.logic.parameters import Parameter
from lexlogic.logic.proof import ProofNode

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "rules" / "rupture_brutale"
runner = CliRunner()
# 40 years of relation, dependence, dedicated investments and exclusivity: the calibrated law's low decile is
# 21 months, capped at the post-2019 ceiling (the safe harbour, 18 months); 18 months were given
CASE = {
    "claimant_activity": "production",
    "claim_date": "2024-09-02",
    "court_specialised": True,
    "relation_start": "1984-01-09",
    "regular_orders": True,
    "orders_count": 540,
    "rupture_kind": "total",
    "notification_date": "2024-01-15",
    "notice_given_months": 18,
    "notice_written": True,
    "economic_dependence_proven": True,
    "dedicated_investments": True,
    "exclusivity": True,
    "private_label": False,
}


def _notes(node: ProofNode | None) -> list[str]:
    if node is None:
        return []
    out = [g.note or "" for g in node.grounding]
    for child in node.children:
        out += _notes(child)
    return out


def _labels(root: Path) -> dict[str, Any]:
    loaded = load_folder(root)
    pack, program = loaded.pack, loaded.program
    check = next(c for c in pack.manifest.checks if c.id == "safe_harbour")
    rule = next(r.meta for r in program.rules if r.meta and r.meta.id == "B_safe_harbour")
    return {
        "check": check.label,
        "rule": rule.label if rule else "",
        "computation": pack.label_of("notice_18_months"),
        "outcome": pack.label_of("safe_harbour"),
    }


def test_changing_a_parameter_moves_verdict_labels_and_rules_md(tmp_path: Path) -> None:
    root = tmp_path / "rupture_brutale"
    shutil.copytree(PACK, root)

    before = run_case(root, CASE)
    assert before.outcomes["safe_harbour"].status == "yes"
    assert before.outcomes["liable"].status == "no"
    assert all("dix-huit mois" in label for label in _labels(root).values()), _labels(root)
    assert any(
        "valeur légale en vigueur : dix-huit mois (depuis le 26 avril 2019" in n
        for n in _notes(before.outcomes["safe_harbour"].proof)
    )

    params = root / "parameters.yaml"
    params.write_text(
        params.read_text(encoding="utf-8").replace("{from: 2019-04-26, value: 18}", "{from: 2019-04-26, value: 24}"),
        encoding="utf-8",
    )
    after = run_case(root, CASE)
    assert after.outcomes["safe_harbour"].status == "no"
    assert after.outcomes["brutal"].status == "yes"
    assert after.outcomes["liable"].status == "yes"
    labels = _labels(root)
    assert all("24 mois" in label and "dix-huit" not in label for label in labels.values()), labels
    assert any(
        "valeur légale en vigueur : 24 mois (depuis le 26 avril 2019" in n
        for n in _notes(after.outcomes["safe_harbour"].proof)
    )

    # RULES.md is now stale: `check` says so at the first line that differs; `docs --write` regenerates it
    result = runner.invoke(app, ["check", str(root)])
    assert result.exit_code == 2 and f"{root / 'RULES.md'}:" in result.output and "stale" in result.output
    assert runner.invoke(app, ["docs", str(root), "--write"]).exit_code == 0
    rules_md = (root / "RULES.md").read_text(encoding="utf-8")
    assert rules_md == pack_table(root)
    assert "Préavis de 24 mois exonérant l'auteur" in rules_md
    assert "| `safe_harbour_months` |" in rules_md and "| 24 mois | 2019-04-26 → — |" in rules_md
    assert "dix-huit" not in rules_md
    assert runner.invoke(app, ["check", str(root)]).exit_code == 0


def test_value_in_force_at_the_case_date(tmp_path: Path) -> None:
    """The private-label coefficient is 2 for ruptures notified before 26/04/2019, 1 after."""
    pack = load_pack(PACK)
    coef: Parameter = pack.parameters["private_label_coefficient"]
    from datetime import date

    assert coef.period_at(date(2019, 4, 25)).value == 2  # type: ignore[union-attr]
    assert coef.period_at(date(2019, 4, 26)).value == 1  # type: ignore[union-attr]
    old = run_case(PACK, {**CASE, "notification_date": "2018-06-01", "private_label": True})
    assert old.values["private_label_coefficient"].value == 2
    assert any("jusqu'au 25 avril 2019" in (g.note or "") for g in old.values["private_label_coefficient"].grounding)
    new = run_case(PACK, {**CASE, "private_label": True})
    assert new.values["private_label_coefficient"].value == 1


def test_unknown_date_leaves_a_dated_parameter_unknown_naming_the_date() -> None:
    result = run_case(PACK, {k: v for k, v in CASE.items() if k != "notification_date"})
    info = result.values["safe_harbour_months"]
    assert not info.known and info.missing == ["notification_date"]
