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

import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from lexlogic.engine.case.evaluation import CaseEvaluator, Evaluator
from lexlogic.engine.case.planner import (
    Plan,
    checks_by_id,
    is_major_fact,
    make_plan,
    replan_major_fact,
    replan_missing,
)
from lexlogic.engine.documents.model import Document
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.verdict.model import Verdict, VerdictStatus
from lexlogic.logic.canonical import DumpOnce, canonical_dump, canonical_hash, canonical_hash_with
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack

if TYPE_CHECKING:  # a facts file's run has no store and reads no documents: their modules load when used
    from lexlogic.engine.store.cases import CaseStore, Hold


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


def _own_facts(perception: Any, pack: RulePack) -> Any:
    """Keep the findings of the case's pack only (the structural readers still name one pack's facts)."""
    perception.findings = [f for f in perception.findings if f.fact in pack.facts]
    return perception


class RunInputs(BaseModel):
    """What a run reads, by content: a changed piece or pack is a new run, never a stale resume."""

    digest: str = Field(description="sha256 over the documents' digests and the pack's")
    documents: dict[str, str] = Field(default_factory=dict, description="relative path → sha256 of the file")
    pack: str
    pack_version: str = Field(description="the digest of the pack's files")
    recorded_at: str = Field("", description="when the run started (ISO 8601, UTC)")


class CaseState(BaseModel):
    case_id: str
    pack: str
    source: str = ""
    inputs: RunInputs | None = Field(default=None, description="the run's key: its documents and pack, by content")
    phase: Phase = Phase.INIT
    status: str = "running"
    message: str = ""
    documents: list[dict[str, Any]] = Field(default_factory=new_list, description="id, sha256, kind, title, key")
    case_file: dict[str, Any] | None = None
    ambiguities: list[dict[str, Any]] = Field(default_factory=new_list)
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
    reopened: int = Field(default=0, description="times the run was re-opened under other options (what-if…)")
    pending_question: dict[str, Any] | None = None
    budget: Budget = Field(default_factory=Budget)
    timings: dict[str, float] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=new_list)

    _case_dump: DumpOnce = PrivateAttr(default_factory=DumpOnce)  # the case file's canonical text, once
    _facts_digest: tuple[str, str, str] | None = PrivateAttr(default=None)  # ``Orchestrator._facts_hash``'s last

    def case_digest_parts(self) -> dict[str, str]:
        """``{"case": canonical dump of the case file}`` (dumped once per case-file object)."""
        return {"case": self._case_dump(self.case_file)}

    def logical_hash(self) -> str:
        """What the loop detector compares: the reasoning content, not counters or timings (``reopened``: a
        run re-opened under other options goes through the same steps again on purpose, not in a loop).
        The case file (the bulk, replaced but never changed in place) is dumped once per object."""
        return canonical_hash_with(self._logical_parts(), self.case_digest_parts())

    def loop_key(self) -> tuple[str, str]:
        """``logical_hash``'s content, not hashed: (the case file's dump, the other parts' canonical dump). Equal
        keys ⇔ equal hashes; a run kept in memory compares these (no sha256 over the case file at every step)."""
        return self.case_digest_parts()["case"], canonical_dump(self._logical_parts())

    def _logical_parts(self) -> dict[str, Any]:
        return {
            "phase": self.phase.value,
            "answers": self.answers,
            "reopened": self.reopened,
            "plan": [(t.id, t.status) for t in self.plan.tasks] if self.plan else None,
            "eval": self.evaluation.status.value if self.evaluation else None,
            "q": self.pending_question,
        }


def read_state(raw: dict[str, Any], where: str) -> CaseState:
    """A saved state, typed; ``UnreadableState`` (409, exit 2) when this version cannot read it.

    Why: the API's and ``lexlogic case replay``'s reads had no guard, so a snapshot written by another version
    answered 500 / a traceback; ``analyze`` (``dossier._start_or_resume``) already starts afresh in that case.
    ``where``: the case and state, for the message."""
    from lexlogic.engine.store.cases import UnreadableState

    try:
        return CaseState.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "$"
        raise UnreadableState(
            f"{where} : l'analyse enregistrée n'est pas lisible par cette version "
            f"({exc.error_count()} écart(s), le premier à {loc} : {first['msg']}) ; "
            "relancez l'analyse avec cette version ou lisez-la avec celle qui l'a écrite"
        ) from None


AnswerProvider = Callable[[dict[str, Any], "CaseState"], Any]  # question → answer (None: no answer)


class Orchestrator:
    """The one driver of a case: a dossier enters at INIT (its documents to read), a facts file at PLANNING
    (a case with no documents: ``enter_after_perception``). ``store=None``: the run is not persisted (a facts
    file is analysed afresh every time); its transitions still go through ``persist`` and ``on_transition``,
    and the loop detector keeps its hashes in memory."""

    def __init__(
        self,
        store: CaseStore | None,
        evaluator: Evaluator | None = None,
        *,
        packs: PackLibrary,
        llm: Any = None,
        answer_provider: AnswerProvider | None = None,
        loop_limit: int = 3,
        on_transition: Callable[[CaseState, int], None] | None = None,
        job: dict[str, Any] | None = None,
        step_delay: float = 0.0,
        documents_cache: Path | None = None,
        read_document: Callable[[Path], Document] | None = None,
    ) -> None:
        self.store = store
        self.packs = packs
        # how another process resumes this run if this one dies (kept with the run's lease)
        self.job = job or {"kind": "run", "llm": llm is not None}
        self._holds: dict[str, Hold] = {}
        self.evaluator = evaluator or CaseEvaluator(packs)
        self.llm = llm
        self.answer_provider = answer_provider
        self.loop_limit = loop_limit
        self.on_transition = on_transition
        # (stage, done, total, item) inside a long phase: "ingest" per document file (the CLI's progress)
        self.on_progress: Callable[[str, int, int, str], None] | None = None
        self.step_delay = step_delay  # test/debug knob (Settings.step_delay)
        self.documents_cache = documents_cache  # the document/OCR cache folder (Settings.documents_cache)
        # how a dossier file is read: None = here, through ``documents_cache`` (the CLI's own files); a
        # dossier of uploads passes the isolated reader (a limited child, the tenant's cache)
        self.read_document = read_document
        self._docs: dict[str, Document] = {}
        self._seq: dict[str, int] = {}  # the transitions of runs kept in memory (no store)

    # --- persistence ------------------------------------------------------------------------------
    def persist(self, state: CaseState, note: str = "") -> int:
        t = time.perf_counter()
        if self.store is None:  # a run in memory: numbered, reported, never written
            seq = self._seq[state.case_id] = self._seq.get(state.case_id, 0) + 1
        else:
            seq = self._save(state, note)
        self._time(state, "persist", t)
        if self.on_transition:
            self.on_transition(state, seq)
        if self.step_delay:
            time.sleep(self.step_delay)
        return seq

    def db(self) -> CaseStore:
        """The run's store (a step that reads or writes it cannot run in memory: no documents there)."""
        if self.store is None:
            raise RuntimeError("this step needs the case store; a run in memory has no documents to keep")
        return self.store

    def _save(self, state: CaseState, note: str) -> int:
        return self.db().save(
            state.case_id,
            state.model_dump(mode="json"),
            phase=state.phase.value,
            status=state.status,
            state_hash=state.logical_hash(),
            note=note,
            source=state.source,
            hold=self._holds.get(state.case_id),
        )

    @staticmethod
    def _time(state: CaseState, stage: str, t0: float) -> None:
        state.timings[stage] = round(state.timings.get(stage, 0.0) + time.perf_counter() - t0, 6)

    def documents(self, state: CaseState) -> list[Document]:
        """The case's documents, from the content-addressed store (loaded once)."""
        out = []
        for d in state.documents:
            if d["key"] not in self._docs:
                raw = self.db().get_document(d["key"])
                if raw is None:
                    raise KeyError(f"document {d['id']} ({d['key']}) missing from the store")
                self._docs[d["key"]] = Document.model_validate(raw)
            out.append(self._docs[d["key"]])
        return out

    # --- the run loop ---------------------------------------------------------------------------------
    def start(self, case_id: str, source: str, pack: str | None = None, inputs: RunInputs | None = None) -> CaseState:
        state = CaseState(case_id=case_id, source=source, pack=pack or self.packs.default_name(), inputs=inputs)
        self.persist(state, "created")
        return state

    # --- leases: one run per case at a time (engine.store.cases) ---------------------------------------
    def claim(
        self, case_id: str, *, owner: str | None = None, adopt: str | None = None, ttl: float | None = None
    ) -> Hold:
        """Take the case's lease before any write (RunBusyError if another run holds it)."""
        if case_id in self._holds:
            return self._holds[case_id]
        # ttl None: the store's running lease (Settings.run_lease_seconds, given to the store at the edge)
        h = self.db().acquire(case_id, owner, ttl=ttl, job=self.job, adopt=adopt)
        self._holds[case_id] = h
        return h

    def let_go(self, case_id: str, *, release: bool = True) -> None:
        h = self._holds.pop(case_id, None)
        if h is not None:
            self.db().let_go(h, release=release)

    def run(self, state: CaseState, until: Callable[[CaseState], bool] | None = None) -> CaseState:
        """Advance until a terminal status (or ``until``), holding the case's lease (claimed here if the
        caller did not)."""
        if state.case_id not in self._holds and self.store is not None:  # a run in memory has no lease
            self.claim(state.case_id)
            try:
                return self.run(state, until)
            finally:
                self.let_go(state.case_id)
        seen: list[Any] = self.store.hashes(state.case_id) if self.store is not None else []
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
            h = self.loop_key(state)
            if state.status == "running" and seen.count(h) + 1 >= self.loop_limit:
                state.status, state.message = (
                    "stopped_loop",
                    f"loop detected: state {state.logical_hash()[:12]} reached {self.loop_limit} times in "
                    f"{state.phase.value}",
                )
            seen.append(h)
            self.persist(state, state.message if state.status != "running" else state.phase.value)
            if until is not None and until(state):
                break
        return state

    def loop_key(self, state: CaseState) -> Any:
        """What the loop detector compares: the state's hash, as the store keeps it (a run in memory may
        compare ``CaseState.loop_key`` instead: the same equalities, no hashing)."""
        return state.logical_hash()

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
        from lexlogic.engine.documents.ingest import ingest_dossier
        from lexlogic.engine.perception.model import to_case_file

        t = time.perf_counter()
        progress = self.on_progress
        docs = ingest_dossier(
            state.source,
            cache=self.documents_cache,
            read=self.read_document,
            on_file=(lambda i, n, name: progress("ingest", i, n, name)) if progress else None,
        )
        self._time(state, "ingest", t)
        state.documents = []
        for d in docs:
            key = canonical_hash({"sha": d.sha256, "id": d.id, "v": 1})
            self.db().put_document(key, d.model_dump(mode="json"))
            self._docs[key] = d
            state.documents.append(
                {"id": d.id, "sha256": d.sha256, "kind": d.kind.value, "title": d.title, "path": d.path, "key": key}
            )
        if progress:
            progress("perceive", 0, 1, "")
        t = time.perf_counter()
        pack = self.packs.pack(state.pack)
        perception = self._perceive(docs, pack)
        state.case_file = to_case_file(perception, state.case_id, pack)
        self.evaluator.read(state.case_file)  # the case typed once (CaseFileError with its JSON path)
        state.ambiguities = [a.model_dump(mode="json") for a in perception.ambiguities]
        state.ontology = perception.ontology.model_dump(mode="json")
        self._time(state, "perceive", t)
        state.log.append(
            f"{len(docs)} documents, {len(state.case_file['facts'])} facts, {len(perception.ambiguities)} ambiguities"
        )
        self._journal_evidence(state, docs)
        if progress:
            progress("perceive", 1, 1, "")
        state.phase = Phase.PLANNING
        return state

    def _journal_evidence(self, state: CaseState, docs: list[Document]) -> None:
        """What the documents state explicitly goes into the evidence graph's journal (same database, same
        spans), so the verdict, the report and the graph share one evidence store. Idempotent per document."""
        from lexlogic.engine.kg.from_case import record_documents

        t = time.perf_counter()
        url = self.db().engine.url.render_as_string(hide_password=False)
        try:
            added = record_documents(state.case_id, docs, db_url=url)
            state.log.append(f"graphe de preuves : {added} assertions explicites journalisées")
        except LexlogicError as exc:  # the verdict does not depend on the graph: say so and go on
            state.log.append(f"graphe de preuves non alimenté : {exc}")
        self._time(state, "evidence_graph", t)

    def _perceive(self, docs: list[Document], pack: RulePack):  # type: ignore[no-untyped-def]
        from lexlogic.engine.perception.offline import extract

        if self.llm is not None:
            from lexlogic.engine.perception.llm import perceive_with_llm

            try:
                return perceive_with_llm(self.llm, docs, pack)
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
            state.plan = make_plan(self.packs.pack(state.pack), self.llm, summary)
            state.log.append(f"plan ({state.plan.source}): {' → '.join(state.plan.order())}")
        self._time(state, "plan", t)
        state.phase = Phase.EXECUTING
        return state

    def _facts_hash(self, state: CaseState) -> str:
        """What the analysis and the verdict are a function of: the case, the answers, and the evaluator's
        options (what-if, dynamic rules) when it has any."""
        key: dict[str, Any] = {"answers": state.answers}
        options = self.evaluator.options()
        if options:
            key["options"] = options
        parts = state.case_digest_parts()
        # asked at every step, changed only by an answer or an option: kept while the case file's dump is the
        # same object and the answers and options print the same (equal prints, equal canonical dumps)
        seen = (parts["case"], repr(key))
        held = state._facts_digest
        if held is not None and held[0] is seen[0] and held[1] == seen[1]:
            return held[2]
        digest = canonical_hash_with(key, parts)
        state._facts_digest = (*seen, digest)
        return digest

    def _case(self, state: CaseState) -> CaseFile:
        """The state's case file, typed (the evaluator's memo: parsed once per run)."""
        if state.case_file is None:
            raise LexlogicError(f"case {state.case_id}: no case file to analyse (state {state.phase.value})")
        return self.evaluator.read(state.case_file)

    def enter_after_perception(self, state: CaseState, case: CaseFile) -> CaseState:
        """A case with no documents to ingest or read (a facts file): its case file is the perception's
        output, so the run enters at PLANNING, the step after perception, and goes on as any other case."""
        state.case_file = case.model_dump(mode="json")
        self.evaluator.adopt(state.case_file, case)  # typed when the file was read: not parsed again
        state.documents, state.phase = [], Phase.PLANNING
        state.log.append(f"faits donnés : {len(case.facts)} faits, aucune pièce à lire")
        return state

    def reconsider(self, state: CaseState) -> CaseState:
        """A saved run asked again with other options (what-if, dynamic rules): its analysis and verdict are
        stale, so the plan re-opens and the run goes on from PLANNING (the answers are kept)."""
        if state.plan is None or state.analysed_hash in (None, self._facts_hash(state)):
            return state
        for t in state.plan.tasks:
            t.status = "pending"
        state.phase, state.status, state.pending_question = Phase.PLANNING, "running", None
        state.reopened += 1
        state.log.append("options changées : analyse reprise")
        return state

    def _execute(self, state: CaseState) -> CaseState:
        """One unit of the plan per (persisted) step: first the symbolic analysis, then each check in the
        planned order; a fatal defeater skips the rest of the plan."""
        assert state.plan is not None
        t = time.perf_counter()
        h = self._facts_hash(state)
        if state.outcomes is None or state.analysed_hash != h:
            state.outcomes = self.evaluator.outcomes(self._case(state), dict(state.answers))
            state.analysed_hash, state.fatal_check = h, None
            self._time(state, "analyse", t)
            state.log.append(
                "analyse symbolique : " + ", ".join(f"{k}={v['status']}" for k, v in state.outcomes.items())
            )
            return state
        task = state.plan.next_ready()
        if task is None:
            self._settle_blocked(state)
            state.phase = Phase.EVALUATING
            return state
        if task.kind == "acquire":
            task.status = "done" if task.fact in state.answers else "failed"
            task.result = None if task.fact in state.answers else {"missing": task.fact}
            self._time(state, "execute", t)
            return state
        check = checks_by_id(self.packs.pack(state.pack))[task.check or task.id]  # read only
        outcome = state.outcomes.get(check.outcome, {"status": "unknown", "missing": []})
        status, missing = outcome.get("status", "unknown"), list(outcome.get("missing", []))
        task.result = {"outcome": check.outcome, "value": status, "missing": missing}
        if status == "unknown" and missing and not any(d.startswith("acquire:") for d in task.depends_on):
            state.plan = replan_missing(state.plan, task.id, missing[:3])
            state.plan.get(task.id).status = "failed"
            state.plan.get(task.id).result = task.result
        else:
            task.status = "done" if status != "unknown" else "failed"
            if check.fatal_if and status == check.fatal_if and self.evaluator.settles(self._case(state)):
                self._settle(state, check.id, f"{check.outcome}={status}")
        self._time(state, "execute", t)
        return state

    @staticmethod
    def _settle(state: CaseState, check_id: str, why: str) -> None:
        """A fatal defeater is established: the pending checks and the probabilistic model are not run."""
        assert state.plan is not None
        skipped = [o for o in state.plan.tasks if o.status == "pending"]
        for other in skipped:
            other.status = "skipped"
        state.fatal_check = check_id
        state.log.append(
            f"défendeur fatal {check_id} ({why}) : {len(skipped)} vérification(s) "
            "et le modèle probabiliste ne sont pas exécutés"
        )

    def _settle_blocked(self, state: CaseState) -> None:
        """A plan blocked by a missing fact: a check it could not reach may still be settled by the one
        analysis (every outcome is known after EXECUTING's solve); the first fatal one settles the case."""
        assert state.plan is not None and state.outcomes is not None
        if state.fatal_check is not None or not self.evaluator.settles(self._case(state)):
            return
        checks = checks_by_id(self.packs.pack(state.pack))  # read only
        for tid in state.plan.order():
            task = state.plan.get(tid)
            check = checks.get(task.check or task.id) if task.status == "pending" and task.kind == "check" else None
            status = state.outcomes.get(check.outcome, {}).get("status") if check is not None else None
            if check is not None and check.fatal_if and status == check.fatal_if:
                self._settle(state, check.id, f"{check.outcome}={status}, hors d'atteinte du plan")
                return

    def _evaluate(self, state: CaseState) -> CaseState:
        h = self._facts_hash(state)
        if state.evaluation is None or state.evaluated_hash != h:
            t = time.perf_counter()
            state.evaluation = self.evaluator.evaluate(
                self._case(state), dict(state.answers), probabilistic=state.fatal_check is None
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
    store: CaseStore,
    case_id: str,
    seq: int,
    *,
    packs: PackLibrary,
    evaluator: Evaluator | None = None,
    replay_id: str | None = None,
    documents_cache: Path | None = None,
) -> CaseState:
    """Re-run a case from snapshot ``seq`` under a new id (the original history is untouched).
    ``documents_cache``: the document/OCR cache (``Settings.documents_cache``) for a replay from INIT."""
    state = read_state(store.get(case_id, seq), f"{case_id}@{seq}")
    state.case_id = replay_id or f"{case_id}@{seq}"
    if state.status != "running" and state.phase is not Phase.VERDICT:
        state.status = "running"
    orch = Orchestrator(store, evaluator, packs=packs, documents_cache=documents_cache)
    orch.persist(state, f"replay of {case_id} from {seq}")
    return orch.run(state)
