"""The one rule walker: which rules conclude an atom, and how each of their premises fares in a model.

Proofs, why-not trees and the live unknowns of an undecided outcome all ask the same question of the
compiled rules — "for this atom, which rule instances could conclude it, and what is the status of each
premise?" — against one of two views of a solved case:

- ``View.REFERENCE``: the reference answer set, two-valued (proofs and why-not);
- ``View.CONSEQUENCES``: brave/cautious consequences, three-valued (true in every answer set, in none,
  or undecided: the live unknowns).

The walker answers in plain data (atoms as text, ``Premise``, ``PremiseStep``, ``RuleMatch``,
``RuleApplication``), so the engine builds its trees without knowing clingo. It never asks the solver
again: premises are instantiated from the recorded bindings (``__app``) or matched against the answer sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import clingo

from lexlogic.bridges.clingo_bridge import (
    CompiledProgram,
    CompiledRule,
    Lit,
    RuleRef,
    Solution,
    atom_signature,
    parse_atom,
)
from lexlogic.bridges.clingo_terms import Binding, Unevaluable, assign, compare, evaluate, signature, unify


class View(str, Enum):
    """Which truth the premises are checked against."""

    REFERENCE = "reference"  # the reference answer set: true or false
    CONSEQUENCES = "consequences"  # brave/cautious: true in every answer set, in none, or undecided


class PremiseKind(str, Enum):
    ATOM = "atom"
    COMPARISON = "cmp"
    OTHER = "other"  # aggregates and the like: shown as written, not evaluated


@dataclass(frozen=True, slots=True)
class Premise:
    """One body literal of a rule, instantiated under a binding when it can be."""

    kind: PremiseKind
    text: str  # as written, e.g. "not excused", "N >= R"
    negated: bool
    atom: str | None = None  # ATOM: the instantiated atom; None when a variable stays unbound
    holds: bool | None = None  # COMPARISON: its truth; None when it cannot be evaluated
    detail: str | None = None  # COMPARISON: with the values, e.g. "12 >= 6"


@dataclass(frozen=True, slots=True)
class RuleApplication:
    """A rule instance that fired in the reference model: the proof step of ``head``."""

    rule: RuleRef
    head: str
    premises: tuple[Premise, ...]


class ObstacleKind(str, Enum):
    ABSENT = "absent"  # a positive premise's atom is false
    BLOCKED = "blocked"  # a negated premise's atom is true
    COMPARISON = "comparison"  # a comparison is false
    NO_INSTANCE = "no_instance"  # a premise with a free variable matches no atom


@dataclass(frozen=True, slots=True)
class Obstacle:
    """Why a premise fails for an instance of the rule."""

    kind: ObstacleKind
    atom: str | None = None  # ABSENT, BLOCKED: the atom
    predicate: str | None = None  # NO_INSTANCE: the predicate's name
    text: str = ""  # COMPARISON: the comparison with values; NO_INSTANCE: the premise pattern


@dataclass(frozen=True, slots=True)
class PremiseStep:
    """A premise checked against the view for every instance of the rule still alive.

    ``premise`` is instantiated under the first instance that passes it; ``obstacle`` says why the first
    instance that fails it fails (set even when another instance passes); ``undecided``: the atoms of
    passing instances that are neither true nor false in every answer set (``View.CONSEQUENCES`` only).
    """

    premise: Premise
    passed: bool
    obstacle: Obstacle | None = None
    undecided: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """One rule that could conclude ``head``, checked premise by premise, up to the first one that fails."""

    rule: RuleRef
    head: str
    unifies: bool  # its head can be the atom at all
    steps: tuple[PremiseStep, ...]
    complete: bool  # every premise passed for some instance

    @property
    def decided_against(self) -> bool:
        return not self.unifies or not self.complete


def _instantiate(lit: Lit, binding: Binding) -> Premise:
    if lit.kind == "atom":
        if lit.ground_text is not None:
            return Premise(PremiseKind.ATOM, lit.text, lit.negated, atom=lit.ground_text)
        try:
            atom = str(evaluate(lit.node, binding))
        except Unevaluable:
            atom = None
        return Premise(PremiseKind.ATOM, lit.text, lit.negated, atom=atom)
    if lit.kind == "cmp":
        try:
            ok, text = compare(lit.node, binding)
        except Unevaluable:
            return Premise(PremiseKind.COMPARISON, lit.text, lit.negated)
        return Premise(PremiseKind.COMPARISON, lit.text, lit.negated, holds=ok, detail=text)
    return Premise(PremiseKind.OTHER, lit.text, lit.negated)


def _filter_comparison(lit: Lit, bindings: list[Binding]) -> tuple[list[Binding], Obstacle | None, list[str]]:
    """A comparison premise: an assignment extends the binding; else it holds or is the obstacle."""
    out: list[Binding] = []
    obstacle: Obstacle | None = None
    for b in bindings:
        nb = assign(lit.node, b)
        if nb is not None:
            out.append(nb)
            continue
        try:
            ok, text = compare(lit.node, b)
        except Unevaluable:
            continue
        if ok:
            out.append(b)
        elif obstacle is None:
            obstacle = Obstacle(ObstacleKind.COMPARISON, text=text)
    return out, obstacle, []


class RuleWalker:
    """Rules of one compiled program walked against one solved case (see the module docstring)."""

    def __init__(self, program: CompiledProgram, solution: Solution) -> None:
        self.program = program
        self.solution = solution
        self._by_sig: dict[tuple[View, str, int], list[clingo.Symbol]] = {}

    # -------------------------------------------------------------------------------- views
    def truth(self, atom: str, view: View) -> bool | None:
        """True, False, or (three-valued view only) None for undecided."""
        if view is View.REFERENCE:
            return atom in self.solution.reference
        return self.solution.status(atom)

    def _instances(self, view: View, name: str, arity: int) -> list[clingo.Symbol]:
        """Atoms of a predicate that are possibly true in the view, in symbol order (deterministic)."""
        key = (view, name, arity)
        hit = self._by_sig.get(key)
        if hit is None:
            pool = self.solution.reference if view is View.REFERENCE else self.solution.brave
            hit = sorted(s for s in map(parse_atom, pool) if s.name == name and len(s.arguments) == arity)
            self._by_sig[key] = hit
        return hit

    def rules_for(self, atom: str) -> list[CompiledRule]:
        name, arity = atom_signature(atom)
        return self.program.rules_for(name, arity)

    # -------------------------------------------------------------------------------- proofs
    def application(self, atom: str) -> RuleApplication | None:
        """The first rule instance that derived `atom` in the reference model (rule order, then binding)."""
        for rule in self.rules_for(atom):
            for texts in self.solution.applications.get(rule.index, ()):
                binding = dict(zip(rule.variables, map(parse_atom, texts), strict=False)) if texts else {}
                if self._head_matches(rule, atom, binding):
                    premises = tuple(_instantiate(lit, binding) for lit in rule.lits)
                    return RuleApplication(rule=rule.ref, head=atom, premises=premises)
        return None

    def _head_matches(self, rule: CompiledRule, atom: str, binding: Binding) -> bool:
        for (term, _), text in zip(rule.heads, rule.head_texts, strict=True):
            if text is None:
                try:
                    text = str(evaluate(term, binding))
                except Unevaluable:
                    continue
            if text == atom:
                return not rule.is_choice or atom in self.solution.reference
        return False

    # -------------------------------------------------------------------------------- matching
    def matches(self, atom: str, view: View = View.REFERENCE) -> list[RuleMatch]:
        """Every rule that concludes `atom`'s predicate, checked against the view (rule order)."""
        return [self.match(rule, atom, view) for rule in self.rules_for(atom)]

    def match(self, rule: CompiledRule, atom: str, view: View) -> RuleMatch:
        """Unify the head with `atom`, then filter the instances premise by premise until one premise
        has no instance left (why-not: the first failure; live unknowns: the undecided premises)."""
        seed: Binding | None = None
        for (term, _), text in zip(rule.heads, rule.head_texts, strict=True):
            seed = ({} if text == atom else None) if text is not None else unify(term, parse_atom(atom), {})
            if seed is not None:
                break
        if seed is None:
            return RuleMatch(rule=rule.ref, head=atom, unifies=False, steps=(), complete=False)
        bindings = [seed]
        steps: list[PremiseStep] = []
        for lit in rule.lits:
            passed, obstacle, undecided = self._filter(lit, bindings, view)
            if not passed:
                steps.append(PremiseStep(_instantiate(lit, bindings[0]), False, obstacle))
                return RuleMatch(rule=rule.ref, head=atom, unifies=True, steps=tuple(steps), complete=False)
            steps.append(PremiseStep(_instantiate(lit, passed[0]), True, obstacle, tuple(undecided)))
            bindings = passed
        return RuleMatch(rule=rule.ref, head=atom, unifies=True, steps=tuple(steps), complete=True)

    def _filter(
        self, lit: Lit, bindings: list[Binding], view: View
    ) -> tuple[list[Binding], Obstacle | None, list[str]]:
        """The bindings under which premise ``lit`` holds (or may hold), the first obstacle met, and the
        atoms left undecided."""
        if lit.kind == "atom":
            return self._filter_atom(lit, bindings, view)
        if lit.kind == "cmp":
            return _filter_comparison(lit, bindings)
        return list(bindings), None, []  # aggregates etc.: not evaluated here

    def _filter_atom(
        self, lit: Lit, bindings: list[Binding], view: View
    ) -> tuple[list[Binding], Obstacle | None, list[str]]:
        out: list[Binding] = []
        obstacle: Obstacle | None = None
        undecided: list[str] = []
        for b in bindings:
            try:
                text = lit.ground_text if lit.ground_text is not None else str(evaluate(lit.node, b))
            except Unevaluable:
                if lit.negated:
                    continue  # a negated premise with a free variable: not checked (unsafe in ASP anyway)
                name = self._bind_instances(lit, b, view, out, undecided)
                if name is not None and not out and obstacle is None:
                    obstacle = Obstacle(ObstacleKind.NO_INSTANCE, predicate=name, text=str(lit.node))
                continue
            value = self.truth(text, view)
            if lit.negated:
                value = None if value is None else not value
            if value is None:
                out.append(b)
                undecided.append(text)
            elif value:
                out.append(b)
            elif obstacle is None:
                kind = ObstacleKind.BLOCKED if lit.negated else ObstacleKind.ABSENT
                obstacle = Obstacle(kind, atom=text)
        return out, obstacle, undecided

    def _bind_instances(self, lit: Lit, b: Binding, view: View, out: list[Binding], undecided: list[str]) -> str | None:
        """A premise with a free variable: every instance of its predicate that unifies extends ``b`` (into
        ``out``; not cautious ones are also ``undecided``). The predicate's name, or None when it has none."""
        try:
            name, arity = signature(lit.node)
        except (Unevaluable, AttributeError):
            return None
        for cand in self._instances(view, name, arity):
            nb = unify(lit.node, cand, b)
            if nb is not None:
                out.append(nb)
                cand_text = str(cand)
                if view is View.CONSEQUENCES and cand_text not in self.solution.cautious:
                    undecided.append(cand_text)
        return name
