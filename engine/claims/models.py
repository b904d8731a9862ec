"""Boundary models of claim verification (what the CLI prints as JSON and the debate persists)."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list


class Status(str, Enum):
    VERIFIED = "VERIFIED"  # a memory explicitly confirms the claim
    CONTRADICTED = "CONTRADICTED"  # a memory explicitly contradicts it
    AMBIGUOUS = "AMBIGUOUS"  # memories contradict each other on it
    UNKNOWN = "UNKNOWN"  # nothing relevant (a similar-looking memory is not evidence)


class Stance(str, Enum):
    """What one candidate memory says about the claim (the judge's per-candidate reading)."""

    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    NEUTRAL = "neutral"  # on topic but does not settle the claim (missing detail, other modality)
    IRRELEVANT = "irrelevant"


class Memory(BaseModel):
    """One chunk of one document, as stored in the evidence memory (keeps its grounding)."""

    id: str = Field(description="source node id: the chunk id")
    document_id: str
    text: str
    grounding: Grounding
    context: str = Field(default="", description="the passage with its neighbours (sentence-level passages)")
    heading: str = Field(default="", description="the section it belongs to (article title, e-mail subject)")


class Candidate(BaseModel):
    """A memory retrieved for a claim, with its similarity (cosine, query vs passage)."""

    memory: Memory
    similarity: float
    lexical: float = Field(default=0.0, description="BM25 score (hybrid retrieval)")
    fused: float = Field(default=0.0, description="reciprocal-rank-fusion score (hybrid retrieval)")


class ClaimEvidence(BaseModel):
    source_id: str = Field(description="id of the memory (chunk) that is the evidence")
    document_id: str
    content: str = Field(description="the sentence of the memory that the judge relied on")
    nuance: str = Field(default="", description="why it confirms/contradicts (what matched or differed)")
    similarity: float
    stance: Stance
    grounding: Grounding


class SourceReading(BaseModel):
    """A passage a DERIVED fact was computed from (a date of an event, a table), read by the judge."""

    id: str
    stance: Stance
    nuance: str = ""


class Judgement(BaseModel):
    """A judge's decision over the candidates of one claim."""

    status: Status
    stances: list[Stance]
    nuances: list[str]
    sentences: list[str] = Field(default_factory=new_list, description="the sentence used per candidate")
    sources: list[SourceReading] = Field(
        default_factory=new_list, description="passages behind a derived fact (put first in the evidence)"
    )


class VerificationResult(BaseModel):
    claim: str
    status: Status
    confidence: float = Field(description="similarity of the best candidate (0 when there is none)")
    evidence: ClaimEvidence | None = Field(default=None, description="main evidence")
    contradictory: list[ClaimEvidence] = Field(
        default_factory=new_list, description="the other candidates that contradict (AMBIGUOUS, CONTRADICTED)"
    )
    candidates: int = Field(default=0, description="how many candidates the judge read (k)")
    readings: list[ClaimEvidence] = Field(default_factory=new_list, description="every candidate as the judge read it")
    judge: str = Field(default="offline", description="offline | llm")
    decision_confidence: float = Field(
        default=0.0, description="similarity of the passage the decision rests on (0 without one)"
    )
    proposed: Status | None = Field(
        default=None,
        description="the judge's VERIFIED/CONTRADICTED withheld below the precision threshold (status UNKNOWN)",
    )

    @property
    def judged(self) -> Status:
        """The judge's own decision, before the precision gate (what its reading tests check)."""
        return self.proposed or self.status
