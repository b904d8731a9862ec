"""The lost-message rule on its own (engine/jobs/lost.py): a long queue is never taken for lost messages,
and the messages missing from a queue are the OLDEST queued leases of that stage. The broker-restart fault
test (test_worker_faults.py) shows it end to end on a real Redis."""

from __future__ import annotations

import time
from pathlib import Path

from lexlogic.engine.jobs import lost
from lexlogic.engine.store.cases import CaseStore


def _queued(store: CaseStore, run_id: str, phase: str) -> str:
    store.save(run_id, {"phase": phase}, phase=phase, status="running", state_hash="h")
    token = f"queued:{run_id}"
    assert store.claim(run_id, token, 3600)
    time.sleep(0.02)  # distinct enqueue times: FIFO order is claim order
    return token


def test_long_queue_is_not_lost_and_the_oldest_missing_are(tmp_path: Path) -> None:
    store = CaseStore(f"sqlite:///{tmp_path / 'q.db'}")
    for rid, phase in [("i1", "INIT"), ("a1", "PLANNING"), ("i2", "INIT"), ("a2", "EXECUTING"), ("i3", "INIT")]:
        _queued(store, rid, phase)
    assert store.claim("busy", "host:1:w", 30)  # a run a worker holds: never a candidate
    # every message still queued (or more: duplicates): nothing lost, however long the queue
    assert lost.lost_leases(store, {"ingest": 3, "analysis": 2}, grace=0) == []
    assert lost.lost_leases(store, {"ingest": 50, "analysis": 9}, grace=0) == []
    # one ingest message and both analysis messages gone: the oldest of each stage
    got = [x["case_id"] for x in lost.lost_leases(store, {"ingest": 2, "analysis": 0}, grace=0)]
    assert got == ["i1", "a1", "a2"]
    # too recent to judge (a worker may be taking it right now): never lost
    assert lost.lost_leases(store, {"ingest": 0, "analysis": 0}, grace=3600) == []


def test_requeue_takes_the_lease_over_once(tmp_path: Path) -> None:
    store = CaseStore(f"sqlite:///{tmp_path / 'q.db'}")
    token = _queued(store, "r", "INIT")
    [lease] = lost.lost_leases(store, {"ingest": 0}, grace=0)
    sent: list[tuple[str, str]] = []
    assert lost.requeue(store, lease, lambda rid, tok: sent.append((rid, tok)))
    assert len(sent) == 1 and sent[0][0] == "r" and sent[0][1] != token
    assert store.lease("r")["owner"] == sent[0][1]  # the new token, still a queued lease
    assert not lost.requeue(store, lease, lambda rid, tok: sent.append((rid, tok)))  # a 2nd resumer loses
    assert len(sent) == 1
