"""`lexlogic impact`: the shipped rupture_brutale pack vs a copy with the safe harbour at 24 months, on a
portfolio built by tests/distributed/make_cases.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from tests.distributed.make_cases import variation, write_cases
from tests.workbench.planted import RULES

runner = CliRunner()
N = 14


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("impact")
    portfolio = tmp / "portfolio"
    write_cases(portfolio, N)
    rules24 = tmp / "rules24"
    (rules24 / "rupture_brutale").mkdir(parents=True)
    import shutil

    shutil.rmtree(rules24 / "rupture_brutale")
    shutil.copytree(RULES / "rupture_brutale", rules24 / "rupture_brutale")
    params = rules24 / "rupture_brutale" / "parameters.yaml"
    text = params.read_text(encoding="utf-8")
    old = '    words: {"18": "dix-huit"}\n    values:\n      - {from: 2019-04-26, value: 18}'
    assert old in text
    params.write_text(
        text.replace(old, '    words: {"24": "vingt-quatre"}\n    values:\n      - {from: 2019-04-26, value: 24}'),
        encoding="utf-8",
    )
    return portfolio, rules24


def test_safe_harbour_at_24_months_flips_the_18_month_notices(setting: tuple[Path, Path]) -> None:
    portfolio, rules24 = setting
    result = runner.invoke(
        app, ["impact", str(portfolio), "--base", str(RULES), "--rules", str(rules24), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    flipped = {c["case_id"]: c for c in data["cases"] if c["flips"]}
    # oracle, from the portfolio's own recipe: the written notices of exactly 18 months lose the safe harbour
    eighteen = {variation(i)["case_id"] for i in range(N) if variation(i)["facts"]["notice_given_months"] == 18}
    assert set(flipped) == eighteen and eighteen
    for case in flipped.values():
        assert case["flips"]["safe_harbour"] == ["yes", "no"]
        # the first step where the proofs differ: the safe harbour (which is also the post-2019 ceiling)
        first = case["first_difference"]
        assert "safe_harbour_months" in first and "18 → " in first
    liable = [c for c in flipped.values() if "liable" in c["flips"]]
    assert liable and all(c["delta_p"] > 0.5 for c in liable)  # newly exposed to liability
    assert all(c["delta_p"] == 0 for c in data["cases"] if not c["flips"])
    # one parameter: the doctrinal post-2019 ceiling is the safe harbour itself, not a second copy of it
    assert data["changed_parameters"] == {
        "rupture_brutale.safe_harbour_months": [[["2019-04-26", 18]], [["2019-04-26", 24]]],
    }
    assert data["summary"]["flipped"] == len(eighteen)


def test_markdown_summary_and_fail_on_flip(setting: tuple[Path, Path]) -> None:
    portfolio, rules24 = setting
    args = ["impact", str(portfolio), "--base", str(RULES), "--rules", str(rules24), "--format", "markdown"]
    result = runner.invoke(app, [*args, "--fail-on-flip"])
    assert result.exit_code == 1
    md = result.output
    assert "cases flip**" in md and "| case | flips | P before | P after | ΔP | first difference |" in md
    assert "portfolio-0013" in md and "liable: no→unknown" in md
    assert "ΔP histogram" in md


def test_same_rules_from_a_git_ref_flip_nothing(tmp_path: Path) -> None:
    lines = [json.dumps(variation(i), ensure_ascii=False) for i in (1, 6)]
    jsonl = tmp_path / "cases.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["impact", str(jsonl), "--base", "HEAD", "--rules", str(RULES), "--fail-on-flip"])
    assert result.exit_code == 0, result.output
    assert "0 of 2 cases flip" in result.output


def test_bad_inputs_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"pack": "rupture_brutale", "facts": {}}\nnot json\n', encoding="utf-8")
    result = runner.invoke(app, ["impact", str(bad), "--base", str(RULES), "--rules", str(RULES)])
    assert result.exit_code == 2
    assert "cases.jsonl:2" in result.output + (result.stderr or "")
    result = runner.invoke(app, ["impact", str(bad), "--base", "no-such-ref-xyz", "--rules", str(RULES)])
    assert result.exit_code == 2 and "no-such-ref-xyz" in result.output + (result.stderr or "")
