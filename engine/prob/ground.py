"""Vectorised world evaluation: the ground program (plain data from ``bridges.clingo_worlds``) as a
bit-parallel numpy circuit.

Why: asking clingo for 2^20 worlds one model at a time costs seconds in Python callbacks; the ground
program of a normal (stratified) program is a boolean circuit, and evaluating it on 64 worlds per
machine word gives the whole world table in milliseconds. clingo still does the grounding (so the
pack's arithmetic, comparisons and aggregates mean exactly what clingo says); we only replace the
solving, which for a stratified normal program is the least fixpoint stratum by stratum (its unique
answer set). Anything else in the ground program (other choice rules, disjunctions, optimisation,
negative cycles) raises ``Unsupported`` and the caller falls back to clingo enumeration.

World j of a chunk is bit (j % 64) of word (j // 64) of an atom's row (uint64, little-endian).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lexlogic.bridges.clingo_worlds import GroundCircuit, ground_circuit
from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.program import input_atoms, link_rules
from lexlogic.logic.errors import LexlogicError


class Unsupported(LexlogicError):
    """The ground program is not a stratified normal program over our choice atoms."""


@dataclass
class _Rule:
    head: int  # 0 = integrity constraint
    pos: np.ndarray
    neg: np.ndarray
    weighted: list[tuple[int, int]] | None = None  # (literal, weight) for weight rules
    lower: int = 0


def circuit_of(prog: ProbProgram) -> GroundCircuit:
    """The program's ground circuit (clingo grounds it in the bridge)."""
    return ground_circuit(
        prog.program + "\n" + link_rules(prog, exactly_one=False),
        input_atoms(prog),
        prog.observed_atoms(),
        prog.exclusive,
    )


class VectorEvaluator:
    """Compile once per program structure; evaluate any batch of worlds (digit matrices)."""

    def __init__(self, prog: ProbProgram, circuit: GroundCircuit | None = None) -> None:
        self.prog = prog
        gc = circuit if circuit is not None else circuit_of(prog)
        if gc.unsupported:
            raise Unsupported(gc.unsupported)
        if any(a == 0 for row in gc.inputs for a in row):
            raise Unsupported("a choice atom vanished during grounding")
        self.inputs = gc.inputs
        self.is_bool = [isinstance(v, BoolVar) for v in prog.variables]
        input_set = {a for row in self.inputs for a in row}
        self.facts = set(gc.facts)
        self.observed = list(gc.observed)
        rules = [
            _Rule(r.head, np.array(r.pos, dtype=np.int64), np.array(r.neg, dtype=np.int64), r.weighted, r.lower)
            for r in gc.rules
        ]
        self.n_atoms = gc.n_atoms
        self.constraints = [r for r in rules if r.head == 0]
        self.plan = self._stratify([r for r in rules if r.head != 0], input_set)
        self.n_rules = len(rules)

    # -- stratification ---------------------------------------------------------------------------
    def _stratify(self, rules: list[_Rule], inputs: set[int]) -> list[tuple[bool, list[_Rule]]]:
        """SCCs of the dependency graph in topological order; (needs_iteration, rules) per SCC."""
        by_head: dict[int, list[_Rule]] = {}
        for r in rules:
            if r.head in inputs or r.head in self.facts:
                continue  # a rule deriving an input/fact adds nothing: they are given
            by_head.setdefault(r.head, []).append(r)
        succ: dict[int, set[int]] = {h: set() for h in by_head}
        for h, rs in by_head.items():
            for r in rs:
                for b in (*r.pos.tolist(), *r.neg.tolist()):
                    if b in by_head:
                        succ[b].add(h)
        order = _tarjan(list(by_head), succ)  # reverse topological (sinks first)
        order.reverse()
        plan: list[tuple[bool, list[_Rule]]] = []
        for comp in order:
            cset = set(comp)
            crules = [r for h in comp for r in by_head[h]]
            cyclic = len(comp) > 1 or any(
                int(h) in set(r.pos.tolist()) | set(r.neg.tolist()) for h in comp for r in by_head[h]
            )
            for r in crules:
                if cset & set(r.neg.tolist()):
                    raise Unsupported("negation inside a recursive cycle (program not stratified)")
                if r.weighted and cset & {abs(l) for l, _ in r.weighted}:
                    raise Unsupported("aggregate inside a recursive cycle")
            plan.append((cyclic, crules))
        return plan

    # -- evaluation -------------------------------------------------------------------------------
    def evaluate(self, digits: np.ndarray, chunk: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
        """digits (n_vars, N) ints → mask (N,) bool, observed (n_obs, N) bool."""
        n = digits.shape[1]
        mask = np.empty(n, dtype=bool)
        obs = np.empty((len(self.observed), n), dtype=bool)
        for s in range(0, n, chunk):
            m, o = self._eval_chunk(digits[:, s : s + chunk])
            mask[s : s + chunk] = m
            obs[:, s : s + chunk] = o
        return mask, obs

    def _eval_chunk(self, digits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = digits.shape[1]
        words = (c + 63) // 64
        T = np.zeros((self.n_atoms, words), dtype=np.uint64)
        for a in self.facts:
            T[a] = ~np.uint64(0)
        for k, row in enumerate(self.inputs):
            d = digits[k]
            for j, a in enumerate(row):
                bits = (d == 1) if self.is_bool[k] else (d == j)
                T[a] |= _pack(bits, words)
        for cyclic, rules in self.plan:
            if not cyclic:
                for r in rules:
                    T[r.head] |= self._body(T, r, c)
                continue
            while True:
                changed = False
                for r in rules:
                    new = T[r.head] | self._body(T, r, c)
                    if not np.array_equal(new, T[r.head]):
                        T[r.head] = new
                        changed = True
                if not changed:
                    break
        violated = np.zeros(words, dtype=np.uint64)
        for r in self.constraints:
            violated |= self._body(T, r, c)
        mask = _unpack(~violated, c)
        obs = np.empty((len(self.observed), c), dtype=bool)
        for i, a in enumerate(self.observed):
            if isinstance(a, bool):
                obs[i] = a
            else:
                obs[i] = _unpack(T[a], c)
        return mask, obs

    @staticmethod
    def _body(T: np.ndarray, r: _Rule, c: int) -> np.ndarray:
        if r.weighted is not None:
            acc = np.zeros(T.shape[1] * 64, dtype=np.int64)
            for lit, w in r.weighted:
                bits = _unpack(T[lit] if lit > 0 else ~T[-lit], T.shape[1] * 64)
                acc += w * bits
            return _pack(acc >= r.lower, T.shape[1])
        if r.pos.size:
            out = np.bitwise_and.reduce(T[r.pos], axis=0)
        else:
            out = np.full(T.shape[1], ~np.uint64(0), dtype=np.uint64)
        if r.neg.size:
            out = out & ~np.bitwise_or.reduce(T[r.neg], axis=0)
        return out


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    b = np.packbits(bits, bitorder="little")
    out = np.zeros(words * 8, dtype=np.uint8)
    out[: b.size] = b
    return out.view(np.uint64)


def _unpack(row: np.ndarray, c: int) -> np.ndarray:
    return np.unpackbits(np.ascontiguousarray(row).view(np.uint8), bitorder="little", count=c).view(bool)


def _tarjan(nodes: list[int], succ: dict[int, set[int]]) -> list[list[int]]:
    """Iterative Tarjan SCC (no recursion limit on long rule chains)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(succ[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out
