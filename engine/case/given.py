"""A facts file through the one driver: the case state machine, entered after perception.

A facts file is a case whose facts are given (no documents to ingest, nothing to read), so it enters the
same ``Orchestrator`` as a dossier at PLANNING, the step after perception, and goes through the same steps:
the plan, the symbolic analysis, the checks (a fatal defeater skips the probabilistic model), the verdict,
the question, the answer. It is analysed afresh every time, so the run is kept in memory (no store, no
lease); its transitions still go to ``on_transition``. The flags mean the same on both kinds of input
because they are options of the same evaluator and the same machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lexlogic.engine.case.evaluation import CaseEvaluator, Evaluator
from lexlogic.engine.case.machine import AnswerProvider, CaseState, Orchestrator
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.logic.facts import CaseFile


def run_given(
    case: CaseFile,
    *,
    packs: PackLibrary,
    evaluator: Evaluator | None = None,
    answers: dict[str, Any] | None = None,
    answer_provider: AnswerProvider | None = None,
    on_transition: Callable[[CaseState, int], None] | None = None,
    source: str = "",
    max_steps: int | None = None,
) -> CaseState:
    """Run the state machine on a given case; ``answers`` are volunteered right after perception (as for a
    dossier), ``answer_provider(question, state)`` is asked the rest (None: stop at the question)."""
    orch = Orchestrator(
        None,
        evaluator or CaseEvaluator(packs),
        packs=packs,
        answer_provider=answer_provider,
        on_transition=on_transition,
    )
    state = orch.enter_after_perception(CaseState(case_id=case.case_id, pack=case.pack, source=source), case)
    if max_steps is not None:
        state.budget.max_steps = max_steps
    orch.persist(state, "created")
    if answers:
        state = orch.add_answers(state, answers)
        orch.persist(state, "answers: " + ", ".join(answers))
    return orch.run(state)
