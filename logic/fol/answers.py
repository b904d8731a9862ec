"""What every FOL reasoner returns, whatever the engine: an answer with a proof or a reason."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import ProofNode


class FolReasonerError(LexlogicError, RuntimeError):
    """An engine is missing, failed, or was given something outside its fragment."""


class EntailmentAnswer(BaseModel):
    query: str
    entailed: bool | None = Field(description="None when the engine gave up (time-out, resources)")
    backend: str
    proof: ProofNode | None = None
    reason: str = ""
    inconsistent_kb: bool = Field(default=False, description="entailed only because the belief set is inconsistent")
    elapsed_ms: float = 0.0

    def verdict(self) -> str:
        return {True: "entailed", False: "not entailed", None: "unknown"}[self.entailed]


class ConsistencyAnswer(BaseModel):
    consistent: bool | None
    backend: str
    involved: list[str] = Field(default_factory=new_list, description="formulas of a contradiction (when inconsistent)")
    involved_lines: list[int | None] = Field(default_factory=new_list)
    proof: ProofNode | None = None
    reason: str = ""
    elapsed_ms: float = 0.0
