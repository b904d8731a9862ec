"""The FSM on SQLite and PostgreSQL: snapshots at every transition, time travel, watchdogs."""

from __future__ import annotations

from typing import Any

from lexlogic.engine.evaluation import CaseEvaluator
from lexlogic.engine.orchestrator import CaseState, Orchestrator, Phase, replay
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.verdict_model import VerdictStatus
from tests.pipeline.conftest import DOSSIER


def _run(db_url: str, evaluator=None, answers: dict[str, Any] | None = None, case_id: str = "c1", **kw):
    store = CaseStore(db_url)
    given = dict(answers or {})
    orch = Orchestrator(
        store, evaluator or CaseEvaluator(), answer_provider=lambda q, s: given.pop(q["fact"], None), **kw
    )
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
    from lexlogic.engine.evaluation import CaseEvaluator, default_evaluator

    evaluator = default_evaluator()
    assert isinstance(evaluator, CaseEvaluator)
    store, _, state = _run(db_url, evaluator=evaluator, answers={"rupture_kind": "total", "fault_serious": False})
    # default evaluator: the lead's clingo analysis when importable
    assert state.status == "verdict", state.message
    assert state.evaluation.label.value == "LIABLE" and state.evaluation.status.value == "verdict"
    assert state.evaluation.probability.p_target is not None
    assert state.answers == {"rupture_kind": "total", "fault_serious": False}


def test_restore_and_replay(db_url):
    store, _, state = _run(db_url)
    n = len(store.states("c1"))
    planning = next(r["seq"] for r in store.states("c1") if r["phase"] == "PLANNING")
    new = store.restore("c1", planning)
    assert new == n + 1 and store.latest("c1")[1]["phase"] == "PLANNING"
    assert store.states("c1")[-1]["note"] == f"restored from {planning}"
    replayed = replay(store, "c1", planning, CaseEvaluator())
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
    store, _, state = _run(db_url, evaluator=_Contradiction())
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
    orch = _Cycling(store, CaseEvaluator())
    state = orch.run(orch.start("c1", str(DOSSIER)))
    assert state.status == "stopped_loop" and "loop detected" in state.message
    assert "PLANNING" in [r["phase"] for r in store.states("c1")[3:]]


def test_fatal_defeater_skips_the_probabilistic_model(db_url):
    """Defeaters first, fail fast: a prescribed action is settled without running the probabilistic model."""
    store = CaseStore(db_url)
    orch = Orchestrator(store, CaseEvaluator())
    state = orch.start("c3", str(DOSSIER))
    state = orch.add_answers(state, {"claim_date": "2031-01-01"})  # more than five years after the notification
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
    orch = Orchestrator(store, CaseEvaluator())
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
    replay(store, "c1", 1, CaseEvaluator(), replay_id="c1")  # the same case read again from INIT
    assert len(kg.assertions("c1")) == n
