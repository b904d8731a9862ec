"""The pack's weights.yaml: soft rules and expert priors, with errors naming file and place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lexlogic.engine.prob import analyse, with_weights
from lexlogic.engine.workbench.check import check_pack
from lexlogic.logic.weights import Beta, Fixed, Scale, WeightsError, load_weights, parse_magnitude
from tests.prob.toy_pack import toy

GOOD = """
priors:
  notice_written: 0.2
  fault_proven: {beta: [1, 9]}
soft_rules:
  - id: dependance
    label: "Protection du partenaire dépendant contre liberté du commerce"
    condition: brutal
    claimant: {principle: protection du partenaire, intensity: s, weight: m, reliability: r}
    defence:
      principle: liberté du commerce
      intensity: {scale: {l: 0.5, m: 0.5}}
      weight: m
      reliability: {beta: [8, 2]}
"""


def test_load_and_apply(tmp_path: Path) -> None:
    f = tmp_path / "weights.yaml"
    f.write_text(GOOD, encoding="utf-8")
    w = load_weights(f)
    assert w.priors["notice_written"] == 0.2 and w.priors["fault_proven"] == Beta(a=1, b=9)
    r = w.soft_rules[0]
    assert r.condition_atom == "brutal"
    assert r.principle_claimant.intensity == Fixed(value=4.0)
    assert r.principle_defence.intensity == Scale(values=[1.0, 2.0], probs=[0.5, 0.5])
    assert isinstance(r.principle_defence.reliability, Beta)
    prog = with_weights(toy(soft=False), w)
    assert prog.var("notice_written").prior == 0.2  # type: ignore[union-attr]
    v = analyse(prog)
    assert v.soft_factors["dependance"] > 0.5  # s/(1+s) with s > 1: the claimant's side is heavier
    base = analyse(with_weights(toy(soft=False), w.model_copy(update={"soft_rules": []})))
    assert v.p_target > base.p_target


def test_magnitude_shorthands() -> None:
    assert parse_magnitude("m") == Fixed(value=2.0)
    assert parse_magnitude("p") == Fixed(value=0.5)
    assert parse_magnitude(3) == Fixed(value=3.0)
    assert parse_magnitude("beta(2, 3)") == Beta(a=2, b=3)
    assert parse_magnitude("scale(l:0.25,s:0.75)") == Scale(values=[1.0, 4.0], probs=[0.25, 0.75])
    with pytest.raises(ValueError, match="unknown magnitude"):
        parse_magnitude("huge")


@pytest.mark.parametrize(
    "text, where",
    [
        ("soft_rules:\n  - id: x\n    condition: [unclosed\n", "weights.yaml:4"),
        ("soft_rules:\n  - id: x\n", "soft_rules.0.condition"),
        ("soft_rules:\n  - {id: x, condition: c, claimant: {intensity: {scale: {l: 0.5}}}}\n", "soft_rules.0.claimant"),
        ("priors: {a: 1.5}\n", "prior 1.5 not in [0, 1]"),
        ("- just a list\n", "expected a mapping"),
    ],
)
def test_errors_name_file_and_place(tmp_path: Path, text: str, where: str) -> None:
    f = tmp_path / "weights.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(WeightsError) as exc:
        load_weights(f)
    assert str(f) in str(exc.value) and where in str(exc.value)


def test_unknown_prior_name_is_rejected(tmp_path: Path) -> None:
    f = tmp_path / "weights.yaml"
    f.write_text("priors: {nope: 0.5}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown facts \\['nope'\\]"):
        with_weights(toy(), load_weights(f))


def test_check_reports_a_soft_rule_whose_condition_names_nothing(tmp_path: Path) -> None:
    """A misspelt condition is a balancing the model would silently ignore (a constant factor): `lexlogic
    check` says so at its line, with the near miss; the shipped pack's soft rule names a real atom."""
    shipped = Path(__file__).resolve().parents[2] / "rules" / "rupture_brutale"
    assert not [p for p in check_pack(shipped) if "soft rule" in p.message]
    pack = tmp_path / "rupture_brutale"
    shutil.copytree(shipped, pack)
    weights = pack / "weights.yaml"
    lines = weights.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if "condition: judge_finds_notice_insufficient" in x)
    lines[at] = lines[at].replace("judge_finds_notice_insufficient", "judge_find_notice_insufficient")
    weights.write_text("".join(lines), encoding="utf-8")
    problems = [p for p in check_pack(pack) if "soft rule" in p.message]
    assert len(problems) == 1
    p = problems[0]
    assert (p.file, p.line) == (str(weights), at + 1)
    assert "confiance_vs_liberte" in p.message and "'judge_find_notice_insufficient' names nothing" in p.message
    assert "did you mean 'judge_finds_notice_insufficient'?" in p.message
