"""Exact world evaluation by clingo itself: ONE solve call enumerating every answer set.

Why keep it next to the vectorised evaluator: it is the reference semantics (any clingo program,
including unstratified ones whose worlds happen to have one answer set), and the path for programs the
vectorised evaluator refuses. Worlds with no answer set get mask 0 (an integrity constraint or an
odd loop kills them); a world with two answer sets is an error, since "the conclusions of a world" would
be ill defined. Results are cached per distinct world (a dict keyed by the assignment), and a world
outside the enumerated set (sampling) is solved once under assumptions, then cached too.
"""

from __future__ import annotations

import clingo
import numpy as np

from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.program import link_rules


class NonUniqueWorldError(ValueError):
    """A world with several answer sets: the pack is not deterministic on that assignment."""


class ClingoWorlds:
    def __init__(self, prog: ProbProgram) -> None:
        self.prog = prog
        self.ctl = clingo.Control(["0", "--warn=none"])  # 0 = enumerate all models
        try:
            self.ctl.add("base", [], prog.program + "\n" + link_rules(prog, exactly_one=True))
            self.ctl.ground([("base", [])])
        except RuntimeError as exc:
            raise ValueError(f"the ASP program does not ground: {exc}") from exc
        atoms = self.ctl.symbolic_atoms
        self.input_syms: list[list[clingo.Symbol]] = []
        self.input_lits: list[list[int]] = []
        for k, v in enumerate(prog.variables):
            if isinstance(v, BoolVar):
                syms = [clingo.Function("__pb", [clingo.Number(k)])]
            else:
                syms = [clingo.Function("__pc", [clingo.Number(k), clingo.Number(j)]) for j in range(len(v.options))]
            self.input_syms.append(syms)
            self.input_lits.append([atoms[s].literal for s in syms])
        self.observed: list[int | bool] = []
        for name in prog.observed_atoms():
            sa = atoms[clingo.parse_term(name)]
            self.observed.append(False if sa is None else (True if sa.is_fact else sa.literal))
        self.cache: dict[tuple[int, ...], tuple[bool, ...] | None] = {}
        self.complete = False
        self.solve_calls = 0

    def _read(self, model: clingo.Model) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        key = []
        for k, lits in enumerate(self.input_lits):
            if len(lits) == 1 and isinstance(self.prog.variables[k], BoolVar):
                key.append(int(model.is_true(lits[0])))
            else:
                key.append(next(j for j, lit in enumerate(lits) if model.is_true(lit)))
        obs = tuple(a if isinstance(a, bool) else model.is_true(a) for a in self.observed)
        return tuple(key), obs

    def _describe(self, key: tuple[int, ...]) -> str:
        parts = []
        for v, d in zip(self.prog.variables, key):
            parts.append(f"{v.name}={bool(d)}" if isinstance(v, BoolVar) else f"{v.name}={v.options[d].atom}")
        return ", ".join(parts)

    def enumerate_all(self) -> None:
        """The one clingo call: every model of program + choices; each model is one world."""
        if self.complete:
            return
        self.solve_calls += 1
        seen: dict[tuple[int, ...], tuple[bool, ...]] = {}
        with self.ctl.solve(yield_=True) as handle:
            for model in handle:
                key, obs = self._read(model)
                if key in seen:
                    raise NonUniqueWorldError(
                        f"the world [{self._describe(key)}] has several answer sets: the program is not "
                        f"deterministic there (unstratified negation or a choice in the pack)"
                    )
                seen[key] = obs
        self.cache = dict(seen)
        self.complete = True

    def world(self, key: tuple[int, ...]) -> tuple[bool, ...] | None:
        """Observed truths of one world (None = no answer set, mask 0); solves at most once per world."""
        if key in self.cache or self.complete:
            return self.cache.get(key)
        assumptions: list[int] = []
        for var, lits, d in zip(self.prog.variables, self.input_lits, key):
            if isinstance(var, BoolVar):
                assumptions.append(lits[0] if d else -lits[0])
            else:
                assumptions.extend(lit if j == d else -lit for j, lit in enumerate(lits))
        self.solve_calls += 1
        found: list[tuple[bool, ...]] = []
        with self.ctl.solve(assumptions=assumptions, yield_=True) as handle:
            for model in handle:
                found.append(self._read(model)[1])
                if len(found) > 1:
                    raise NonUniqueWorldError(
                        f"the world [{self._describe(key)}] has several answer sets: the program is not "
                        f"deterministic there (unstratified negation or a choice in the pack)"
                    )
        self.cache[key] = found[0] if found else None
        return self.cache[key]

    def evaluate(self, digits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """digits (n_vars, N) → mask (N,), observed (n_obs, N); one solve per DISTINCT world."""
        n = digits.shape[1]
        mask = np.zeros(n, dtype=bool)
        obs = np.zeros((len(self.observed), n), dtype=bool)
        if n == 0:
            return mask, obs
        uniq, inverse = np.unique(digits.T, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        um = np.zeros(len(uniq), dtype=bool)
        uo = np.zeros((len(self.observed), len(uniq)), dtype=bool)
        for i, row in enumerate(uniq):
            r = self.world(tuple(int(x) for x in row))
            if r is not None:
                um[i] = True
                uo[:, i] = r
        return um[inverse], uo[:, inverse]
