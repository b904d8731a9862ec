"""The case FSM: INIT → PLANNING → EXECUTING → EVALUATING → VERDICT | INTERACTING | PLANNING.

Every transition (and every executed task) is persisted as a full snapshot (``engine.store.cases``),
so a run killed at any point resumes from its last snapshot, and any snapshot can be restored or
replayed. Watchdogs: a repeated state hash (a loop) and a budget of steps/tokens/cost stop the run
with an explicit status. Evaluation is pluggable (``engine.evaluation.Evaluator``).

The plan is real work, in its order: EXECUTING first runs the symbolic analysis (one clingo solve, a
persisted step), then settles the plan's checks one per step, defeaters first; when a fatal defeater is
established (prescription, arbitration…), the remaining checks are skipped and EVALUATING builds the
verdict WITHOUT the probabilistic model (the target is then decided: P is 0 or 1), which is the work a
defeater saves — ``timings`` and the log say so. Otherwise EVALUATING runs the probabilistic verdict.
An INCONSISTENT case (the rules reject the facts) is terminal, with its reason; it is never re-planned.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.engine.documents.ingest import ingest_dossier
from lexlogic.engine.documents.model import Document
from lexlogic.engine.evaluation import Evaluator, default_evaluator
from lexlogic.engine.packs import default_pack, pack_by_name
from lexlogic.engine.perception.model import to_case_file, validate_case_file
from lexlogic.engine.perception.offline import extract
from lexlogic.engine.planner import Plan, is_major_fact, load_checks, make_plan, replan_major_fact, replan_missing
from lexlogic.engine.store.cases import LEASE_SECONDS, CaseStore, Hold
from lexlogic.engine.verdict_model import Verdict, VerdictStatus
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.errors import LexlogicError


class Phase(str, Enum):
    INIT = "INIT"
    PLANNING = "PLANNING"
    EXECUTING = "EXECUTING"
    EVALUATING = "EVALUATING"
    INTERACTING = "INTERACTING"
    VERDICT = "VERDICT"
    INCONSISTENT = "INCONSISTENT"


TERMINAL_STATUSES = ("verdict", "awaiting_answer", "stopped_budget", "stopped_loop", "inconsistent", "error")


class Budget(BaseModel):
    max_steps: int = 200
    max_tokens: int = 200_000
    max_cost: float = 5.0
    steps: int = 0
    tokens: int = 0
    cost: float = 0.0

    def exceeded(self) -> str | None:
        if self.steps >= self.max_steps:
            return f"steps {self.steps}/{self.max_steps}"
        if self.tokens > self.max_tokens:
            return f"tokens {self.tokens}/{self.max_tokens}"
        if self.cost > self.max_cost:
            return f"cost {self.cost:.2f}/{self.max_cost:.2f}"
        return None


def _own_facts(perception: Any, pack: str) -> Any:
    """Keep the findings of the case's pack only (the structural readers still name one pack's facts)."""
    facts = pack_by_name(pack)[0].facts
    perception.findings = [f for f in perception.findings if f.fact in facts]
    return perception


class CaseState(BaseModel):
    case_id: str
    pack: str = Field(default_factory=default_pack)
    source: str = ""
    phase: Phase = Phase.INIT
    status: str = "running"
    message: str = ""
    documents: list[dict[str, Any]] = Field(default_factory=list, description="id, sha256, kind, title, key")
    case_file: dict[str, Any] | None = None
    ambiguities: list[dict[str, Any]] = Field(default_factory=list)
    ontology: dict[str, Any] | None = None
    plan: Plan | None = None
    outcomes: dict[str, dict[str, Any]] | None = Field(
        default=None, description="symbolic outcomes (status, missing) of the case and answers of `analysed_hash`"
    )
    analysed_hash: str | None = None
    fatal_check: str | None = Field(default=None, description="the defeater that settled the case, if any")
    evaluation: Verdict | None = None
    evaluated_hash: str | None = None
    answers: dict[str, Any] = Field(default_factory=dict)
    pending_question: dict[str, Any] | None = None
    budget: Budget = Field(default_factory=Budget)
    timings: dict[str, float] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=list)

    def logical_hash(self) -> str:
        """What the loop detector compares: the reasoning content, not counters or timings."""
        return canonical_hash(
            {
                "phase": self.phase.value,
                "case": self.case_file,
                "answers": self.answers,
                "plan": [(t.id, t.status) for t in self.plan.tasks] if self.plan else None,
                "eval": self.evaluation.status.value if self.evaluation else None,
                "q": self.pending_question,
            }
        )


AnswerProvider = Callable[[dict[str, Any], "CaseState"], Any]  # question → answer (None: no answer)


class Orchestrator:
    def __init__(
        self,
        store: CaseStore,
        evaluator: Evaluator | None = None,
        *,
        llm: Any = None,
        answer_provider: AnswerProvider | None = None,
        loop_limit: int = 3,
        on_transition: Callable[[CaseState, int], None] | None = None,
        job: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        # how another process resumes this run if this one dies (kept with the run's lease)
        self.job = job or {"kind": "run", "llm": llm is not None}
        self._holds: dict[str, Hold] = {}
        self.evaluator = evaluator or default_evaluator()
        self.llm = llm
        self.answer_provider = answer_provider
        self.loop_limit = loop_limit
        self.on_transition = on_transition
        self.step_delay = float(os.environ.get("LEXLOGIC_STEP_DELAY", "0") or 0)  # test/debug knob
        self._docs: dict[str, Document] = {}

    # --- persistence ------------------------------------------------------------------------------
    def persist(self, state: CaseState, note: str = "") -> int:
        t = time.perf_counter()
        seq = self.store.save(
            state.case_id,
            state.model_dump(mode="json"),
            phase=state.phase.value,
            status=state.status,
            state_hash=state.logical_hash(),
            note=note,
            source=state.source,
            hold=self._holds.get(state.case_id),
        )
        self._time(state, "persist", t)
        if self.on_transition:
            self.on_transition(state, seq)
        if self.step_delay:
            time.sleep(self.step_delay)
        return seq

    @staticmethod
    def _time(state: CaseState, stage: str, t0: float) -> None:
        state.timings[stage] = round(state.timings.get(stage, 0.0) + time.perf_counter() - t0, 6)

    def documents(self, state: CaseState) -> list[Document]:
        """The case's documents, from the content-addressed store (loaded once)."""
        out = []
        for d in state.documents:
            if d["key"] not in self._docs:
                raw = self.store.get_document(d["key"])
                if raw is None:
                    raise KeyError(f"document {d['id']} ({d['key']}) missing from the store")
                self._docs[d["key"]] = Document.model_validate(raw)
            out.append(self._docs[d["key"]])
        return out

    # --- the run loop ---------------------------------------------------------------------------------
    def start(self, case_id: str, source: str, pack: str | None = None) -> CaseState:
        state = CaseState(case_id=case_id, source=source, pack=pack or default_pack())
        self.persist(state, "created")
        return state

    # --- leases: one run per case at a time (engine.store.cases) ---------------------------------------
    def claim(
        self, case_id: str, *, owner: str | None = None, adopt: str | None = None, ttl: float = LEASE_SECONDS
    ) -> Hold:
        """Take the case's lease before any write (RunBusyError if another run holds it)."""
        if case_id in self._holds:
            return self._holds[case_id]
        h = self.store.acquire(case_id, owner, ttl=ttl, job=self.job, adopt=adopt)
        self._holds[case_id] = h
        return h

    def let_go(self, case_id: str, *, release: bool = True) -> None:
        h = self._holds.pop(case_id, None)
        if h is not None:
            self.store.let_go(h, release=release)

    def run(self, state: CaseState, until: Callable[[CaseState], bool] | None = None) -> CaseState:
        """Advance until a terminal status (or ``until``), holding the case's lease (claimed here if the
        caller did not)."""
        if state.case_id not in self._holds:
            self.claim(state.case_id)
            try:
                return self.run(state, until)
            finally:
                self.let_go(state.case_id)
        seen = self.store.hashes(state.case_id)
        if state.status == "awaiting_answer" and self.answer_provider is not None:
            state.status = "running"  # try the provider once more (new answers, a terminal)
        while state.status == "running":
            over = state.budget.exceeded()
            if over:
                state.status, state.message = "stopped_budget", f"budget exceeded: {over}"
                self.persist(state, state.message)
                break
            state = self.step(state)
            state.budget.steps += 1
            h = state.logical_hash()
            if state.status == "running" and seen.count(h) + 1 >= self.loop_limit:
                state.status, state.message = (
                    "stopped_loop",
                    f"loop detected: state {h[:12]} reached {self.loop_limit} times in {state.phase.value}",
                )
            seen.append(h)
            self.persist(state, state.message if state.status != "running" else state.phase.value)
            if until is not None and until(state):
                break
        return state

    def step(self, state: CaseState) -> CaseState:
        handler = {
            Phase.INIT: self._init,
            Phase.PLANNING: self._plan,
            Phase.EXECUTING: self._execute,
            Phase.EVALUATING: self._evaluate,
            Phase.INTERACTING: self._interact,
            Phase.VERDICT: lambda s: s,
            Phase.INCONSISTENT: lambda s: s,
        }[state.phase]
        return handler(state)

    # --- phases -------------------------------------------------------------------------------------------
    def _init(self, state: CaseState) -> CaseState:
        t = time.perf_counter()
        docs = ingest_dossier(state.source)
        self._time(state, "ingest", t)
        state.documents = []
        for d in docs:
            key = canonical_hash({"sha": d.sha256, "id": d.id, "v": 1})
            self.store.put_document(key, d.model_dump(mode="json"))
            self._docs[key] = d
            state.documents.append(
                {"id": d.id, "sha256": d.sha256, "kind": d.kind.value, "title": d.title, "path": d.path, "key": key}
            )
        t = time.perf_counter()
        perception = self._perceive(docs, state.pack)
        state.case_file = to_case_file(perception, state.case_id, state.pack)
        validate_case_file(state.case_file)
        state.ambiguities = [a.model_dump(mode="json") for a in perception.ambiguities]
        state.ontology = perception.ontology.model_dump(mode="json")
        self._time(state, "perceive", t)
        state.log.append(
            f"{len(docs)} documents, {len(state.case_file['facts'])} facts, {len(perception.ambiguities)} ambiguities"
        )
        self._journal_evidence(state, docs)
        state.phase = Phase.PLANNING
        return state

    def _journal_evidence(self, state: CaseState, docs: list[Document]) -> None:
        """What the documents state explicitly goes into the evidence graph's journal (same database, same
        spans), so the verdict, the report and the graph share one evidence store. Idempotent per document."""
        from lexlogic.engine.kg.from_case import record_documents

        t = time.perf_counter()
        url = self.store.engine.url.render_as_string(hide_password=False)
        try:
            added = record_documents(state.case_id, docs, db_url=url)
            state.log.append(f"graphe de preuves : {added} assertions explicites journalisées")
        except LexlogicError as exc:  # the verdict does not depend on the graph: say so and go on
            state.log.append(f"graphe de preuves non alimenté : {exc}")
        self._time(state, "evidence_graph", t)

    def _perceive(self, docs: list[Document], pack: str):  # type: ignore[no-untyped-def]
        if self.llm is not None:
            from lexlogic.engine.perception.llm import perceive_with_llm

            try:
                return perceive_with_llm(self.llm, docs, pack=pack)
            except Exception as exc:  # the offline extractor is the floor, never a crash
                p = _own_facts(extract(docs, pack), pack)
                p.conflicts.append(f"LLM perception failed ({exc}); offline extractor used")
                return p
        return _own_facts(extract(docs, pack), pack)

    def _plan(self, state: CaseState) -> CaseState:
        t = time.perf_counter()
        if state.plan is None:
            summary = ", ".join(
                f"{k}={(v['value'] if isinstance(v, dict) else v)}"
                for k, v in (state.case_file or {}).get("facts", {}).items()
            )
            state.plan = make_plan(state.pack, self.llm, summary)
            state.log.append(f"plan ({state.plan.source}): {' → '.join(state.plan.order())}")
        self._time(state, "plan", t)
        state.phase = Phase.EXECUTING
        return state

    @staticmethod
    def _facts_hash(state: CaseState) -> str:
        return canonical_hash({"case": state.case_file, "answers": state.answers})

    def _execute(self, state: CaseState) -> CaseState:
        """One unit of the plan per (persisted) step: first the symbolic analysis, then each check in the
        planned order; a fatal defeater skips the rest of the plan."""
        assert state.plan is not None
        t = time.perf_counter()
        h = self._facts_hash(state)
        if state.outcomes is None or state.analysed_hash != h:
            state.outcomes = self.evaluator.outcomes(state.case_file or {}, dict(state.answers))
            state.analysed_hash, state.fatal_check = h, None
            self._time(state, "analyse", t)
            state.log.append(
                "analyse symbolique : " + ", ".join(f"{k}={v['status']}" for k, v in state.outcomes.items())
            )
            return state
        task = state.plan.next_ready()
        if task is None:
            state.phase = Phase.EVALUATING
            return state
        if task.kind == "acquire":
            task.status = "done" if task.fact in state.answers else "failed"
            task.result = None if task.fact in state.answers else {"missing": task.fact}
            self._time(state, "execute", t)
            return state
        check = {c.id: c for c in load_checks(state.pack)}[task.check or task.id]
        outcome = state.outcomes.get(check.outcome, {"status": "unknown", "missing": []})
        status, missing = outcome.get("status", "unknown"), list(outcome.get("missing", []))
        task.result = {"outcome": check.outcome, "value": status, "missing": missing}
        if status == "unknown" and missing and not any(d.startswith("acquire:") for d in task.depends_on):
            state.plan = replan_missing(state.plan, task.id, missing[:3])
            state.plan.get(task.id).status = "failed"
            state.plan.get(task.id).result = task.result
        else:
            task.status = "done" if status != "unknown" else "failed"
            if check.fatal_if and status == check.fatal_if:
                skipped = [o.id for o in state.plan.tasks if o.status == "pending"]
                for other in state.plan.tasks:
                    if other.status == "pending":
                        other.status = "skipped"
                state.fatal_check = check.id
                state.log.append(
                    f"défendeur fatal {check.id} ({check.outcome}={status}) : {len(skipped)} vérification(s) "
                    "et le modèle probabiliste ne sont pas exécutés"
                )
        self._time(state, "execute", t)
        return state

    def _evaluate(self, state: CaseState) -> CaseState:
        h = self._facts_hash(state)
        if state.evaluation is None or state.evaluated_hash != h:
            t = time.perf_counter()
            state.evaluation = self.evaluator.evaluate(
                state.case_file or {}, dict(state.answers), probabilistic=state.fatal_check is None
            )
            state.evaluated_hash = h
            self._time(state, "evaluate", t)
        ev = state.evaluation
        if ev.status is VerdictStatus.INCONSISTENT:
            state.phase = Phase.INCONSISTENT
            state.status = "inconsistent"
            state.message = f"faits incompatibles avec les règles : {ev.summary}"
            state.pending_question = None
            return state
        if ev.status is VerdictStatus.NEEDS_INFORMATION:
            asked = [q for q in ev.questions if q.fact not in state.answers]
            if asked:
                state.pending_question = asked[0].model_dump(mode="json")
                state.phase = Phase.INTERACTING
                return state
        state.phase = Phase.VERDICT
        state.status = "verdict"
        state.pending_question = None
        return state

    def _interact(self, state: CaseState) -> CaseState:
        q = state.pending_question
        answer = self.answer_provider(q, state) if (self.answer_provider and q) else None
        if answer is None or q is None:
            state.status = "awaiting_answer"
            state.message = f"question : {q['question']}" if q else "question en attente"
            return state
        return self.add_answers(state, {q["fact"]: answer})

    @staticmethod
    def add_answers(state: CaseState, answers: dict[str, Any]) -> CaseState:
        """Record answers (asked or volunteered) and re-plan: a major fact re-opens its defeater."""
        for fact, answer in answers.items():
            state.answers[fact] = answer
            state.log.append(f"answer {fact} = {answer!r}")
            if is_major_fact(state.plan, fact) and state.plan is not None:
                state.plan = replan_major_fact(state.plan, fact)
            elif state.plan is not None:  # re-open what the answer can change
                for t in state.plan.tasks:
                    if t.status in ("failed", "skipped") or t.id == f"acquire:{fact}":
                        t.status = "pending"
        state.pending_question = None
        if state.phase in (Phase.INTERACTING, Phase.VERDICT, Phase.EVALUATING):
            state.phase = Phase.PLANNING
        state.status = "running"
        return state


def replay(
    store: CaseStore, case_id: str, seq: int, evaluator: Evaluator | None = None, replay_id: str | None = None
) -> CaseState:
    """Re-run a case from snapshot ``seq`` under a new id (the original history is untouched)."""
    raw = store.get(case_id, seq)
    state = CaseState.model_validate(raw)
    state.case_id = replay_id or f"{case_id}@{seq}"
    if state.status != "running" and state.phase is not Phase.VERDICT:
        state.status = "running"
    orch = Orchestrator(store, evaluator)
    orch.persist(state, f"replay of {case_id} from {seq}")
    return orch.run(state)
