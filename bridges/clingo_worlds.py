"""clingo for the probabilistic layer: ground a program once and hand back PLAIN data.

Why here: the engine never imports clingo (import-linter contract). The probabilistic evaluators in
``engine/prob`` need two things from clingo, and get them as plain Python/numpy data:

* ``ground_circuit``: the ground program of a (program + choice atoms) text, read through clingo's
  Observer — rules as integer atom ids, the literal of every input choice atom, of every observed atom,
  and why the program is not a stratified normal program when it is not (``unsupported``). The engine
  evaluates that circuit bit-parallel (``engine/prob/ground.py``) or contracts it as a factor graph
  (``engine/prob/contract.py``): clingo still decides what the pack's arithmetic, comparisons and
  aggregates mean; we only replace the solving.
* ``ClingoWorlds``: the reference semantics for any program, one solve enumerating every answer set
  (or one solve per world under assumptions), for programs the circuit cannot express.

Input atoms are named by the caller (strings such as ``__pb(3)``), so this module knows nothing of the
engine's models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import clingo
import numpy as np

from lexlogic.logic.errors import LexlogicError


class GroundingError(LexlogicError, ValueError):
    """The program text does not ground (syntax, unsafe variable); the message says where."""


class NonUniqueWorldError(LexlogicError, ValueError):
    """A world with several answer sets: the program is not deterministic on that assignment."""


@dataclass
class _Observer:
    rules: list[tuple[bool, list[int], list[int]]] = field(default_factory=list)
    weight_rules: list[tuple[bool, list[int], int, list[tuple[int, int]]]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        self.rules.append((choice, list(head), list(body)))

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int, body: Sequence[tuple[int, int]]) -> None:
        self.weight_rules.append((choice, list(head), lower_bound, [(int(a), int(b)) for a, b in body]))

    def minimize(self, priority: int, literals: Sequence[tuple[int, int]]) -> None:
        self.other.append("#minimize/#maximize")

    def external(self, atom: int, value: clingo.TruthValue) -> None:
        self.other.append("#external")

    def heuristic(self, *args: object) -> None:
        self.other.append("#heuristic")

    def acyc_edge(self, *args: object) -> None:
        self.other.append("#edge")

    def theory_atom(self, *args: object) -> None:
        self.other.append("theory atom")

    def theory_atom_with_guard(self, *args: object) -> None:
        self.other.append("theory atom")


@dataclass
class GroundRule:
    """``head :- pos, not neg`` (head 0 = integrity constraint); ``weighted``: a weight rule
    ``head :- lower <= #sum{w: lit}`` with signed literals."""

    head: int
    pos: list[int]
    neg: list[int]
    weighted: list[tuple[int, int]] | None = None
    lower: int = 0


@dataclass
class GroundCircuit:
    """The ground program as integer atoms. ``inputs[k][j]``: atom of option j of input k (0 when the
    atom vanished in grounding); ``observed[i]``: atom id, or a constant True/False."""

    inputs: list[list[int]]
    facts: set[int]
    observed: list[int | bool]
    rules: list[GroundRule]
    n_atoms: int
    unsupported: str | None = None
    groups: list[list[int | bool]] = field(default_factory=list)  # exclusive atoms, as ``observed``


def _ground(text: str, options: Sequence[str]) -> clingo.Control:
    ctl = clingo.Control([*options, "--warn=none"])
    try:
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise GroundingError(f"the ASP program does not ground: {exc}") from exc
    return ctl


def _observed(ctl: clingo.Control, names: Sequence[str]) -> list[int | bool]:
    out: list[int | bool] = []
    for name in names:
        try:
            sym = clingo.parse_term(name)
        except RuntimeError as exc:
            raise GroundingError(f"query atom {name!r} is not a clingo term: {exc}") from exc
        sa = ctl.symbolic_atoms[sym]
        out.append(False if sa is None else (True if sa.is_fact else sa.literal))
    return out


def ground_circuit(
    text: str, inputs: Sequence[Sequence[str]], observed: Sequence[str], groups: Sequence[Sequence[str]] = ()
) -> GroundCircuit:
    """Ground ``text`` (which opens every input atom with a choice rule) and read the circuit back.
    ``groups``: sets of derived atoms of which exactly one holds in every world (a value's classes)."""
    ctl = clingo.Control(["--warn=none"])
    obs = _Observer()
    ctl.register_observer(cast(clingo.Observer, obs))  # duck-typed: clingo calls the methods it needs
    try:
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise GroundingError(f"the ASP program does not ground: {exc}") from exc
    atoms = ctl.symbolic_atoms
    unsupported: str | None = f"ground program uses {sorted(set(obs.other))}" if obs.other else None
    input_ids: list[list[int]] = []
    for row in inputs:
        ids = []
        for name in row:
            sa = atoms[clingo.parse_term(name)]
            ids.append(0 if sa is None else sa.literal)
        input_ids.append(ids)
    input_set = {a for row in input_ids for a in row if a}
    facts: set[int] = set()
    rules: list[GroundRule] = []
    for choice, head, body in obs.rules:
        if choice:
            if set(head) <= input_set and not body:
                continue
            unsupported = unsupported or "choice rule in the program (a world could have several answer sets)"
            continue
        if len(head) > 1:
            unsupported = unsupported or "disjunctive rule in the program"
            continue
        h = head[0] if head else 0
        if not body and h:
            facts.add(h)
            continue
        rules.append(GroundRule(h, [b for b in body if b > 0], [-b for b in body if b < 0]))
    for choice, head, lower, wbody in obs.weight_rules:
        if choice or len(head) > 1:
            unsupported = unsupported or "choice/disjunctive weight rule in the program"
            continue
        rules.append(
            GroundRule(
                head[0] if head else 0,
                [lit for lit, _ in wbody if lit > 0],
                [-lit for lit, _ in wbody if lit < 0],
                weighted=list(wbody),
                lower=lower,
            )
        )
    observed_ids = _observed(ctl, observed)
    n_atoms = 1 + max(
        [a for r in rules for a in (r.head, *r.pos, *r.neg)]
        + list(input_set)
        + list(facts)
        + [a for a in observed_ids if not isinstance(a, bool)]
        + [0]
    )
    group_ids = [_observed(ctl, g) for g in groups]
    return GroundCircuit(input_ids, facts, observed_ids, rules, n_atoms, unsupported, group_ids)


class ClingoWorlds:
    """Every world's (mask, observed atoms) by clingo itself. ``inputs[k]``: the choice atoms of input k
    (one for a yes/no input, one per option otherwise, exactly one true); ``labels[k]`` names it in errors."""

    def __init__(
        self, text: str, inputs: Sequence[Sequence[str]], observed: Sequence[str], labels: Sequence[Sequence[str]]
    ) -> None:
        self.ctl = _ground(text, ["0"])  # 0 = enumerate all models
        atoms = self.ctl.symbolic_atoms
        self.labels = [list(x) for x in labels]
        self.is_bool = [len(row) == 1 for row in inputs]
        self.input_lits: list[list[int]] = []
        for row in inputs:
            lits = []
            for name in row:
                sa = atoms[clingo.parse_term(name)]
                if sa is None:
                    raise GroundingError(f"input atom {name} vanished during grounding")
                lits.append(sa.literal)
            self.input_lits.append(lits)
        self.observed = _observed(self.ctl, observed)
        self.cache: dict[tuple[int, ...], tuple[bool, ...] | None] = {}
        self.complete = False
        self.solve_calls = 0

    def _read(self, model: clingo.Model) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        key = []
        for k, lits in enumerate(self.input_lits):
            if self.is_bool[k]:
                key.append(int(model.is_true(lits[0])))
            else:
                key.append(next(j for j, lit in enumerate(lits) if model.is_true(lit)))
        obs = tuple(a if isinstance(a, bool) else model.is_true(a) for a in self.observed)
        return tuple(key), obs

    def _describe(self, key: tuple[int, ...]) -> str:
        parts = []
        for labels, d, b in zip(self.labels, key, self.is_bool):
            parts.append(f"{labels[0]}={bool(d)}" if b else f"{labels[d]}")
        return ", ".join(parts)

    def _non_unique(self, key: tuple[int, ...]) -> NonUniqueWorldError:
        return NonUniqueWorldError(
            f"the world [{self._describe(key)}] has several answer sets: the program is not "
            f"deterministic there (unstratified negation or a choice in the pack)"
        )

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
                    raise self._non_unique(key)
                seen[key] = obs
        self.cache = dict(seen)
        self.complete = True

    def world(self, key: tuple[int, ...]) -> tuple[bool, ...] | None:
        """Observed truths of one world (None = no answer set, mask 0); solves at most once per world."""
        if key in self.cache or self.complete:
            return self.cache.get(key)
        assumptions: list[int] = []
        for lits, d, b in zip(self.input_lits, key, self.is_bool):
            if b:
                assumptions.append(lits[0] if d else -lits[0])
            else:
                assumptions.extend(lit if j == d else -lit for j, lit in enumerate(lits))
        self.solve_calls += 1
        found: list[tuple[bool, ...]] = []
        with self.ctl.solve(assumptions=assumptions, yield_=True) as handle:
            for model in handle:
                found.append(self._read(model)[1])
                if len(found) > 1:
                    raise self._non_unique(key)
        self.cache[key] = found[0] if found else None
        return self.cache[key]

    def evaluate(self, digits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """digits (n_inputs, N) → mask (N,), observed (n_obs, N); one solve per DISTINCT world."""
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
