"""Issue 22 on the machine's real RabbitMQ and PostgreSQL: workers killed -9 lose nothing and do nothing twice.

- a batch of 40 case files on two workers, one killed -9 mid-batch: 40 results, each item completed once,
  each run's history as long as an uninterrupted run's, the same results as the local pool;
- a run resumed on another worker (its first worker killed -9 mid-run) ends identical to an uninterrupted run;
- the HTTP API enqueues a run on the workers and answers the same result and events as a local run.
"""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase
from lexlogic.engine.jobs.batch import BatchStore, run_batch, write_results
from lexlogic.engine.jobs.tasks import Job, submit
from lexlogic.engine.store.cases import CaseStore
from lexlogic.settings import Settings
from tests.distributed.conftest import Cluster
from tests.support.packs import SHIPPED

pytestmark = pytest.mark.timeout(600)
EXAMPLE = json.loads((Path(__file__).resolve().parents[2] / "examples/rupture_brutale/facts.json").read_text())


def _jsonl(results) -> str:  # type: ignore[no-untyped-def]
    buf = io.StringIO()
    write_results(results, buf, "jsonl")
    return buf.getvalue()


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps({k: v for k, v in state.items() if k not in ("case_id", "timings", "source")}))
    return out


def _owner_pid(owner: str) -> int | None:
    parts = owner.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


@pytest.fixture(scope="module")
def local_reference(portfolio: Path, tmp_path_factory) -> tuple[str, dict[str, int]]:  # type: ignore[no-untyped-def]
    """The same batch on the local pool (no broker): its results file and each item's number of states."""
    db = f"sqlite:///{tmp_path_factory.mktemp('local') / 'local.db'}"
    report = run_batch(portfolio, packs=SHIPPED, settings=Settings(), db_url=db, distributed=False, concurrency=2)
    store = CaseStore(db)
    states = {r.key: len(store.states(r.run_id)) for r in BatchStore(store.engine).items(report.batch_id)}
    store.close()
    return _jsonl(report.results), states


def test_two_workers_one_killed_mid_batch_every_case_once(as_client: Cluster, portfolio: Path, local_reference) -> None:
    c = as_client
    c.start("w1", step_delay=0.05)
    c.start("w2", step_delay=0.05)
    pids = c.group("w1")  # its main process and its pool process
    store = CaseStore(c.db_url)
    box: dict[str, Any] = {}

    def go() -> None:
        try:
            box["report"] = run_batch(
                portfolio, packs=SHIPPED, settings=Settings(), db_url=c.db_url, batch_id="killed", timeout=240
            )
        except Exception as exc:  # pragma: no cover - reported below
            box["error"] = exc

    t = threading.Thread(target=go)
    t.start()
    victim, deadline = None, time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and t.is_alive():  # w1 inside an item, a few done
        done = sum(1 for r in BatchStore.on(store.engine).items("killed") if r.status == "done")
        with store.Session() as s:
            from lexlogic.engine.store.cases import CaseLease

            held = [(row.case_id, _owner_pid(row.owner)) for row in s.query(CaseLease).all()]
        mine = [run for run, pid in held if pid in pids and run.startswith("batch-killed-")]
        if done >= 2 and mine and store.head_seq(mine[0]) >= 3:
            victim = mine[0]
        else:
            time.sleep(0.02)
    assert "error" not in box, box.get("error")
    assert victim, f"w1 never held an item ({'batch over' if not t.is_alive() else 'timeout'})"
    c.kill9("w1")  # mid-item: the run's lease stays, its message unacknowledged
    t.join(260)
    assert "error" not in box, box.get("error")
    report = box["report"]
    assert report.mode == "celery" and len(report.results) == 40
    assert sorted(r.key for r in report.results) == sorted({r.key for r in report.results})  # one per case
    rows = BatchStore(store.engine).items("killed")
    assert all(r.status == "done" for r in rows) and len(rows) == 40
    killed_row = next(r for r in rows if r.run_id == victim)
    assert killed_row.attempts >= 2  # redelivered to w2, which resumed it
    ref_jsonl, ref_states = local_reference
    assert {r.key: len(store.states(r.run_id)) for r in rows} == ref_states  # no step persisted twice
    assert _jsonl(report.results) == ref_jsonl  # the same results as the local pool
    assert store.orphans() == [] and store.lease(victim) is None
    again = run_batch(
        portfolio, packs=SHIPPED, settings=Settings(), db_url=c.db_url, batch_id="killed", timeout=60
    )  # resumable: all skipped
    assert again.skipped == 40 and _jsonl(again.results) == ref_jsonl
    store.close()


def _facts_run(store: CaseStore, run_id: str) -> None:
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name("rupture_brutale")
    case_file = parse_case(json.loads(json.dumps(EXAMPLE)), pack).model_dump(mode="json")
    state = CaseState(case_id=run_id, pack="rupture_brutale", source="facts", phase=Phase.PLANNING, case_file=case_file)
    store.save(
        run_id,
        state.model_dump(mode="json"),
        phase=state.phase.value,
        status=state.status,
        state_hash=state.logical_hash(),
        note="created",
        source="facts",
    )


def test_a_run_resumed_on_another_worker_ends_identical(as_client: Cluster) -> None:
    c = as_client
    c.stop_all()
    store = CaseStore(c.db_url)
    _facts_run(store, "moved-run")
    c.start("slow", step_delay=0.4)
    submit("moved-run", Job(kind="run"), settings=Settings(), store=store)
    deadline = time.monotonic() + 60
    while store.head_seq("moved-run") < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    lease = store.lease("moved-run")
    assert lease and _owner_pid(lease["owner"]) in c.group("slow")
    c.kill9("slow")  # mid-run
    assert store.latest("moved-run")[1]["status"] == "running"
    c.start("other")  # the redelivered message (and the resumer) bring the run here
    deadline = time.monotonic() + 90
    while (store.lease("moved-run") or store.latest("moved-run")[1]["status"] == "running") and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    _facts_run(store, "ref-run")  # the same case, uninterrupted, on the same worker
    submit("ref-run", Job(kind="run"), settings=Settings(), store=store)
    while (store.lease("ref-run") or store.latest("ref-run")[1]["status"] == "running") and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    final = store.latest("moved-run")[1]
    assert final["status"] == store.latest("ref-run")[1]["status"] == "verdict"
    assert _comparable(final) == _comparable(store.latest("ref-run")[1])
    phases = [(r["phase"], r["status"]) for r in store.states("moved-run")]
    assert phases == [(r["phase"], r["status"]) for r in store.states("ref-run")]
    store.close()


def test_the_api_enqueues_runs_and_answers_as_a_local_run(as_client: Cluster, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from lexlogic.api.app import create_app
    from lexlogic.api.deps import ApiSettings

    c = as_client
    if not c.workers:
        c.start("other")
    app = create_app(ApiSettings(db_url=c.db_url, data_dir=tmp_path / "data"))
    _, key = app.state.services.tenants.create_key("tenant-d")
    h = {"X-API-Key": key}
    with TestClient(app) as client:
        health = client.get("/v1/health").json()
        assert health["broker"]["mode"] == "celery" and health["broker"]["reachable"], health
        assert any(w.startswith("other-") for w in health["broker"]["workers"]), health
        cid = client.post("/v1/cases", json={"case_file": EXAMPLE}, headers=h).json()["id"]
        r = client.post(f"/v1/cases/{cid}/run?stream=false", headers=h)
        assert r.status_code == 200, r.text
        remote = r.json()
        assert remote["status"] == "verdict" and remote["phase"] == "VERDICT"
        with client.stream("POST", f"/v1/cases/{cid}/run?restart=true", headers=h) as s:
            events = [line.split(": ", 1)[1] for line in s.iter_lines() if line.startswith("event: ")]
        assert events[0] == "start" and events[-1] == "done" and "transition" in events
        states = client.get(f"/v1/cases/{cid}/states", headers=h).json()
    store = CaseStore(c.db_url)
    _facts_run(store, "api-local-ref")
    local = Orchestrator(store, packs=SHIPPED).run(CaseState.model_validate(store.latest("api-local-ref")[1]))
    assert remote["status"] == local.status and remote["log"] == local.log[-20:]
    assert states[-1]["status"] == "verdict" and [s["note"] for s in states].count("restart") == 1
    store.close()


def test_a_dossier_goes_through_the_ingest_queue_then_analysis(as_client: Cluster, tmp_path: Path) -> None:
    import shutil

    from tests.distributed.make_cases import write_cases

    c = as_client
    if not c.workers:
        c.start("other")
    write_cases(tmp_path / "mixed", 1)
    d = tmp_path / "mixed" / "lemoine"
    d.mkdir()
    for name in ("00-note-avocat.md", "05-courriel-dereferencement.eml"):
        shutil.copy(Path(__file__).resolve().parents[2] / "examples/rupture_brutale/dossier" / name, d)
    report = run_batch(
        tmp_path / "mixed", packs=SHIPPED, settings=Settings(), db_url=c.db_url, batch_id="mixed", timeout=240
    )
    assert report.mode == "celery" and [r.kind for r in report.results] == ["case", "dossier"]
    assert all(r.status not in ("invalid", "error") for r in report.results), report.results
    store = CaseStore(c.db_url)
    rows = {r.key: r for r in BatchStore(store.engine).items("mixed")}
    assert rows["lemoine"].attempts == 2 and rows["case-0000.json"].attempts == 1  # ingest, then analysis
    phases = [s["phase"] for s in store.states(rows["lemoine"].run_id)]
    assert phases[0] == "INIT" and phases.count("INIT") == 1 and "PLANNING" in phases
    store.close()
