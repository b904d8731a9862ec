"""`lexlogic impact` on real Celery workers (issue 30): both versions of one pack name in ONE batch on the
machine's RabbitMQ and PostgreSQL, each item carrying its rules folder to the workers; the report is the
in-process impact's."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexlogic.engine.jobs.impact_runs import impact
from lexlogic.engine.workbench.impact import Rules
from lexlogic.settings import Settings
from tests.distributed.conftest import Cluster
from tests.distributed.make_cases import write_cases
from tests.workbench.planted import RULES, SAFE_HARBOUR, edited_rules

pytestmark = pytest.mark.timeout(600)


def test_impact_on_two_workers_equals_the_in_process_impact(as_client: Cluster, tmp_path: Path) -> None:
    write_cases(tmp_path / "portfolio", 7)
    rules24 = edited_rules(tmp_path / "rules24", "rupture_brutale", "parameters.yaml", SAFE_HARBOUR)
    base, new = Rules(RULES, "base"), Rules(rules24, "new")
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    here = impact(tmp_path / "portfolio", base, new, scratch=tmp_path / "a", mode="here")
    as_client.start("iw1")
    as_client.start("iw2")
    remote = impact(
        tmp_path / "portfolio",
        base,
        new,
        scratch=tmp_path / "b",
        mode="batch",
        settings=Settings(),  # this process speaks to the cluster: its broker, from the environment
        db_url=as_client.db_url,
        distributed=True,
        timeout=400,
    )
    assert remote.model_dump(mode="json") == here.model_dump(mode="json")
    assert [c.case_id for c in remote.flipped] == ["portfolio-0006"]
    logs = "".join((as_client.home / f"{w}.log").read_text(errors="replace") for w in ("iw1", "iw2"))
    # the 14 items (7 cases, two versions) ran on the workers, not in this process
    assert logs.count("succeeded in") >= 14 and logs.count("'done'") >= 14
