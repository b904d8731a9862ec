"""One interface over the FOL engines: entails / consistent, with automatic choice.

auto: the Horn fragment (belief set and query) goes to SWI-Prolog (exact, with proof trees, fast on
large fact sets); anything else to E prover; Tweety only when asked for (and configured).
"""

from __future__ import annotations

from typing import Literal

from lexlogic.bridges.fol_tools import FolTools
from lexlogic.logic.fol.answers import ConsistencyAnswer, EntailmentAnswer, FolReasonerError
from lexlogic.logic.fol.clauses import NotClausal, horn_program
from lexlogic.logic.fol.model import BeliefSet, Formula

Backend = Literal["auto", "prolog", "eprover", "tweety", "tweety-simple"]


def _horn(bs: BeliefSet) -> bool:
    try:
        horn_program(bs)
        return True
    except NotClausal:
        return False


def entails(
    bs: BeliefSet, query: Formula, *, backend: Backend = "auto", proof: bool = True, tools: FolTools | None = None
) -> EntailmentAnswer:
    """``tools``: where E and Tweety are (``FolTools.from_settings`` at the edge; default: E on PATH)."""
    if backend == "auto":
        if _horn(bs):
            from lexlogic.bridges import fol_prolog

            try:
                return fol_prolog.entails(bs, query, proof=proof)
            except FolReasonerError as exc:
                if "Horn fragment" not in str(exc):
                    raise
        backend = "eprover"
    if backend == "prolog":
        from lexlogic.bridges import fol_prolog

        return fol_prolog.entails(bs, query, proof=proof)
    if backend == "eprover":
        from lexlogic.bridges import fol_eprover

        return fol_eprover.entails(bs, query, proof=proof, tools=tools)
    if backend in ("tweety", "tweety-simple"):
        from lexlogic.bridges import fol_tweety

        reasoner = "simple" if backend == "tweety-simple" else "eprover"
        return fol_tweety.entails(bs, query, reasoner=reasoner, tools=tools)
    raise FolReasonerError(f"unknown backend {backend!r}")


def consistent(bs: BeliefSet, *, backend: Backend = "auto", tools: FolTools | None = None) -> ConsistencyAnswer:
    if backend == "auto":
        backend = "prolog" if _horn(bs) else "eprover"
    if backend == "prolog":
        from lexlogic.bridges import fol_prolog

        return fol_prolog.consistent(bs)
    if backend == "eprover":
        from lexlogic.bridges import fol_eprover

        return fol_eprover.consistent(bs, tools=tools)
    if backend in ("tweety", "tweety-simple"):
        from lexlogic.bridges import fol_tweety

        reasoner = "simple" if backend == "tweety-simple" else "eprover"
        return fol_tweety.consistent(bs, reasoner=reasoner, tools=tools)
    raise FolReasonerError(f"unknown backend {backend!r}")
