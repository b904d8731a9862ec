"""The planner: a DAG of tasks built from the pack's declared checks, procedural defeaters first.

The declared order (pack.yaml ``checks:``) is the lawyer's order. Its leading block of defeaters
(prescription, arbitration, scope, jurisdiction) must run before any merits check: "fail fast".
Re-planning: a task that fails for missing data gets ``acquire:<fact>`` tasks inserted before it;
a major new fact (an arbitration clause found in an annex) re-opens its defeater and every merits
task already done. An LLM may propose the DAG; ``validate_proposal`` rejects or corrects it.
"""

from __future__ import annotations

import heapq
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.logic.deferred import DeferredModel
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import Check, RulePack

PROCEDURAL_KINDS = ("defeater", "note")


class Task(BaseModel):
    id: str
    kind: str = Field(description="check | acquire")
    check: str | None = None
    fact: str | None = None
    label: str = ""
    depends_on: list[str] = Field(default_factory=new_list)
    status: str = "pending"  # pending | done | failed | skipped
    result: dict[str, Any] | None = None
    reopened_by: list[str] = Field(default_factory=new_list, description="facts whose arrival re-opens this check")


class Plan(BaseModel):
    tasks: list[Task]
    source: str = "declared"  # declared | llm | llm-corrected
    revision: int = 0
    corrections: list[str] = Field(default_factory=new_list)
    history: list[str] = Field(default_factory=new_list)

    def get(self, task_id: str) -> Task:
        return next(t for t in self.tasks if t.id == task_id)

    def order(self) -> list[str]:
        """Topological order, ties broken by position in the task list (the declared order)."""
        return topological(self.tasks)

    def next_ready(self) -> Task | None:
        done = {t.id for t in self.tasks if t.status in ("done", "skipped")}
        by_id: dict[str, Task] = {}
        for t in self.tasks:
            by_id.setdefault(t.id, t)  # the first of an id, as ``get``
        for tid in self.order():
            t = by_id[tid]
            if t.status == "pending" and all(d in done for d in t.depends_on):
                return t
        return None


class CycleInPlan(LexlogicError, ValueError):
    pass


_ORDERS: dict[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...]] = {}
_ORDERS_SIZE = 1024


def topological(tasks: list[Task]) -> list[str]:
    """Each step places the first task (in list order) whose dependencies are all placed — by a heap of the
    ready tasks' positions. The order is a function of the tasks' ids and dependencies only, and runs at
    every step of every run: it is remembered under them (a portfolio's cases share a few plans)."""
    key = tuple((t.id, tuple(t.depends_on)) for t in tasks)
    hit = _ORDERS.get(key)
    if hit is None:
        hit = tuple(_topological(tasks))
        if len(_ORDERS) >= _ORDERS_SIZE:
            _ORDERS.pop(next(iter(_ORDERS)))
        _ORDERS[key] = hit
    return list(hit)


def _topological(tasks: list[Task]) -> list[str]:
    ids = [t.id for t in tasks]
    known = set(ids)
    deps = {t.id: [d for d in t.depends_on if d in known] for t in tasks}  # the last task of an id, as before
    position: dict[str, int] = {}
    for k, i in enumerate(ids):
        position.setdefault(i, k)
    waiting = {i: set(ds) for i, ds in deps.items()}
    users: dict[str, list[str]] = {}
    for i, ds in waiting.items():
        for d in ds:
            users.setdefault(d, []).append(i)
    ready = [position[i] for i, ds in waiting.items() if not ds]
    heapq.heapify(ready)
    out: list[str] = []
    placed: set[str] = set()
    while ready:
        i = ids[heapq.heappop(ready)]
        out.append(i)
        placed.add(i)
        for u in users.get(i, []):
            waiting[u].discard(i)
            if not waiting[u] and u not in placed:
                heapq.heappush(ready, position[u])
    if len(out) < len(ids):  # a cycle (or an id listed twice, as before)
        raise CycleInPlan("cycle among tasks: " + ", ".join(i for i in ids if i not in placed))
    return out


def load_checks(pack: RulePack) -> list[Check]:
    """The pack's declared checks (the pack model's own ``Check``), copied: a plan may change them."""
    return [c.model_copy() for c in pack.manifest.checks]


def checks_by_id(pack: RulePack) -> dict[str, Check]:
    """The pack's declared checks by id, to read only (not copied: a step of a run looks one up)."""
    return {c.id: c for c in pack.manifest.checks}


def procedural_prefix(checks: list[Check]) -> list[str]:
    """The leading block of defeaters (and procedural notes) in declared order."""
    out = []
    for c in checks:
        if c.kind not in PROCEDURAL_KINDS:
            break
        out.append(c.id)
    return out


def declared_plan(checks: list[Check]) -> Plan:
    """Defeaters independent of each other; the first merits check waits for all of them; the merits
    checks follow in the declared order (each waits for the previous one)."""
    prefix = procedural_prefix(checks)
    tasks: list[Task] = []
    prev: str | None = None
    for c in checks:
        if c.id in prefix:
            deps: list[str] = []
        else:
            deps = [prev] if prev else list(prefix)
            prev = c.id
        tasks.append(
            Task(id=c.id, kind="check", check=c.id, label=c.label, depends_on=deps, reopened_by=list(c.reopened_by))
        )
    return Plan(tasks=tasks)


def is_major_fact(plan: Plan | None, fact: str) -> bool:
    """Does `fact` re-open a check of this plan (the pack said so in ``reopened_by``)?"""
    return plan is not None and any(fact in t.reopened_by for t in plan.tasks)


# --- re-planning ------------------------------------------------------------------------------------


def replan_missing(plan: Plan, task_id: str, missing: list[str]) -> Plan:
    """Insert an ``acquire:<fact>`` task before ``task_id`` for each missing fact."""
    plan = plan.model_copy(deep=True)
    task = plan.get(task_id)
    pos = plan.tasks.index(task)
    for fact in missing:
        tid = f"acquire:{fact}"
        if not any(t.id == tid for t in plan.tasks):
            plan.tasks.insert(
                pos,
                Task(
                    id=tid,
                    kind="acquire",
                    fact=fact,
                    label=f"obtenir « {fact} »",
                    depends_on=[d for d in task.depends_on if not d.startswith("acquire:")],
                ),
            )
            pos += 1
        if tid not in task.depends_on:
            task.depends_on.append(tid)
    task.status = "pending"
    plan.revision += 1
    plan.history.append(f"r{plan.revision}: {task_id} lacks {', '.join(missing)}")
    return plan


def replan_major_fact(plan: Plan, fact: str) -> Plan:
    """Re-open the defeater a major fact bears on, and every merits task already evaluated."""
    check = next((t.id for t in plan.tasks if fact in t.reopened_by), None)
    if check is None:
        return plan
    plan = plan.model_copy(deep=True)
    prefix = {t.id for t in plan.tasks if t.kind == "check" and not t.depends_on}
    for t in plan.tasks:
        if t.id == check or (t.kind == "check" and t.id not in prefix and t.status != "pending"):
            t.status, t.result = "pending", None
    plan.revision += 1
    plan.history.append(f"r{plan.revision}: major fact {fact} re-opens {check}")
    return plan


# --- LLM proposals ---------------------------------------------------------------------------------


class ProposedTask(DeferredModel):  # an LLM's proposal: built when one is read
    id: str
    depends_on: list[str] = Field(default_factory=new_list)


class ProposedPlan(DeferredModel):
    tasks: list[ProposedTask]


def validate_proposal(proposal: ProposedPlan, checks: list[Check]) -> Plan:
    """Accept an LLM's DAG only as far as the pack allows: unknown tasks dropped, missing checks added,
    a cyclic proposal rejected (declared plan used), defeaters forced before the merits."""
    known = {c.id: c for c in checks}
    prefix = procedural_prefix(checks)
    notes: list[str] = []
    tasks: list[Task] = []
    for p in proposal.tasks:
        if p.id not in known:
            notes.append(f"unknown task '{p.id}' rejected")
            continue
        if any(t.id == p.id for t in tasks):
            notes.append(f"duplicate task '{p.id}' ignored")
            continue
        bad = [d for d in p.depends_on if d not in known]
        if bad:
            notes.append(f"'{p.id}': unknown dependencies {bad} dropped")
        tasks.append(
            Task(
                id=p.id,
                kind="check",
                check=p.id,
                label=known[p.id].label,
                depends_on=[d for d in p.depends_on if d in known and d != p.id],
                reopened_by=list(known[p.id].reopened_by),
            )
        )
    declared = declared_plan(checks)
    for t in declared.tasks:
        if not any(x.id == t.id for x in tasks):
            notes.append(f"missing check '{t.id}' added")
            tasks.append(t.model_copy(deep=True))
    try:
        topological(tasks)
    except CycleInPlan as exc:
        return Plan(tasks=declared.tasks, source="declared", corrections=notes + [f"rejected: {exc}"])
    for t in tasks:
        if t.id in prefix:
            leaked = [d for d in t.depends_on if d not in prefix]
            if leaked:
                notes.append(f"defeater '{t.id}' must not wait for merits checks {leaked}: dependencies removed")
                t.depends_on = [d for d in t.depends_on if d in prefix]
            continue
        ancestors = _ancestors(tasks, t.id)
        missing = [d for d in prefix if d not in ancestors]
        if missing:
            notes.append(f"'{t.id}' ran before defeaters {missing}: corrected")
            t.depends_on += missing
    try:
        topological(tasks)
    except CycleInPlan as exc:  # a correction closed a cycle: fall back to the pack's order
        return Plan(tasks=declared.tasks, source="declared", corrections=notes + [f"rejected: {exc}"])
    # keep the declared order as the tie-breaker
    rank = {c.id: i for i, c in enumerate(checks)}
    tasks.sort(key=lambda t: rank[t.id])
    return Plan(tasks=tasks, source="llm-corrected" if notes else "llm", corrections=notes)


def _ancestors(tasks: list[Task], tid: str) -> set[str]:
    by_id = {t.id: t for t in tasks}
    seen: set[str] = set()
    todo = list(by_id[tid].depends_on)
    while todo:
        d = todo.pop()
        if d in seen or d not in by_id:
            continue
        seen.add(d)
        todo.extend(by_id[d].depends_on)
    return seen


def propose_with_llm(client: Any, checks: list[Check], case_summary: str) -> Plan:
    """Ask the LLM for a DAG over the pack's checks, then validate it (never trusted as is)."""
    listing = "\n".join(f"- {c.id} ({c.kind}): {c.label}" for c in checks)
    messages = [
        {
            "role": "system",
            "content": "You plan the legal analysis of a case under the checks of a rule pack. Answer JSON only: "
            '{"tasks": [{"id": CHECK_ID, "depends_on": [CHECK_ID, ...]}]}.',
        },
        {
            "role": "user",
            "content": f"Checks of the rule pack:\n{listing}\n\nCase:\n{case_summary}\n"
            "Propose the order (a DAG) in which to run these checks.",
        },
    ]
    proposal = client.complete_json(messages, ProposedPlan)
    return validate_proposal(proposal, checks)


def make_plan(pack: RulePack, client: Any = None, case_summary: str = "") -> Plan:
    checks = load_checks(pack)
    if client is None:
        return declared_plan(checks)
    try:
        return propose_with_llm(client, checks, case_summary)
    except Exception as exc:  # LLM down or never valid: the pack's declared order
        plan = declared_plan(checks)
        plan.corrections.append(f"LLM plan unavailable ({exc}); declared order used")
        return plan
