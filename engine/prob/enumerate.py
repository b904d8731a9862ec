"""Exact world evaluation by clingo itself (``bridges.clingo_worlds.ClingoWorlds``) for a ProbProgram.

Why keep it next to the vectorised evaluator: it is the reference semantics (any clingo program,
including unstratified ones whose worlds happen to have one answer set), and the path for programs the
vectorised evaluator refuses. Worlds with no answer set get mask 0; a world with two answer sets raises
``NonUniqueWorldError``. Results are cached per distinct world.
"""

from __future__ import annotations

from lexlogic.bridges.clingo_worlds import ClingoWorlds as _BridgeWorlds
from lexlogic.bridges.clingo_worlds import NonUniqueWorldError
from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.program import input_atoms, link_rules

__all__ = ["ProgramWorlds", "NonUniqueWorldError"]


class ProgramWorlds(_BridgeWorlds):
    """The bridge's enumerator, fed with a ProbProgram's text, choice atoms and labels."""

    def __init__(self, prog: ProbProgram) -> None:
        self.prog = prog
        labels = [
            [v.name] if isinstance(v, BoolVar) else [f"{v.name}={o.atom}" for o in v.options] for v in prog.variables
        ]
        super().__init__(
            prog.program + "\n" + link_rules(prog, exactly_one=True), input_atoms(prog), prog.observed_atoms(), labels
        )
