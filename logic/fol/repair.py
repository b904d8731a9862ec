"""Repairs made while building a belief set: what changed, why, which implication justified it.

A repaired fact is not a given: it is exported as a ProofNode of kind REPAIR so every proof tree
shows it as such.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import NodeKind, ProofNode


class RepairKind(str, Enum):
    DECLARED_CONSTANT = "declared_constant"  # unknown constant declared in the sort the predicate expects
    SUBSORT_ACCEPTED = "subsort_accepted"  # constant of a sub-sort accepted where the super-sort is expected
    PENDING_ACCEPTED = "pending_accepted"  # a rejected fact accepted later, once the hierarchy grew


class Repair(BaseModel):
    kind: RepairKind
    fact: str = Field(description="the fact as finally stored, in .fologic syntax")
    constant: str
    constant_sort: str | None = None
    expected_sort: str
    predicate: str
    argument_index: int
    reason: str
    justified_by: list[str] = Field(default_factory=new_list, description="implications behind the sub-sort link")
    line: int | None = None

    def to_proof_node(self) -> ProofNode:
        children = [
            ProofNode(
                atom=j, label=f"inferred sub-sort link from {j}", kind=NodeKind.RULE, rule_id="fol:sort-hierarchy"
            )
            for j in self.justified_by
        ]
        return ProofNode(
            atom=self.fact,
            label=f"{self.fact} (repaired: {self.kind.value})",
            kind=NodeKind.REPAIR,
            note=self.reason,
            rule_id=f"fol:repair:{self.kind.value}",
            children=children,
        )


class Rejection(BaseModel):
    """A fact refused because its constant's sort is not compatible with the predicate's."""

    predicate: str
    arguments: list[str]
    negated: bool = False
    reason: str
