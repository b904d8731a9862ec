"""Issue 34, point 4: a run resumed at ANY step ends exactly as an uninterrupted one.

The example dossier (rupture brutale: 8 documents, 23 persisted steps to its question) is run once without interruption.
Then, for every step k in turn, a run of the same dossier is interrupted right after step k (its
orchestrator stops and is dropped, as a process killed after its k-th transaction leaves the store) and
resumed from the store by a fresh orchestrator with a freshly loaded rule pack. Each interrupted run has its
own database and the same case id, so the comparison needs no exclusion but wall-clock timings: the final
state (verdict, proofs, questions, log) and the whole history (phase, status, logical hash, note of every
snapshot) must equal the clean run's.

Before: resuming after the first EXECUTING step ended with 5 unknown outcomes whose proof had flipped
(``holds``), because the reference answer set was « any model » of a clingo Control shared by the whole
process, and which model came first depended on what that Control had solved before; the perception's
ids were random, so two runs of one dossier never had the same hashes either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.case.machine import CaseState, Orchestrator
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.store.cases import CaseStore

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"
CASE = "resume-every-step"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _library() -> PackLibrary:
    return PackLibrary(ROOT / "rules", "rupture_brutale")


def _final(store: CaseStore) -> dict[str, Any]:
    latest = store.latest(CASE)
    assert latest is not None
    state = {k: v for k, v in latest[1].items() if k != "timings"}
    return json.loads(json.dumps(state, sort_keys=True, default=str))


def _history(store: CaseStore) -> list[tuple[str, str, str, str]]:
    return [(r["phase"], r["status"], r["hash"], r["note"]) for r in store.states(CASE)]


def _interrupted_after(k: int, db: Path) -> CaseStore:
    """A run stopped right after its k-th step, then resumed by a new orchestrator (new pack library)."""
    store = CaseStore(f"sqlite:///{db}")
    first = Orchestrator(store, packs=_library())
    state = first.start(CASE, str(DOSSIER), "rupture_brutale")
    steps = 0

    def stop(_: CaseState) -> bool:
        nonlocal steps
        steps += 1
        return steps >= k

    first.run(state, until=stop)
    del first
    latest = store.latest(CASE)
    assert latest is not None
    resumed = CaseState.model_validate(latest[1])
    Orchestrator(store, packs=_library()).run(resumed)
    return store


def test_resume_after_every_step_equals_the_clean_run(tmp_path: Path) -> None:
    clean = CaseStore(f"sqlite:///{tmp_path / 'clean.db'}")
    Orchestrator(clean, packs=_library()).run(
        Orchestrator(clean, packs=_library()).start(CASE, str(DOSSIER), "rupture_brutale")
    )
    want_final, want_history = _final(clean), _history(clean)
    steps = len(want_history) - 1  # the first snapshot is the creation, not a step
    assert want_final["status"] in ("verdict", "awaiting_answer") and steps > 10, (want_final["status"], steps)
    differ: dict[int, list[str]] = {}
    for k in range(1, steps):
        store = _interrupted_after(k, tmp_path / f"k{k}.db")
        got_final, got_history = _final(store), _history(store)
        store.close()
        if got_final != want_final or got_history != want_history:
            fields = sorted(f for f in set(got_final) | set(want_final) if got_final.get(f) != want_final.get(f))
            differ[k] = fields + (["<history>"] if got_history != want_history else [])
    assert not differ, f"resumed runs that differ from the clean run (step: fields): {differ}"
    print(f"{steps - 1} interruption points, each resumed to the clean run's final state and history")
