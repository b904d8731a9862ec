"""What a navigator may answer at a node: the three tool calls, plus the errors it made.

These are the only words a navigator speaks, whichever navigator it is (LLM or embeddings), so the
master loop validates and obeys one vocabulary.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.taxonomy import FallacyNode, Taxonomy
from lexlogic.logic.model_defaults import new_list


class ExploreBranch(BaseModel):
    kind: Literal["explore_branch"] = "explore_branch"
    node_id: str
    score: float | None = Field(default=None, description="priority in the beam; higher first")


class ConfirmFallacy(BaseModel):
    kind: Literal["confirm_fallacy"] = "confirm_fallacy"
    node_id: str
    confidence: float = Field(ge=0.0, le=1.0)
    justification: str


class ConcludeNoFallacy(BaseModel):
    kind: Literal["conclude_no_fallacy"] = "conclude_no_fallacy"
    reason: str


Action = ExploreBranch | ConfirmFallacy | ConcludeNoFallacy


class Decision(BaseModel):
    """A navigator's answer at one node. No action at all means: abandon this branch (not the search)."""

    actions: list[Action] = Field(default_factory=new_list)
    errors: list[str] = Field(default_factory=new_list, description="malformed calls that were ignored")
    note: str | None = None


class Navigator(Protocol):
    name: str

    def decide(self, argument: str, taxonomy: Taxonomy, node: FallacyNode) -> Decision:
        """Choose among the node's children: explore some, confirm one (or the node), or conclude none."""
        ...
