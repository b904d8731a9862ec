"""Broken packs: each mistake a legal engineer makes fails `lexlogic check` with exit 2 at the right file:line.

Each case copies the shipped pack into a temporary folder and makes ONE mistake (the broken packs are
made on the fly: a `pack.yaml` under tests/ would be collected as a real pack by the root conftest).
The expected line is the line of the `marker` text in the mutated file.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.workbench.docs import pack_table

PACK = Path(__file__).resolve().parents[2] / "rules" / "rupture_brutale"
runner = CliRunner()


@dataclass
class Mistake:
    id: str
    file: str  # relative to the pack
    old: str  # replaced once by `new` (old == "" appends `new`)
    new: str
    marker: str  # text on the line the error must point at
    message: str  # substring of the error message
    at: str | None = None  # the file the error points at, when not the mutated one (relative to the pack)

    def apply(self, root: Path) -> Path:
        path = root / self.file
        text = path.read_text(encoding="utf-8")
        if self.old:
            assert self.old in text, f"{self.id}: {self.old!r} not in {self.file}"
            text = text.replace(self.old, self.new, 1)
        else:
            text += self.new
        path.write_text(text, encoding="utf-8")
        return path


MISTAKES = [
    Mistake(
        "rule_without_annotation",
        "exoneration.lp",
        "",
        "\nexonerated :- fault_alleged, force_majeure.\n",
        "exonerated :- fault_alleged, force_majeure.",
        "rule without annotation",
    ),
    Mistake(
        "enum_constant_misspelled",
        "defeaters.lp",
        "defeater_out_of_scope :- claimant_activity(commercial_agent).",
        "defeater_out_of_scope :- claimant_activity(comercial_agent).",
        "claimant_activity(comercial_agent)",
        "'comercial_agent' is not a value of enum fact 'claimant_activity'",
    ),
    Mistake(
        "property_watches_unknown_outcome",
        "properties.yaml",
        "    watch: brutal\n",
        "    watch: brutall\n",
        "watch: brutall",
        "watches unknown outcome or value 'brutall' (did you mean 'brutal'?)",
    ),
    Mistake(
        "property_then_unknown_outcome",
        "properties.yaml",
        'then: {exonerated: ["yes"], liable: ["no"]}',
        'then: {exonerated: ["yes"], liabel: ["no"]}',
        "liabel",
        "unknown outcome 'liabel' (did you mean 'liable'?)",
    ),
    Mistake(
        "property_unknown_fact",
        "properties.yaml",
        "when: {force_majeure: true}",
        "when: {force_majeur: true}",
        "force_majeur: true",
        "unknown fact 'force_majeur' (did you mean 'force_majeure'?)",
    ),
    Mistake(
        "test_expects_unknown_outcome",
        "tests/brutalite.yaml",
        '  expect: {brutal: "no", liable: "no"}',
        '  expect: {brutal: "no", liabel: "no"}',
        "liabel",
        "unknown outcome 'liabel' (did you mean 'liable'?)",
    ),
    Mistake(
        "test_unknown_fact",
        "tests/brutalite.yaml",
        "  facts: {<<: *facts, notice_given_months: 18}",
        "  facts: {<<: *facts, notice_given_month: 18}",
        "notice_given_month: 18",
        "unknown fact 'notice_given_month' (did you mean 'notice_given_months'?)",
    ),
    Mistake(
        "test_impossible_date",
        "tests/brutalite.yaml",
        "  facts: {<<: *facts, notice_given_months: 18}",
        '  facts: {<<: *facts, notice_given_months: 18, claim_date: "2024-02-30"}',
        "2024-02-30",
        "fact 'claim_date'",
    ),
    Mistake(
        "computation_impossible_date",
        "computations.yaml",
        'logic: {"<=": [{var: orders_count}, {param: few_orders_max}]}',
        'logic: {and: [{date_before: ["2019-02-30", {var: claim_date}]}, {"<=": [{var: orders_count}, 3]}]}',
        "2019-02-30",
        "impossible date '2019-02-30'",
    ),
    Mistake(
        "annotation_impossible_date",
        "brutalite.lp",
        "sources: [L442_1_II, CA_PARIS_20231220_18M], from: 2019-04-26}",
        "sources: [L442_1_II, CA_PARIS_20231220_18M], from: 2019-02-30}",
        "from: 2019-02-30",
        "malformed rule annotation",
    ),
    Mistake(
        "manifest_impossible_date",
        "pack.yaml",
        "valid_from: 2019-04-26, status: V}",
        "valid_from: 2019-02-30, status: V}",
        "valid_from: 2019-02-30",
        "impossible date '2019-02-30'",
    ),
    Mistake(
        "parameter_impossible_date",
        "parameters.yaml",
        "      - {from: 2019-04-26, value: 18}",
        "      - {from: 2019-02-31, value: 18}",
        "2019-02-31",
        "impossible date '2019-02-31'",
    ),
    Mistake(
        "asp_missing_period",
        "exoneration.lp",
        "exonerated :- faute_grave.",
        "exonerated :- faute_grave",
        "exonerated :- faute_grave",
        "missing period",
    ),
    Mistake(
        "asp_missing_period_last_rule",
        "liability.lp",
        "brutal, not exonerated.",
        "brutal, not exonerated",
        "brutal, not exonerated",
        "missing period",
    ),
    Mistake(
        "jsonlogic_unknown_operator",
        "computations.yaml",
        'logic: {"<=": [{var: orders_count}, {param: few_orders_max}]}',
        'logic: {"<=": [{var: orders_count}, {round_too: [{param: few_orders_max}, 1]}]}',
        "round_too",
        "'round_too' (did you mean 'round_to'?); allowed: ",
    ),
    Mistake(
        "undefined_parameter",
        "computations.yaml",
        'logic: {"<=": [{var: orders_count}, {param: few_orders_max}]}',
        'logic: {"<=": [{var: orders_count}, {param: few_order_max}]}',
        "few_order_max",
        "undefined parameter 'few_order_max' (did you mean 'few_orders_max'?)",
    ),
    Mistake(
        "undefined_parameter_in_label",
        "brutalite.lp",
        "hors préavis de {safe_harbour_months}",
        "hors préavis de {safe_harbor_months}",
        "{safe_harbor_months}",
        "undefined parameter 'safe_harbor_months' (did you mean 'safe_harbour_months'?)",
    ),
    Mistake(
        "unused_parameter",
        "parameters.yaml",
        "",
        '  vat_rate_pct:\n    label: "TVA"\n    unit: "%"\n    reference: L442_1_II\n    values:\n      - {value: 20}\n',
        "vat_rate_pct:",
        "parameter 'vat_rate_pct' is never used",
    ),
    Mistake(
        "stale_rules_md",
        "parameters.yaml",
        "      - {from: 2019-04-26, value: 18}",
        "      - {from: 2019-04-26, value: 24}",
        "| Préavis de 24 mois exonérant",
        "stale",
    ),
    Mistake(
        "remedy_points_at_nothing",
        "pack.yaml",
        "  high: damages_high\n",
        "  high: damages_hihg\n",
        "damages_hihg",
        "remedy: 'damages_hihg' is not the output of a computation (did you mean 'damages_high'?)",
    ),
    Mistake(
        "remedy_outcome_unknown",
        "pack.yaml",
        "remedy:\n  outcome: damages\n",
        "remedy:\n  outcome: damagez\n",
        "remedy:",
        "remedy: outcome 'damagez'",
    ),
    Mistake(
        "template_unknown_slot",
        "pack.yaml",
        'affirmative: "Responsabilité engagée pour rupture brutale."',
        'affirmative: "Responsabilité engagée depuis le {notifcation_date}."',
        "{notifcation_date}",
        "template slot '{notifcation_date}' is not a fact, value or parameter (did you mean 'notification_date'?)",
    ),
    Mistake(
        "unknown_source",
        "exoneration.lp",
        "sources: [L442_1_II, C_CIV_1218, CA_PARIS_20210326_FM]",
        "sources: [L442_1_II, C_CIV_1281, CA_PARIS_20210326_FM]",
        "C_CIV_1281",
        "cites unknown source 'C_CIV_1281' (did you mean 'C_CIV_1218'?)",
    ),
    Mistake(
        "unknown_predicate",
        "liability.lp",
        "brutal, not exonerated.",
        "brutall, not exonerated.",
        "brutall",
        "unknown predicate brutall/0",
    ),
    Mistake(
        "test_allegation_misspelled",
        "tests/exoneration.yaml",
        "",
        '\n- name: "Force majeure alléguée"\n  facts: {force_majeure: {value: true, allegation: alledged}}\n'
        '  expect: {exonerated: "unknown"}\n',
        "facts: {force_majeure: {value: true, allegation: alledged}}",
        "allegation 'alledged' is not one of",
    ),
    Mistake(
        "derived_atom_without_label",
        "pack.yaml",
        '  relation_stable: "Relation suivie, stable et habituelle sur une durée suffisante"\n',
        "",
        "relation_stable :- regular_orders, relation_long_enough.",
        "'relation_stable' is concluded here but has no label",
        at="relation.lp",
    ),
]


@pytest.fixture(scope="module")
def _pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("pristine") / "rupture_brutale"
    shutil.copytree(PACK, dest)
    return dest


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.id for m in MISTAKES])
def test_mistake_fails_check_at_its_line(mistake: Mistake, _pristine: Path, tmp_path: Path) -> None:
    root = tmp_path / "rupture_brutale"
    shutil.copytree(_pristine, root)
    path = mistake.apply(root)
    target = root / "RULES.md" if mistake.id == "stale_rules_md" else (root / mistake.at if mistake.at else path)
    lines = target.read_text(encoding="utf-8").splitlines()
    if mistake.id == "stale_rules_md":  # the line RULES.md should now have: where the stale file differs
        lines = pack_table(root).splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if mistake.marker in text)
    result = runner.invoke(app, ["check", str(root)])
    output = result.output + (result.stderr if hasattr(result, "stderr") else "")
    assert result.exit_code == 2, output
    assert "Traceback" not in output
    wanted = f"{target}:{line}: "
    hits = [row for row in output.splitlines() if row.startswith(wanted)]
    assert any(mistake.message in row for row in hits), f"expected {wanted}…{mistake.message}\n{output}"


def test_pristine_copy_is_clean(_pristine: Path) -> None:
    result = runner.invoke(app, ["check", str(_pristine)])
    assert result.exit_code == 0, result.output


def test_all_mistakes_of_the_issue_are_covered() -> None:
    ids = {m.id for m in MISTAKES}
    for required in (
        "rule_without_annotation",
        "enum_constant_misspelled",
        "property_watches_unknown_outcome",
        "test_expects_unknown_outcome",
        "computation_impossible_date",
        "annotation_impossible_date",
        "manifest_impossible_date",
        "asp_missing_period",
        "jsonlogic_unknown_operator",
    ):
        assert required in ids
