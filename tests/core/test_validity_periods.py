"""Issue 29, point 4: validity periods are law. A dated rule applies only to a case whose relevant date lies
in its period; outside it the rule is not applied and the verdict says so; `check` reports a rule whose
period disagrees with its source's; the proof of a rule that applied names the version (its period)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.packs.library import load_folder
from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.engine.verdict import wording
from lexlogic.engine.workbench.check import check_pack
from lexlogic.engine.workbench.scaffold import scaffold
from lexlogic.logic.facts import parse_case

FROM = "2022-01-01"


@pytest.fixture
def dated_pack(tmp_path: Path) -> Path:
    """The scaffold pack (a claim is founded when made within the deadline), its founding rule annotated
    as in force from 2022-01-01 on the event's date; its source in force from 2020-01-01."""
    root = scaffold("dated", tmp_path)
    lp = root / "rules.lp"
    text = lp.read_text(encoding="utf-8")
    old = '%@ {id: R_founded, label: "La demande est fondée si elle est formée dans le délai", sources: [ART_1]}'
    assert old in text
    lp.write_text(text.replace(old, old[:-1] + f", from: {FROM}, date: event_date}}"), encoding="utf-8")
    return root


def verdict_of(root: Path, event: str) -> tuple[Any, Any]:
    loaded = load_folder(root)
    pack, program = loaded.pack, loaded.program
    case = parse_case({"pack": "dated", "facts": {"event_date": event, "request_date": event}}, pack)
    return pack, analyse(pack, program, case)


def test_a_rule_outside_its_period_is_not_applied_and_said(dated_pack: Path) -> None:
    pack, before = verdict_of(dated_pack, "2021-06-01")
    assert before.outcomes["within_deadline"].status == "yes"  # the undated rule applies
    assert before.outcomes["claim_founded"].status == "no"  # the dated one does not, before its period
    said = wording.set_aside_rules(pack, before.values)
    assert len(said) == 1 and "La demande est fondée" in said[0] and "non appliquée" in said[0]
    assert "01/01/2022" in said[0] and "1 juin 2021" in said[0]

    pack, after = verdict_of(dated_pack, "2023-06-01")
    assert after.outcomes["claim_founded"].status == "yes"
    assert wording.set_aside_rules(pack, after.values) == []
    proof = after.outcomes["claim_founded"].proof
    assert proof is not None
    assert any("En vigueur (depuis le 01/01/2022)" in (n.label or "") for n in proof.walk())


def test_unknown_relevant_date_leaves_the_rule_open(dated_pack: Path) -> None:
    loaded = load_folder(dated_pack)
    pack, program = loaded.pack, loaded.program
    case = parse_case({"pack": "dated", "facts": {"request_date": "2023-06-01"}}, pack)
    a = analyse(pack, program, case)
    assert a.outcomes["claim_founded"].status == "unknown"


def test_check_reports_a_rule_older_than_its_source(dated_pack: Path) -> None:
    assert check_pack(dated_pack) == [] or all("periods disagree" not in str(p) for p in check_pack(dated_pack))
    lp = dated_pack / "rules.lp"
    lp.write_text(lp.read_text(encoding="utf-8").replace(f"from: {FROM}", "from: 2016-07-01"), encoding="utf-8")
    problems = [str(p) for p in check_pack(dated_pack)]
    hit = [p for p in problems if "periods disagree" in p]
    assert len(hit) == 1 and "R_founded" in hit[0] and "ART_1" in hit[0] and "rules.lp:" in hit[0]
