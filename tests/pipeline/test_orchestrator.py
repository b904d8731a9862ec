"""The FSM on SQLite and PostgreSQL: snapshots at every transition, time travel, watchdogs."""

from __future__ import annotations

from typing import Any

from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase, replay
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.verdict.model import VerdictStatus
from tests.pipeline.conftest import DOSSIER
from tests.support.packs import SHIPPED


def confirm_reading(question: dict[str, Any], state: Any) -> Any:
    """The user confirms what the machine read (issue 29: a reading is asked about, not taken as proof)."""
    raw = (state.case_file.get("facts") or {}).get(question["fact"])
    return raw.get("value") if isinstance(raw, dict) and not raw.get("alternatives") else None


def _run(
    db_url: str,
    evaluator=None,
    answers: dict[str, Any] | None = None,
    case_id: str = "c1",
    confirm: bool = False,
    **kw,
):
    store = CaseStore(db_url)
    given = dict(answers or {})

    def provide(q: dict[str, Any], s: Any) -> Any:
        if q["fact"] in given:
            return given.pop(q["fact"])
        return confirm_reading(q, s) if confirm else None

    orch = Orchestrator(store, evaluator or CaseEvaluator(SHIPPED), packs=SHIPPED, answer_provider=provide, **kw)
    state = orch.run(orch.start(case_id, str(DOSSIER)))
    return store, orch, state


def test_run_persists_every_transition_and_stops_at_question(db_url):
    store, _, state = _run(db_url)
    assert state.phase is Phase.INTERACTING and state.status == "awaiting_answer"
    assert state.pending_question["fact"] == "rupture_kind"  # the ambiguity has the best EIG/cost
    rows = store.states("c1")
    phases = [r["phase"] for r in rows]
    assert phases[0] == "INIT" and "PLANNING" in phases and "EVALUATING" in phases and phases[-1] == "INTERACTING"
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    head = CaseState.model_validate(store.latest("c1")[1])
    assert head.case_file == state.case_file and head.plan.order()[0] == "prescription"


def test_answers_lead_to_verdict_with_the_default_evaluator(db_url):
    store, _, state = _run(db_url, answers={"rupture_kind": "total", "fault_serious": False}, confirm=True)
    # default evaluator: the lead's clingo analysis when importable; the readings it asks about are confirmed
    assert state.status == "verdict", state.message
    assert state.evaluation.label.value == "LIABLE" and state.evaluation.status.value == "verdict"
    assert state.evaluation.probability.p_target is not None
    assert {"rupture_kind": "total", "fault_serious": False}.items() <= state.answers.items()
    read = state.case_file["facts"]
    assert all(read[f]["value"] == v for f, v in state.answers.items() if f not in ("rupture_kind", "fault_serious"))


def test_restore_and_replay(db_url):
    store, _, state = _run(db_url)
    n = len(store.states("c1"))
    planning = next(r["seq"] for r in store.states("c1") if r["phase"] == "PLANNING")
    new = store.restore("c1", planning)
    assert new == n + 1 and store.latest("c1")[1]["phase"] == "PLANNING"
    assert store.states("c1")[-1]["note"] == f"restored from {planning}"
    replayed = replay(store, "c1", planning, packs=SHIPPED, evaluator=CaseEvaluator(SHIPPED))
    assert replayed.case_id == f"c1@{planning}"
    assert replayed.pending_question == state.pending_question  # deterministic replay
    assert len(store.states("c1")) == n + 1  # the original history is untouched


class _Contradiction(CaseEvaluator):
    """The rules reject the facts: the verdict is INCONSISTENT."""

    name = "contradiction"

    def evaluate(self, case_facts, answers, *, probabilistic=True):
        v = super().evaluate(case_facts, answers, probabilistic=probabilistic)
        return v.model_copy(update={"status": VerdictStatus.INCONSISTENT, "summary": "contrainte violée"})


def test_inconsistent_is_terminal_with_its_reason(db_url):
    store, _, state = _run(db_url, evaluator=_Contradiction(SHIPPED))
    assert state.phase is Phase.INCONSISTENT and state.status == "inconsistent"
    assert "contrainte violée" in state.message
    assert store.latest("c1")[1]["status"] == "inconsistent"
    assert [r["phase"] for r in store.states("c1")].count("PLANNING") == 1  # never re-planned


class _Cycling(Orchestrator):
    """A faulty step that always sends the case back to planning: the loop detector must stop it."""

    def _evaluate(self, state):
        state.plan = None
        state.phase = Phase.PLANNING
        return state


def test_loop_detector_stops_a_cycling_run(db_url):
    store = CaseStore(db_url)
    orch = _Cycling(store, CaseEvaluator(SHIPPED), packs=SHIPPED)
    state = orch.run(orch.start("c1", str(DOSSIER)))
    assert state.status == "stopped_loop" and "loop detected" in state.message
    assert "PLANNING" in [r["phase"] for r in store.states("c1")[3:]]


def test_fatal_defeater_skips_the_probabilistic_model(db_url):
    """Defeaters first, fail fast: a prescribed action is settled without running the probabilistic model."""
    store = CaseStore(db_url)
    orch = Orchestrator(store, CaseEvaluator(SHIPPED), packs=SHIPPED)
    state = orch.start("c3", str(DOSSIER))
    # more than five years after the notification, and raised by the defence (the judge does not raise it, issue 31)
    state = orch.add_answers(state, {"claim_date": "2031-01-01", "prescription_raised": True})
    state = orch.run(state)
    assert state.status == "verdict", state.message
    assert state.fatal_check == "prescription"
    assert state.plan.tasks[0].id == "prescription" and state.plan.tasks[0].status == "done"
    assert any(t.status == "skipped" for t in state.plan.tasks[1:])
    assert state.evaluation.probability.method == "symbolic" and state.evaluation.probability.p_target == 0.0
    assert state.evaluation.label.value == "NOT_LIABLE"
    assert any("défendeur fatal prescription" in line for line in state.log)
    assert "evaluate" in state.timings and "analyse" in state.timings


def test_budget_stops_with_a_clear_status(db_url):
    store = CaseStore(db_url)
    orch = Orchestrator(store, CaseEvaluator(SHIPPED), packs=SHIPPED)
    state = orch.start("c2", str(DOSSIER))
    state.budget.max_steps = 4
    state = orch.run(state)
    assert state.status == "stopped_budget" and state.message == "budget exceeded: steps 4/4"
    assert store.latest("c2")[1]["status"] == "stopped_budget"


def test_documents_feed_the_evidence_graph_once(db_url):
    """Perception's documents become explicit assertions of the evidence graph, in the case's database;
    a replay adds nothing."""
    from lexlogic.engine.kg.store import KGStore

    store, _, state = _run(db_url)
    kg = KGStore(db_url)
    n = len(kg.assertions("c1"))
    assert n > 0 and any("graphe de preuves" in line for line in state.log)
    assert any(s.doc_id == "01-contrat-cadre" for a in kg.assertions("c1") for s in a.bundle.spans)
    replay(
        store, "c1", 1, packs=SHIPPED, evaluator=CaseEvaluator(SHIPPED), replay_id="c1"
    )  # the same case read again from INIT
    assert len(kg.assertions("c1")) == n
