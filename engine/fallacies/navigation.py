"""The master loop: walk the taxonomy from the root, obeying a navigator's tool calls.

The original design could not stop: nested loops over levels had no way to say "there is no fallacy".
Here one loop pops nodes from a bounded beam; each step returns a StepStatus, and
``conclude_no_fallacy`` is a status (CONCLUDED) that ends the whole search where it is returned —
no flag carried across loops. A branch whose navigator answer is empty is simply dropped.
"""

from __future__ import annotations

import heapq
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.actions import ConcludeNoFallacy, ConfirmFallacy, Decision, ExploreBranch, Navigator
from lexlogic.engine.fallacies.taxonomy import FallacyNode, Taxonomy
from lexlogic.logic.model_defaults import new_list


class StepStatus(str, Enum):
    CONTINUE = "continue"
    CONCLUDED = "concluded"  # conclude_no_fallacy: the search ends here


class ConfirmedFallacy(BaseModel):
    node_id: str
    path: str
    name_fr: str
    name_en: str
    family_id: str
    family_fr: str
    trail: list[str] = Field(description="French names from the first family down to the fallacy")
    confidence: float
    justification: str


class TraceStep(BaseModel):
    node_id: str
    path: str
    depth: int
    actions: list[dict] = Field(default_factory=new_list)
    errors: list[str] = Field(default_factory=new_list)
    status: StepStatus = StepStatus.CONTINUE


class FallacyAnalysis(BaseModel):
    """The result: confirmed fallacies, or "no fallacy" with the reason."""

    argument: str
    outcome: Literal["fallacies", "no_fallacy"]
    confirmed: list[ConfirmedFallacy] = Field(default_factory=new_list)
    reason: str | None = None
    stopped_by: Literal["conclude_no_fallacy", "exhausted", "budget"]
    navigator: str
    taxonomy: str
    trace: list[TraceStep] = Field(default_factory=new_list)

    @property
    def top(self) -> ConfirmedFallacy | None:
        return max(self.confirmed, key=lambda c: c.confidence) if self.confirmed else None


class StepOutcome(BaseModel):
    status: StepStatus
    explore: list[ExploreBranch] = Field(default_factory=new_list)
    confirmed: list[ConfirmFallacy] = Field(default_factory=new_list)
    reason: str | None = None
    trace: TraceStep


def validate(decision: Decision, taxonomy: Taxonomy, node: FallacyNode) -> tuple[list, list[str]]:
    """Keep the actions that make sense at ``node``; describe the others (never raise)."""
    children = set(node.children_ids)
    kept: list = []
    errors = list(decision.errors)
    for action in decision.actions:
        if isinstance(action, ExploreBranch):
            target = taxonomy.get(action.node_id)
            if target is None:
                errors.append(f"explore_branch: unknown node {action.node_id!r}")
            elif action.node_id not in children:
                errors.append(f"explore_branch: {action.node_id!r} is not a child of {node.id!r}")
            elif target.is_leaf:
                errors.append(f"explore_branch: {action.node_id!r} is a leaf (confirm it or conclude)")
            else:
                kept.append(action)
        elif isinstance(action, ConfirmFallacy):
            if taxonomy.get(action.node_id) is None:
                errors.append(f"confirm_fallacy: unknown node {action.node_id!r}")
            elif action.node_id not in children and action.node_id != node.id:
                errors.append(f"confirm_fallacy: {action.node_id!r} is neither {node.id!r} nor one of its children")
            elif action.node_id == taxonomy.root.id:
                errors.append("confirm_fallacy: the root is not a fallacy type; pick a branch")
            else:
                kept.append(action)
        else:
            kept.append(action)
    return kept, errors


def step(argument: str, taxonomy: Taxonomy, navigator: Navigator, node: FallacyNode) -> StepOutcome:
    """Ask the navigator at one node and turn its answer into a status (the stop condition lives here)."""
    decision = navigator.decide(argument, taxonomy, node)
    actions, errors = validate(decision, taxonomy, node)
    trace = TraceStep(
        node_id=node.id, path=node.path, depth=node.depth, actions=[a.model_dump() for a in actions], errors=errors
    )
    conclude = next((a for a in actions if isinstance(a, ConcludeNoFallacy)), None)
    confirmed = [a for a in actions if isinstance(a, ConfirmFallacy)]
    explore = sorted(
        (a for a in actions if isinstance(a, ExploreBranch)), key=lambda a: -(a.score if a.score is not None else 0.0)
    )
    if conclude is not None:
        trace.status = StepStatus.CONCLUDED
        return StepOutcome(status=StepStatus.CONCLUDED, confirmed=confirmed, reason=conclude.reason, trace=trace)
    return StepOutcome(status=StepStatus.CONTINUE, explore=explore, confirmed=confirmed, trace=trace)


def _confirmed(taxonomy: Taxonomy, action: ConfirmFallacy) -> ConfirmedFallacy:
    node = taxonomy.nodes[action.node_id]
    family = taxonomy.family(node.id)
    trail = [n.name_fr for n in taxonomy.ancestors(node.id)[1:]] + [node.name_fr]
    return ConfirmedFallacy(
        node_id=node.id,
        path=node.path,
        name_fr=node.name_fr,
        name_en=node.name_en,
        family_id=family.id,
        family_fr=family.name_fr,
        trail=trail,
        confidence=action.confidence,
        justification=action.justification,
    )


def navigate(
    argument: str, taxonomy: Taxonomy, navigator: Navigator, *, beam_width: int = 2, max_steps: int = 24
) -> FallacyAnalysis:
    """Best-first walk from the root; at most ``beam_width`` branches opened per step, ``max_steps`` in all.

    Priority: the navigator's score, then depth (finish a branch before opening the next one: an LLM
    lists its explorations in order of preference), then order of arrival.

    A conclude_no_fallacy ends the search: fallacies confirmed before it (on other branches, or in the
    same reply) are kept — the navigator confirmed them — and only when none was confirmed is the result
    "no fallacy" with the navigator's reason.
    """
    frontier: list[tuple[float, int, int, str]] = [(0.0, 0, 0, taxonomy.root.id)]
    seen = {taxonomy.root.id}
    found: dict[str, ConfirmedFallacy] = {}
    trace: list[TraceStep] = []
    counter = 0
    stopped_by: Literal["conclude_no_fallacy", "exhausted", "budget"] = "exhausted"
    reason: str | None = None
    while frontier:
        if len(trace) >= max_steps:
            stopped_by = "budget"
            break
        *_, node_id = heapq.heappop(frontier)
        outcome = step(argument, taxonomy, navigator, taxonomy.nodes[node_id])
        trace.append(outcome.trace)
        for action in outcome.confirmed:
            if action.node_id not in found or found[action.node_id].confidence < action.confidence:
                found[action.node_id] = _confirmed(taxonomy, action)
        if outcome.status is StepStatus.CONCLUDED:
            stopped_by, reason = "conclude_no_fallacy", outcome.reason
            break
        for branch in outcome.explore[:beam_width]:
            if branch.node_id in seen:
                continue
            seen.add(branch.node_id)
            counter += 1
            depth = taxonomy.nodes[branch.node_id].depth
            heapq.heappush(frontier, (-(branch.score or 0.0), -depth, counter, branch.node_id))
    confirmed = sorted(found.values(), key=lambda c: -c.confidence)
    if not confirmed and reason is None:
        reason = (
            "step budget exhausted before any confirmation"
            if stopped_by == "budget"
            else "every explored branch was abandoned without a confirmation"
        )
    return FallacyAnalysis(
        argument=argument,
        outcome="fallacies" if confirmed else "no_fallacy",
        confirmed=confirmed,
        reason=None if confirmed else reason,
        stopped_by=stopped_by,
        navigator=navigator.name,
        taxonomy=taxonomy.source,
        trace=trace,
    )
