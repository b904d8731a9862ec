"""Issue 34: the resumer's give-up never writes over a finished run; leases are timed by the database clock."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import update

from lexlogic.engine.case.machine import CaseState, Phase
from lexlogic.engine.jobs.tasks import Resumer
from lexlogic.engine.store.cases import CaseLease, CaseStore, db_time
from lexlogic.settings import Settings


def _finished_run_with_a_stale_lease(store: CaseStore) -> None:
    state = CaseState(case_id="c", source="x", pack="rupture_brutale", phase=Phase.VERDICT)
    state.status = "verdict"
    store.save("c", state.model_dump(mode="json"), phase="VERDICT", status="verdict", state_hash="h", note="verdict")
    # a lease left by a process of another host that ran out of time, taken over max_attempts times
    assert store.claim("c", "elsewhere~0:123:tok", ttl=0.01, job={"kind": "run"})
    with store.Session.begin() as s:
        s.execute(
            update(CaseLease).where(CaseLease.case_id == "c").values(attempts=Settings.defaults().resume_max_attempts)
        )
    time.sleep(0.05)


def test_give_up_never_overwrites_a_verdict(tmp_path: Path) -> None:
    store = CaseStore(f"sqlite:///{tmp_path / 's.db'}")
    _finished_run_with_a_stale_lease(store)
    before = store.states("c")
    assert Resumer(store, Settings.defaults(), interval=0).pass_once() == ["c"]
    after = store.states("c")
    assert after == before, after  # no « error » snapshot on top of the verdict
    assert store.latest("c")[1]["status"] == "verdict"  # type: ignore[index]
    assert store.lease("c") is None  # the stale lease is gone
    store.close()


def test_lease_expiry_is_the_database_clock(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A process whose clock runs 10 s ahead neither writes leases in its future nor sees live ones expired."""
    store = CaseStore(f"sqlite:///{tmp_path / 's.db'}")
    assert store.claim("c", "elsewhere~0:1:a", ttl=3.0)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 10.0)
    assert not store.claim("c", "elsewhere~0:2:b", ttl=3.0)  # the live lease is not taken over
    assert store.claim("d", "elsewhere~0:2:b", ttl=3.0)
    with store.Session() as s:
        now = db_time(s)
        expires = s.get(CaseLease, "d").expires_at  # type: ignore[union-attr]
    assert abs(expires - (now + 3.0)) < 1.0  # not now + 13
    store.close()
