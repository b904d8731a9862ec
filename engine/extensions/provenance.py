"""Provenance of dynamic facts by reference: premises stored once per run, outputs name them.

A dynamic rule's outputs all rest on the same premises (the facts the sandbox saw it read). Copying the
premise nodes into every output fact made a rule with many outputs over large premises cost
outputs × premises in memory, CPU and response bytes. Here each premise node is serialised and hashed
once per run (keyed by the fact it stands for), kept once under its sha256, and each rule run's ordered
list of premises is kept once under the digest of that list: an output fact carries only that id.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

from lexlogic.logic.proof import ProofNode


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Provenance(BaseModel):
    """The premises of one run, each stored once; ``sets`` maps a premise-list id to its ordered digests."""

    nodes: dict[str, ProofNode] = Field(default_factory=dict, description="sha256 of the node's JSON → node")
    sets: dict[str, list[str]] = Field(default_factory=dict, description="premise-list id → premise digests")
    by_key: dict[str, str] = Field(default_factory=dict, exclude=True)  # fact name → digest (hash once per run)

    def digest(self, key: str, node: ProofNode) -> str:
        """The premise's digest, computed the first time the fact is met in this run only."""
        known = self.by_key.get(key)
        if known is not None:
            return known
        digest = _sha256(node.model_dump_json())
        self.nodes.setdefault(digest, node)
        self.by_key[key] = digest
        return digest

    def add(self, premises: list[tuple[str, ProofNode]]) -> str:
        """Store a rule run's premises (name, node) once; the id its output facts name them by."""
        digests = [self.digest(key, node) for key, node in premises]
        set_id = _sha256("\n".join(digests))
        self.sets.setdefault(set_id, digests)
        return set_id

    def premises(self, set_id: str) -> list[ProofNode]:
        """The premise nodes a set id names, in the order the rule read them (the stored objects, not copies)."""
        return [self.nodes[d] for d in self.sets.get(set_id, [])]

    def resolve(self, proof: ProofNode, set_id: str) -> ProofNode:
        """The output's proof with its premises as children (a shallow copy: premises shared, never copied)."""
        return proof.model_copy(update={"children": self.premises(set_id)})
