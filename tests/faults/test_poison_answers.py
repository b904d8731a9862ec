"""Issue 34: the pack's date order holds on the case AS ANSWERED, not only on the case file.

Each answer passed ``check_value`` alone, so a claim dated before the relation began, given as an
answer (CLI ``--answer``, API answers / what-if), was evaluated. Now: exit 2 / 422 naming the answer.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.logic.facts import CaseFileError, check_merged_date_order, parse_case
from tests.faults.conftest import LEXLOGIC, cli_env
from tests.support.api_app import Api

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())
# relation_start 2013-03-04, notification_date 2024-03-15, claim_date 2024-09-12 in the example
BAD = [
    ({"claim_date": "2010-01-01"}, "claim_date", "relation_start"),
    ({"notification_date": "2012-12-31"}, "notification_date", "relation_start"),
    ({"relation_start": "2024-06-01"}, "relation_start", "notification_date"),  # the EARLIER fact moved: named
    ({"claim_date": "2024-03-01"}, "claim_date", "notification_date"),
]


def _pack():  # type: ignore[no-untyped-def]
    return PackLibrary(ROOT / "rules").pack("rupture_brutale")


@pytest.mark.parametrize("answers,fact,why", BAD)
def test_merged_order_names_the_answer(answers: dict, fact: str, why: str) -> None:  # type: ignore[type-arg]
    pack = _pack()
    case = parse_case(json.loads(json.dumps(EXAMPLE)), pack, "case.json")
    with pytest.raises(CaseFileError) as err:
        check_merged_date_order(case, pack, answers)
    assert err.value.path == f"$.answers.{fact}" and why in err.value.message


def test_consistent_answers_and_saved_ones_pass() -> None:
    pack = _pack()
    case = parse_case(json.loads(json.dumps(EXAMPLE)), pack, "case.json")
    check_merged_date_order(case, pack, {"claim_date": "2025-01-01", "notification_date": "2024-12-01"})
    # A saved answer is counted: a new claim date before a saved notification date is refused.
    with pytest.raises(CaseFileError) as err:
        check_merged_date_order(case, pack, {"claim_date": "2024-10-01"}, settled={"notification_date": "2024-11-01"})
    assert err.value.path == "$.answers.claim_date"


@pytest.mark.parametrize("answers,fact,why", BAD[:1] + BAD[2:3])
def test_analyze_answer_out_of_order_exits_2(answers: dict, fact: str, why: str, tmp_path: Path) -> None:  # type: ignore[type-arg]
    f = tmp_path / "case.json"
    f.write_text(json.dumps(EXAMPLE), encoding="utf-8")
    ((name, value),) = answers.items()
    res = subprocess.run(
        [LEXLOGIC, "analyze", str(f), "--no-input", "--answer", f"{name}={value}"],
        env=cli_env(tmp_path),
        capture_output=True,
        timeout=300,
    )
    err = res.stderr.decode(errors="replace")
    assert res.returncode == 2, err[-2000:]
    assert "Traceback" not in err and f"$.answers.{fact}" in err and why in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("route", ["answers", "what-if"])
def test_api_answers_out_of_order_are_422(route: str, sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    cid = api.create_facts_case()
    r = c.post(f"/v1/cases/{cid}/{route}", json={"answers": {"claim_date": "2010-01-01"}}, headers=api.h())
    assert r.status_code == 422, r.text
    assert (
        r.json()["errors"][0]["path"] == "$.answers.claim_date" and "relation_start" in r.json()["errors"][0]["message"]
    )
    # a consistent answer is saved; a later one is checked against it
    ok = c.post(f"/v1/cases/{cid}/answers", json={"answers": {"claim_date": "2025-02-01"}}, headers=api.h())
    assert ok.status_code == 200, ok.text
    r = c.post(f"/v1/cases/{cid}/{route}", json={"answers": {"notification_date": "2025-03-01"}}, headers=api.h())
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "$.answers.notification_date", r.text
