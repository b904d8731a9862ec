"""The step functions without a broker: idempotence, time limits, giving up, batch discovery and resumption."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexlogic.engine.case.machine import Orchestrator
from lexlogic.engine.jobs.batch import BatchStore, discover, run_batch
from lexlogic.engine.jobs.tasks import Job, Resumer, advance
from lexlogic.engine.store.cases import CaseLease, CaseStore, host_id
from lexlogic.settings import Settings
from tests.distributed.make_cases import write_cases
from tests.distributed.test_distributed import _facts_run
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path, monkeypatch) -> CaseStore:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LEXLOGIC_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LEXLOGIC_BROKER_URL", raising=False)
    return CaseStore(f"sqlite:///{tmp_path / 'steps.db'}")


def test_advance_is_idempotent(store: CaseStore) -> None:
    _facts_run(store, "r1")
    first = advance("r1", Job(), settings=Settings(), store=store)
    n = store.head_seq("r1")
    again = advance("r1", Job(), settings=Settings(), store=store)  # a duplicate delivery: nothing more is written
    assert first.outcome == again.outcome == "done" and first.status == "verdict"
    assert store.head_seq("r1") == n and store.lease("r1") is None


def test_a_time_limit_stops_the_run_with_an_error(store: CaseStore, monkeypatch) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    _facts_run(store, "slow")
    calls = {"n": 0}
    real = Orchestrator.step

    def step(self, state):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise SoftTimeLimitExceeded()
        return real(self, state)

    monkeypatch.setattr(Orchestrator, "step", step)
    res = advance("slow", Job(), settings=Settings(), store=store)
    final = store.latest("slow")[1]
    assert res.status == "error" and final["status"] == "error" and "time limit" in final["message"]
    assert store.lease("slow") is None


def test_the_resumer_gives_up_after_repeated_interruptions(store: CaseStore) -> None:
    _facts_run(store, "cursed")
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert store.claim("cursed", f"{host_id()}:{p.pid}:x")
    with store.Session.begin() as s:
        s.get(CaseLease, "cursed").attempts = 5
    assert Resumer(store, Settings()).pass_once() == ["cursed"]
    final = store.latest("cursed")[1]
    assert final["status"] == "error" and "given up" in final["message"] and store.lease("cursed") is None


def test_discovery_cases_and_dossiers(tmp_path: Path) -> None:
    write_cases(tmp_path / "cases", 3)
    (tmp_path / "cases" / "notes.json").write_text(json.dumps({"not": "a case"}))
    d = tmp_path / "dossiers" / "lemoine"
    d.mkdir(parents=True)
    shutil.copy(ROOT / "examples/rupture_brutale/dossier/00-note-avocat.md", d)
    shutil.copy(ROOT / "examples/rupture_brutale/dossier/05-courriel-dereferencement.eml", d)
    (d / "annexes").mkdir()
    (d / "annexes" / "x.md").write_text("annexe")
    items = discover(tmp_path)
    assert [(i.key, i.kind) for i in items] == [
        ("cases/case-0000.json", "case"),
        ("cases/case-0001.json", "case"),
        ("cases/case-0002.json", "case"),
        ("dossiers/lemoine", "dossier"),
    ]


def test_a_local_batch_resumes_and_reruns_only_what_changed(tmp_path: Path, store: CaseStore) -> None:
    write_cases(tmp_path / "p", 3)
    d = tmp_path / "p" / "dossier"
    d.mkdir()
    shutil.copy(ROOT / "examples/rupture_brutale/dossier/00-note-avocat.md", d)
    db = str(store.engine.url)
    first = run_batch(tmp_path / "p", packs=SHIPPED, settings=Settings(), db_url=db, concurrency=1)
    assert first.mode == "local" and first.total == 4 and first.skipped == 0
    kinds = {r.key: (r.kind, r.status) for r in first.results}
    assert kinds["dossier"][0] == "dossier" and kinds["dossier"][1] != "invalid"
    again = run_batch(tmp_path / "p", packs=SHIPPED, settings=Settings(), db_url=db, concurrency=1)
    assert again.skipped == 4 and again.results == first.results
    case = json.loads((tmp_path / "p" / "case-0001.json").read_text())
    case["facts"]["notice_given_months"] = 24
    (tmp_path / "p" / "case-0001.json").write_text(json.dumps(case))
    third = run_batch(tmp_path / "p", packs=SHIPPED, settings=Settings(), db_url=db, concurrency=1)
    assert third.skipped == 3
    assert [r.key for r in BatchStore(store.engine).items(third.batch_id) if r.status == "done"] == sorted(
        r.key for r in third.results
    )


def test_a_redelivered_step_gives_up_after_repeated_interruptions(store: CaseStore) -> None:
    _facts_run(store, "poison")
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    assert store.claim("poison", f"{host_id()}:{p.pid}:x")
    with store.Session.begin() as s:
        s.get(CaseLease, "poison").attempts = 5
    res = advance("poison", Job(), settings=Settings(), store=store)  # the broker's redelivery, not the resumer
    final = store.latest("poison")[1]
    assert res.status == "error" and "given up" in final["message"] and store.lease("poison") is None


def test_a_failing_case_stops_with_its_reason_instead_of_hanging(store: CaseStore, monkeypatch) -> None:
    _facts_run(store, "broken")

    def step(self, state):  # type: ignore[no-untyped-def]
        raise RuntimeError("rule file unreadable")

    monkeypatch.setattr(Orchestrator, "step", step)
    res = advance("broken", Job(), settings=Settings(), store=store)
    final = store.latest("broken")[1]
    assert res.status == "error" and final["message"] == "RuntimeError: rule file unreadable"
    assert store.lease("broken") is None


def test_a_state_written_by_another_version_ends_the_batch_item_without_writing_over_it(
    tmp_path: Path, store: CaseStore
) -> None:
    """A worker that cannot read a run's last state (a newer version wrote it, or it is damaged) used to raise
    pydantic's ValidationError out of the step: the item stayed pending and the batch waited for it. Now the item
    ends in ``error`` with the reason, and the run's states are left as they are."""
    from lexlogic.engine.jobs.batch_store import Item

    BatchStore(store.engine).open("b1", str(tmp_path), [Item(key="c.json", kind="case", path="c.json", digest="d")])
    _facts_run(store, "newer")
    head = dict(store.latest("newer")[1])
    head["phase"] = "DELIBERATING"  # a phase this version has never heard of
    store.save("newer", head, phase="DELIBERATING", status="running", state_hash="v2", note="lexlogic 2.0")
    n = store.head_seq("newer")
    res = advance("newer", Job(kind="batch", batch_id="b1", key="c.json"), settings=Settings(), store=store)
    assert res.outcome == "done" and res.status == "error"
    (row,) = BatchStore(store.engine).items("b1")
    assert row.status == "done" and row.result["status"] == "error", row.result
    assert "n'est pas lisible par cette version" in row.result["message"] and "phase" in row.result["message"]
    assert store.head_seq("newer") == n and store.lease("newer") is None
