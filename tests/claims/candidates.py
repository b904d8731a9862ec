"""A passage as the retriever hands it to a judge: one memory spanning the whole text, with its similarity."""

from __future__ import annotations

from lexlogic.engine.claims.models import Candidate, Memory
from lexlogic.logic.grounding import Grounding


def candidate(text: str, sim: float, doc: str) -> Candidate:
    return Candidate(
        memory=Memory(
            id=f"{doc}#0",
            document_id=doc,
            text=text,
            grounding=Grounding(document_id=doc, char_start=0, char_end=len(text), quote=text),
        ),
        similarity=sim,
    )
