"""The ASP text added to a pack's program to open the uncertain facts as choices.

Each uncertain fact gets its own fresh choice atom (``__pb(k)`` for Bool variable k, ``__pc(k,j)`` for
option j of categorical k) and a link rule ``atom :- __pb(k).`` Why not ``{atom}.`` directly: if the
pack also DERIVES the atom, a choice on it would let clingo pick it freely; with a fresh input atom the
world fixes only the input and the atom is the OR of the input and its rules — exactly ProbLog's
semantics for a probabilistic fact that is also a rule head (the oracle relies on it).
"""

from __future__ import annotations

from lexlogic.engine.prob.model import BoolVar, ProbProgram


def link_rules(prog: ProbProgram, *, exactly_one: bool) -> str:
    """Choice + link rules. ``exactly_one``: encode categoricals as ``1{...}1`` (clingo enumeration)."""
    lines: list[str] = []
    for k, v in enumerate(prog.variables):
        if isinstance(v, BoolVar):
            lines.append(f"{{__pb({k})}}.")
            lines.append(f"{v.atom} :- __pb({k}).")
        else:
            opts = "; ".join(f"__pc({k},{j})" for j in range(len(v.options)))
            lines.append(
                f"1{{{opts}}}1." if exactly_one else " ".join(f"{{__pc({k},{j})}}." for j in range(len(v.options)))
            )
            for j, o in enumerate(v.options):
                lines.append(f"{o.atom} :- __pc({k},{j}).")
    return "\n".join(lines) + "\n"


def input_atoms(prog: ProbProgram) -> list[list[str]]:
    """The fresh choice atoms of every variable, in variable order (one per option of a categorical)."""
    return [
        [f"__pb({k})"] if isinstance(v, BoolVar) else [f"__pc({k},{j})" for j in range(len(v.options))]
        for k, v in enumerate(prog.variables)
    ]
