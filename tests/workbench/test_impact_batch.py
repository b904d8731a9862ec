"""`lexlogic impact` through the batch machinery (issue 30): both versions of one pack name as ONE batch, each
item carrying its rules folder, on the local process pool — the same report as the in-process impact — and
dossier folders of the portfolio read like case files (the example dossiers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.jobs.batch_store import BatchStore
from lexlogic.engine.jobs.impact_runs import impact
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.workbench.impact import Rules
from tests.distributed.make_cases import variation, write_cases
from tests.workbench.planted import RULES, SAFE_HARBOUR, edited_rules

pytestmark = pytest.mark.timeout(900)
N = 7  # one 18-month notice (case 6), one fault that exonerates (case 0: a fatal defeater, no model)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("impact-batch")
    write_cases(tmp / "portfolio", N)
    return tmp / "portfolio", edited_rules(tmp / "rules24", "rupture_brutale", "parameters.yaml", SAFE_HARBOUR)


def test_one_batch_on_the_local_pool_equals_the_in_process_impact(setting: tuple[Path, Path], tmp_path: Path) -> None:
    portfolio, rules24 = setting
    base, new = Rules(RULES, "base"), Rules(rules24, "new")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    here = impact(portfolio, base, new, scratch=tmp_path / "a", mode="here")
    db = f"sqlite:///{tmp_path / 'pool.db'}"
    pool = impact(
        portfolio, base, new, scratch=tmp_path / "b", mode="batch", db_url=db, distributed=False, concurrency=2
    )
    assert pool.model_dump(mode="json") == here.model_dump(mode="json")
    # both versions of the one pack name ran in the one batch: only the 18-month notice flips (the recipe's
    # oracle); were every item run with one version, nothing would
    eighteen = {variation(i)["case_id"] for i in range(N) if variation(i)["facts"]["notice_given_months"] == 18}
    assert {c.case_id for c in here.flipped} == eighteen and eighteen
    assert all(not c.error for c in here.cases) and len(here.cases) == N
    store = CaseStore(db)
    rows = _all_rows(store)
    store.close()
    assert sorted(r.key.split("/")[0] for r in rows) == ["base"] * N + ["new"] * N
    assert all(r.status == "done" and r.result and r.result["status"] != "invalid" for r in rows)
    # the same batch again: every item is done, nothing re-runs, the same report
    again = impact(portfolio, base, new, scratch=tmp_path / "b", mode="batch", db_url=db, distributed=False)
    assert again.model_dump(mode="json") == here.model_dump(mode="json")


def _all_rows(store: CaseStore) -> list:  # type: ignore[type-arg]
    from lexlogic.engine.jobs.batch_store import BatchItemRow

    with BatchStore(store.engine).Session() as s:
        return list(s.query(BatchItemRow).all())


def test_the_cli_runs_the_batch(setting: tuple[Path, Path], tmp_path: Path) -> None:
    portfolio, rules24 = setting
    args = ["impact", str(portfolio), "--base", str(RULES), "--rules", str(rules24), "--format", "json"]
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    result = CliRunner().invoke(app, [*args, "--batch", "--local", "-c", "2", "--db", db])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [c["case_id"] for c in data["cases"] if c["flips"]] == ["portfolio-0006"]


def test_dossier_folders_are_read(tmp_path: Path) -> None:
    portfolio = tmp_path / "portfolio"
    shutil.copytree(EXAMPLES / "rupture_brutale/dossier", portfolio / "rupture")
    shutil.copytree(EXAMPLES / "late_payment/dossier", portfolio / "late")
    shutil.copy(EXAMPLES / "rupture_brutale/facts.json", portfolio / "facts.json")
    # a relation is now established from 240 months, not established under 200: the 11-year relation of the
    # dossier (« depuis 2013 », rupture in March 2024) and of the case file is no longer established
    rules = edited_rules(
        tmp_path / "rules",
        "rupture_brutale",
        "parameters.yaml",
        ("      - {value: 24}\n  relation_precarious_months:", "      - {value: 240}\n  relation_precarious_months:"),
        ("      - {value: 12}\n  few_orders_max:", "      - {value: 200}\n  few_orders_max:"),
    )
    (tmp_path / "s").mkdir()
    report = impact(portfolio, Rules(RULES, "base"), Rules(rules, "new"), scratch=tmp_path / "s", mode="here")
    by = {c.key: c for c in report.cases}
    assert set(by) == {"facts.json", "late", "rupture"}
    assert all(c.error is None for c in report.cases), [c.error for c in report.cases]
    for key in ("rupture", "facts.json"):  # the dossier moves exactly as the law of the edited pack says
        assert by[key].flips.get("liable", ("", ""))[1] == "no", by[key]
        assert by[key].p_new == 0.0 and by[key].p_base and by[key].p_base > 0
    # the late-payment dossier is analysed with the pack its dossier.yaml names, which the change leaves alone
    assert not by["late"].flips and by["late"].delta_p == 0.0 and by["late"].p_base is not None
    assert report.changed_parameters == {
        "rupture_brutale.relation_established_months": ([[None, 24]], [[None, 240]]),
        "rupture_brutale.relation_precarious_months": ([[None, 12]], [[None, 200]]),
    }
