"""Consistency gate for a case's FOL belief set: checked before reasoning; an inconsistent set is
reported with the formulas involved (and where they came from), never reasoned over silently."""

from __future__ import annotations

from pydantic import BaseModel

from lexlogic.bridges.fol_reasoner import Backend, consistent
from lexlogic.bridges.fol_tools import FolTools
from lexlogic.logic.fol.model import BeliefSet
from lexlogic.logic.proof import ProofNode


class InvolvedFormula(BaseModel):
    formula: str
    line: int | None = None
    origin: str | None = None


class FolCheckReport(BaseModel):
    consistent: bool | None
    backend: str
    involved: list[InvolvedFormula] = []
    repairs: list[ProofNode] = []
    proof: ProofNode | None = None
    reason: str = ""

    def summary(self) -> str:
        if self.consistent:
            return f"consistent ({self.backend})"
        if self.consistent is None:
            return f"unknown ({self.backend}: {self.reason})"
        lines = [f"INCONSISTENT ({self.backend}); formulas involved:"]
        for f in self.involved:
            where = f" [line {f.line}]" if f.line else ""
            origin = f" ← {f.origin}" if f.origin else ""
            lines.append(f"  - {f.formula}{where}{origin}")
        return "\n".join(lines)


def check_belief_set(bs: BeliefSet, *, backend: Backend = "auto", tools: FolTools | None = None) -> FolCheckReport:
    """``tools``: where the provers are (``FolTools.from_settings`` at the edge)."""
    from lexlogic.logic.fol.printer import print_formula

    ans = consistent(bs, backend=backend, tools=tools)
    index = {print_formula(f): i for i, f in enumerate(bs.formulas)}
    involved = []
    for text, line in zip(ans.involved, ans.involved_lines or [None] * len(ans.involved)):
        i = index.get(text)
        involved.append(InvolvedFormula(formula=text, line=line, origin=bs.origins.get(i) if i is not None else None))
    return FolCheckReport(
        consistent=ans.consistent,
        backend=ans.backend,
        involved=involved,
        repairs=[r.to_proof_node() for r in bs.repairs],
        proof=ans.proof,
        reason=ans.reason,
    )
