"""Issue 34: poisoned case files end with one clear line naming the JSON path and exit 2, never a traceback.

Before: ``1e308`` margins and a 30-digit count crashed money formatting (OverflowError / InvalidOperation,
``analyze`` rc 1) and a claim dated before the relation began was accepted (LIABLE, P = 1).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.text.formatting import money, money_range, number
from lexlogic.logic.facts import CaseFileError, parse_case
from tests.faults.conftest import LEXLOGIC, cli_env

EXAMPLE = json.loads((Path(__file__).resolve().parents[2] / "examples/rupture_brutale/facts.json").read_text())

POISON = [
    ({"annual_gross_margin": {"2021": 1e308, "2022": 1e308, "2023": 1e308}}, "$.facts.annual_gross_margin.value", "<="),
    ({"orders_count": 123456789012345678901234567890}, "$.facts.orders_count.value", "<="),
    ({"notice_given_months": 1e308}, "$.facts.notice_given_months.value", "<="),
    ({"claim_date": "2010-01-01"}, "$.facts.claim_date.value", "relation_start"),
    ({"notification_date": "2012-12-31"}, "$.facts.notification_date.value", "relation_start"),
    ({"claim_date": "2024-03-01"}, "$.facts.claim_date.value", "notification_date"),
]


def _case(change: dict) -> dict:  # type: ignore[type-arg]
    case = copy.deepcopy(EXAMPLE)
    case["facts"].update(change)
    return case


@pytest.mark.parametrize("change,path,why", POISON)
def test_poisoned_case_is_refused_with_its_path(change: dict, path: str, why: str) -> None:  # type: ignore[type-arg]
    pack = PackLibrary(Path(__file__).resolve().parents[2] / "rules").pack("rupture_brutale")
    with pytest.raises(CaseFileError) as err:
        parse_case(_case(change), pack, "case.json")
    assert err.value.path == path and why in err.value.message


@pytest.mark.parametrize("change,path,why", POISON[:2] + POISON[3:4])
def test_analyze_exits_2_with_one_line(change: dict, path: str, why: str, tmp_path: Path) -> None:  # type: ignore[type-arg]
    f = tmp_path / "case.json"
    f.write_text(json.dumps(_case(change)), encoding="utf-8")
    res = subprocess.run(
        [LEXLOGIC, "analyze", str(f), "--no-input"], env=cli_env(tmp_path), capture_output=True, timeout=300
    )
    err = res.stderr.decode(errors="replace")
    assert res.returncode == 2, err[-2000:]
    assert "Traceback" not in err and path in err and why in err
    assert len(err.strip().splitlines()) == 1, err


def test_money_never_raises_on_outsized_numbers() -> None:
    assert money(197206.4) == "197\u202f206\u00a0€" or money(197206.4).replace("\u202f", " ").startswith("197 206")
    for x in (1e308, float("inf"), -float("inf"), float("nan"), 10**30, 1e15):
        assert "€" in money(x) and number(x)
    assert money_range(1e308, float("inf")).count("€") == 2
