"""Runs under concurrency and faults (issue 21, point 4): the busy check comes before any write, the loop
detector counts from the restart, a restart never interleaves with a running history, and a run whose
process died (kill -9) resumes by itself, ending exactly as an uninterrupted run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase
from lexlogic.engine.jobs.tasks import Resumer
from lexlogic.engine.store.cases import CaseStore, LeaseLostError, RunBusyError, host_id
from lexlogic.settings import Settings
from tests.support.api_app import EXAMPLE
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A final state without what legitimately differs between two runs (ids, wall-clock timings); the number
    summaries are seeded draws, identical on every run."""
    out = {k: v for k, v in state.items() if k not in ("case_id", "timings", "source")}
    out = json.loads(json.dumps(out, sort_keys=True, default=str))
    return out


def _phases_since_epoch(store: CaseStore, run_id: str) -> list[tuple[str, str]]:
    rows = store.states(run_id)
    start = max(i for i, r in enumerate(rows) if r["note"] == "restart" or r["note"].startswith("created"))
    return [(r["phase"], r["status"]) for r in rows[start + 1 :]]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_restart_of_a_finished_case_is_not_a_loop(api) -> None:
    cid = api.create_facts_case()
    first = api.client.post(f"/v1/cases/{cid}/run?stream=false", headers=api.h())
    assert first.status_code == 200 and first.json()["status"] == "verdict", first.text
    for _ in range(3):  # each restart walks through the same states again: not a loop
        r = api.client.post(f"/v1/cases/{cid}/run?stream=false&restart=true", headers=api.h())
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "verdict", r.json()["message"]


def _wait_states(api, cid: str, n: int, timeout: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = api.client.get(f"/v1/cases/{cid}/states", headers=api.h()).json()
        if len(rows) >= n:
            return rows
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} states after {timeout} s")


def _hold_after(monkeypatch, n: int) -> tuple[threading.Event, threading.Event]:
    """(reached, release): the first run to persist its ``n``-th state waits there until ``release`` is set.
    Why a gate and not a step delay: with a delay, a loaded machine let the run finish before the test's
    requests were answered (the test then saw 200, not 409); the gate holds the run busy for exactly as long
    as the test needs, whatever the load."""
    reached, release = threading.Event(), threading.Event()
    persist = Orchestrator.persist

    def gated(self: Orchestrator, state: CaseState, note: str = "") -> int:
        seq = persist(self, state, note)
        if seq == n and not reached.is_set():
            reached.set()
            release.wait(60)
        return seq

    monkeypatch.setattr(Orchestrator, "persist", gated)
    return reached, release


def test_busy_check_comes_before_any_write(api, monkeypatch) -> None:
    cid = api.create_facts_case()
    reached, release = _hold_after(monkeypatch, 4)
    results: list[httpx.Response] = []
    t = threading.Thread(
        target=lambda: results.append(api.client.post(f"/v1/cases/{cid}/run?stream=false", headers=api.h()))
    )
    t.start()
    try:
        assert reached.wait(60), "the run never reached its 4th state"
        before = _check_busy_answers(api, cid)
    finally:
        release.set()
    t.join(60)
    _check_history_untouched(api, cid, results, before)


def _check_busy_answers(api, cid: str) -> list[dict[str, Any]]:
    """While the run is held: a restart, a second run and a restore are all refused as busy (409)."""
    before = _wait_states(api, cid, 4)
    assert len(before) == 4, before
    for url in (f"/v1/cases/{cid}/run?stream=false&restart=true", f"/v1/cases/{cid}/run?stream=false"):
        r = api.client.post(url, headers=api.h())
        assert r.status_code == 409 and r.json()["type"].endswith("/busy"), r.text
    r = api.client.post(f"/v1/cases/{cid}/states/1/restore", headers=api.h())
    assert r.status_code == 409, r.text
    assert api.client.get(f"/v1/cases/{cid}/states", headers=api.h()).json() == before  # nothing written
    return before


def _check_history_untouched(api, cid: str, results: list[httpx.Response], before: list[dict[str, Any]]) -> None:
    """The held run then ends as usual, and its history holds no trace of the refused requests."""
    assert results and results[0].status_code == 200 and results[0].json()["status"] == "verdict"
    rows = api.client.get(f"/v1/cases/{cid}/states", headers=api.h()).json()
    assert rows[: len(before)] == before
    notes = [r["note"] for r in rows]
    assert "restart" not in notes and not any(n.startswith("restored") for n in notes)
    assert [r["phase"] for r in rows[1:]].count("INIT") == 0  # nothing inserted in the running history
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))


def test_concurrent_restarts_never_interleave(api, monkeypatch) -> None:
    cid = api.create_facts_case()
    assert api.client.post(f"/v1/cases/{cid}/run?stream=false", headers=api.h()).json()["status"] == "verdict"
    svc = api.client.app.state.services
    run_id = f"api-{cid}"
    clean = _phases_since_epoch(svc.runs, run_id)
    monkeypatch.setenv("LEXLOGIC_STEP_DELAY", "0.02")
    barrier = threading.Barrier(6)
    codes: list[int] = []

    def restart() -> None:
        barrier.wait()
        codes.append(api.client.post(f"/v1/cases/{cid}/run?stream=false&restart=true", headers=api.h()).status_code)

    threads = [threading.Thread(target=restart) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert sorted(codes) == [200] + [409] * 5, codes
    rows = svc.runs.states(run_id)
    assert [r["note"] for r in rows].count("restart") == 1
    assert _phases_since_epoch(svc.runs, run_id) == clean  # the restarted history is one clean run
    assert svc.runs.lease(run_id) is None


def test_a_run_that_lost_its_lease_cannot_write(db_url) -> None:
    a, b = CaseStore(db_url), CaseStore(db_url)
    state = CaseState(case_id="c", pack="rupture_brutale", source="x")
    a.save("c", state.model_dump(mode="json"), phase="INIT", status="running", state_hash="h", note="created")
    h = a.acquire("c", ttl=30)
    with pytest.raises(RunBusyError):  # anyone else: busy, nothing written
        b.save("c", state.model_dump(mode="json"), phase="INIT", status="running", state_hash="h")
    with pytest.raises(RunBusyError):
        b.acquire("c")
    a.save("c", state.model_dump(mode="json"), phase="INIT", status="running", state_hash="h", hold=h)
    a.let_go(h, release=False)  # a stalled owner: its lease runs out and another run takes over
    with a.Session.begin() as s:
        from lexlogic.engine.store.cases import CaseLease

        s.get(CaseLease, "c").expires_at = time.time() - 1
    h2 = b.acquire("c")
    with pytest.raises(LeaseLostError):
        a.save("c", state.model_dump(mode="json"), phase="INIT", status="running", state_hash="h", hold=h)
    assert b.save("c", state.model_dump(mode="json"), phase="INIT", status="running", state_hash="h", hold=h2) == 3
    b.let_go(h2)
    assert a.lease("c") is None and len(a.states("c")) == 3


def _facts_state(run_id: str) -> CaseState:
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name("rupture_brutale")
    case_file = parse_case(json.loads(json.dumps(EXAMPLE)), pack).model_dump(mode="json")
    return CaseState(case_id=run_id, pack="rupture_brutale", source="facts", phase=Phase.PLANNING, case_file=case_file)


def _create(store: CaseStore, state: CaseState) -> None:
    store.save(
        state.case_id,
        state.model_dump(mode="json"),
        phase=state.phase.value,
        status=state.status,
        state_hash=state.logical_hash(),
        note="created",
        source=state.source,
    )


def test_an_orphaned_run_resumes_and_ends_as_an_uninterrupted_one(db_url) -> None:
    store = CaseStore(db_url)
    ref = _facts_state("ref")
    _create(store, ref)
    ref = Orchestrator(store, packs=SHIPPED).run(ref)
    cut = _facts_state("cut")
    _create(store, cut)
    orch = Orchestrator(store, packs=SHIPPED, job={"kind": "run"})
    orch.claim("cut", owner=f"{host_id()}:{_dead_pid()}:gone")
    orch.run(cut, until=lambda s: s.phase is Phase.EXECUTING and s.budget.steps >= 4)  # then "killed"
    orch.let_go("cut", release=False)
    assert store.orphans()[0]["case_id"] == "cut"
    assert Resumer(store, Settings()).pass_once() == ["cut"]
    final = store.latest("cut")[1]
    assert final["status"] == ref.status == "verdict"
    assert _comparable(final) == _comparable(store.latest("ref")[1])
    assert _phases_since_epoch(store, "cut") == _phases_since_epoch(store, "ref")
    assert store.lease("cut") is None and store.orphans() == []


# --- kill -9 of a real server ---------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db_url: str, port: int, home: Path, delay: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "LEXLOGIC_DATABASE_URL": db_url,
        "LEXLOGIC_HOME": str(home),
        "LEXLOGIC_STEP_DELAY": delay,
        "LEXLOGIC_RESUME_INTERVAL": "1",
    }
    env.pop("LEXLOGIC_BROKER_URL", None)
    proc = subprocess.Popen(
        [LEXLOGIC, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code in (200, 503):
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not start")


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


def _cut_off(url: str, headers: dict[str, str]) -> None:
    """A client whose server is killed under it: its connection drops (expected here, not a test failure)."""
    with contextlib.suppress(httpx.TransportError):
        httpx.post(url, headers=headers, timeout=120)


def test_kill9_of_the_server_mid_run_resumes_without_a_call(db_url, tmp_path) -> None:
    from lexlogic.engine.store.tenants import TenantStore

    home = tmp_path / "home"
    home.mkdir()
    _, key = TenantStore(db_url).create_key("tenant-k")
    store = CaseStore(db_url)
    port = _free_port()
    server = _serve(db_url, port, home, "0.15")
    try:
        h = {"X-API-Key": key}
        base = f"http://127.0.0.1:{port}/v1/cases"
        ids = [httpx.post(base, json={"case_file": EXAMPLE}, headers=h, timeout=30).json()["id"] for _ in range(2)]
        ref = httpx.post(f"{base}/{ids[0]}/run?stream=false", headers=h, timeout=120).json()
        assert ref["status"] == "verdict"
        threading.Thread(target=_cut_off, args=(f"{base}/{ids[1]}/run?stream=false", h), daemon=True).start()
        run_id = f"api-{ids[1]}"
        deadline = time.monotonic() + 60
        while store.head_seq(run_id) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        _kill(server)  # mid-run: EXECUTING
        cut_at = store.latest(run_id)[1]
        assert cut_at["status"] == "running", cut_at["phase"]
        server = _serve(db_url, port, home, "0")  # no call: the server resumes the run by itself
        deadline = time.monotonic() + 90
        while (store.lease(run_id) is not None or store.latest(run_id)[1]["status"] == "running") and (
            time.monotonic() < deadline
        ):
            time.sleep(0.2)
        final = store.latest(run_id)[1]
        assert final["status"] == "verdict", final["message"]
        assert _comparable(final) == _comparable(store.latest(f"api-{ids[0]}")[1])
        assert _phases_since_epoch(store, run_id) == _phases_since_epoch(store, f"api-{ids[0]}")
    finally:
        _kill(server)
        store.close()
