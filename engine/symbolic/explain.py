"""Proof and why-not trees, and the live unknowns of an undecided outcome, from one solved case.

`prove(atom)`: the rule instance that derived it, its premises recursively, down to the case facts
with their grounding. `why_not(atom)`: for each rule that could conclude it, the first premise that
failed (recursively), or the missing fact that left it open. `live_unknowns(atom)`: the unknown facts
(and open appreciations) on a derivation of the atom that is still alive across the answer sets.

All three read the compiled rules through the bridge's one rule walker (`bridges/clingo_walk.py`), in
plain data: atoms are text, premises are `Premise` records. Nothing here knows clingo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lexlogic.bridges.clingo_bridge import CompiledProgram, Solution, atom_signature
from lexlogic.bridges.clingo_walk import (
    Obstacle,
    ObstacleKind,
    Premise,
    PremiseKind,
    RuleApplication,
    RuleMatch,
    RuleWalker,
    View,
)
from lexlogic.engine.symbolic.values import ReadLog, ValueInfo, ValueStatus, same_value
from lexlogic.logic.memos import Memos
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.proof import LegalSource, NodeKind, ProofNode

MAX_DEPTH = 12
SEEN_ABOVE = "(voir plus haut)"


class RememberingWalker(RuleWalker):
    """A rule walker that keeps what it found: its rule instances and matches are a function of the program and
    the solution only (frozen records), so one walker serves every case solved to the same answer sets."""

    def __init__(self, program: CompiledProgram, solution: Solution) -> None:
        super().__init__(program, solution)
        self._applications: dict[str, RuleApplication | None] = {}
        self._matches: dict[tuple[str, View], list[RuleMatch]] = {}

    def application(self, atom: str) -> RuleApplication | None:
        if atom not in self._applications:
            self._applications[atom] = super().application(atom)
        return self._applications[atom]

    def matches(self, atom: str, view: View = View.REFERENCE) -> list[RuleMatch]:
        key = (atom, view)
        hit = self._matches.get(key)
        if hit is None:
            hit = self._matches[key] = super().matches(atom, view)
        return hit


WALKERS_SIZE = 64


def solution_key(solution: Solution) -> tuple[Any, ...]:
    """All a walk or an explanation reads of a solution: its atom sets and rule applications (hashable)."""
    return (solution.reference, solution.brave, solution.cautious, frozenset(solution.applications.items()))


def walker_of(program: CompiledProgram, solution: Solution, memos: Memos | None) -> RuleWalker:
    """The walker of ``solution``, kept by the owner of ``memos`` under the solution's every atom set and rule
    application (what a walk reads): a new case of a seen structure — the same yes/no facts, other amounts — is
    solved to the same answer sets, and its trees are walked from what the first one found (none: a fresh one)."""
    if memos is None:
        return RuleWalker(program, solution)
    key = (id(program), *solution_key(solution))
    table = memos.lru("symbolic.walkers", WALKERS_SIZE)
    hit: RememberingWalker | None = table.get(key)
    if hit is None or hit.program is not program:
        hit = RememberingWalker(program, solution)
        table.put(key, hit)
    return hit


class _Clock:
    """The order of an explanation's events: each value's first look-up and each tree kept in its memo."""

    def __init__(self, start: int = 0) -> None:
        self.now = start

    def tick(self) -> int:
        self.now += 1
        return self.now - 1


class Explainer:
    """Explanations of one solved case; memoised per atom (a tree shares its sub-proofs). ``memos``: the owner's,
    which keeps the rule walker per solution (``walker_of``). ``after``: an explainer of ANOTHER case solved to the
    same solution (same pack and program) that was asked the same questions in the same order: see ``_resume``."""

    def __init__(
        self,
        pack: RulePack,
        program: CompiledProgram,
        solution: Solution,
        values: dict[str, ValueInfo],
        memos: Memos | None = None,
        after: Explainer | None = None,
    ) -> None:
        self.pack = pack
        self.program = program
        self.solution = solution
        self.model = solution.reference
        self.walker = walker_of(program, solution, memos)
        self._memo_values: dict[tuple[str, bool | None], ProofNode] = {}
        self._memo_proofs: dict[tuple[str, bool], ProofNode] = {}
        self._kept: dict[tuple[str, str, bool | None], int] = {}  # a memoised tree → when it was kept
        self._clock = _Clock()
        self.values = ReadLog(values, self._clock.tick)
        if after is not None:
            self._resume(after, values)

    def _resume(self, before: Explainer, values: dict[str, ValueInfo]) -> None:
        """Start where ``before`` (another case, the same solution, the same questions) stood when it first read
        a value that differs here. Up to that moment the two explanations walk alike — every step is decided by
        the solution, the pack and the values read so far, all the same —, so every tree ``before`` had kept by
        then is the one this case would build at the same step (same path, depth and cuts): kept here as is.
        From there on this case's own values are read and its trees built."""
        cut = before._clock.now
        for name, at in before.values.first.items():  # in the order they were first read
            if not same_value(values.get(name), dict.get(before.values, name)):
                cut = at
                break
        self._clock.now = cut
        self.values.first = {k: at for k, at in before.values.first.items() if at < cut}
        self._kept = {k: at for k, at in before._kept.items() if at < cut}
        self._memo_values = {k: v for k, v in before._memo_values.items() if before._kept[("v", *k)] < cut}
        self._memo_proofs = {k: v for k, v in before._memo_proofs.items() if before._kept[("p", *k)] < cut}

    # ------------------------------------------------------------------ leaves: facts and computations
    def _is_value_atom(self, atom: str) -> bool:
        name, arity = atom_signature(atom)
        if name not in self.values:
            return False
        t = self.pack.value_type(name)
        return (t is FactType.BOOL and not arity) or (t is FactType.ENUM and arity == 1)

    def value_proof_node(self, name: str, holds: bool | None = None, depth: int = 0) -> ProofNode:
        key = (name, holds)
        cached = self._memo_values.get(key)
        if cached is None:
            cached = self._memo_values[key] = self._value_proof_node(name, holds, depth)
            self._kept[("v", name, holds)] = self._clock.tick()
        return cached

    def _value_proof_node(self, name: str, holds: bool | None, depth: int) -> ProofNode:
        info = self.values[name]
        label = self.pack.label_of(name)
        comp = self.pack.computation_for(name)
        sources = [s for sid in (comp.sources if comp else []) if (s := self.pack.source(sid))]
        if info.status is ValueStatus.UNKNOWN:
            note = None
            if info.missing and info.missing != [name]:
                note = "inconnu faute de : " + ", ".join(info.missing)
            elif info.allegation is not None:  # alleged and contested, or disproven: say which
                note = next((g.note for g in info.grounding if g.note), info.allegation)
            return ProofNode(
                atom=name,
                label=label,
                kind=NodeKind.MISSING,
                holds=False,
                note=note,
                grounding=info.grounding,
                rule_id=comp.id if comp else None,
                sources=sources,
            )
        if info.status is ValueStatus.OPEN:
            return ProofNode(
                atom=name,
                label=label,
                kind=NodeKind.COMPUTED,
                holds=False,
                rule_id=comp.id if comp else None,
                sources=sources,
                note="zone d'appréciation : ni oui ni non par la règle",
            )
        value = info.value
        truth = bool(value) if holds is None else holds
        if info.status is ValueStatus.DYNAMIC and info.proof is not None:
            return info.proof.model_copy(update={"holds": truth, "label": label + " — " + (info.proof.label or "")})
        if info.status is ValueStatus.DEFAULTED:
            return ProofNode(
                atom=name, label=label, kind=NodeKind.ASSUMPTION, holds=truth, value=value, grounding=info.grounding
            )
        if comp is not None:
            children = [
                self.value_proof_node(i, depth=depth + 1)
                for i in info.inputs
                if i in self.values
                and depth < MAX_DEPTH
                and (self.values[i].status is not ValueStatus.UNKNOWN or i in comp.inputs)
            ]
            return ProofNode(
                atom=name,
                label=label,
                kind=NodeKind.COMPUTED,
                holds=truth,
                value=value,
                rule_id=comp.id,
                sources=sources,
                children=children,
                note=comp.note,
            )
        return ProofNode(atom=name, label=label, kind=NodeKind.FACT, holds=truth, value=value, grounding=info.grounding)

    def _leaf(self, atom: str, holds: bool) -> ProofNode:
        name, arity = atom_signature(atom)
        info = self.values[name]
        if arity:  # enum: kind(value)
            return self.value_proof_node(name, holds=holds).model_copy(update={"atom": atom})
        return self.value_proof_node(name, holds=holds if info.known else None)

    def _sources(self, ids: list[str]) -> list[LegalSource]:
        return [s for sid in ids if (s := self.pack.source(sid))]

    # ------------------------------------------------------------------ proofs
    def _memoised(self, key: tuple[str, bool], build: Callable[[], ProofNode]) -> ProofNode:
        """A tree built once per (atom, holds); a cut at a cycle (SEEN_ABOVE) depends on the path: not kept."""
        hit = self._memo_proofs.get(key)
        if hit is None:
            hit = build()
            if hit.note != SEEN_ABOVE:
                self._memo_proofs[key] = hit
                self._kept[("p", *key)] = self._clock.tick()
        return hit

    def prove(self, atom: str, depth: int = 0, seen: frozenset[str] = frozenset()) -> ProofNode:
        return self._memoised((atom, True), lambda: self._prove(atom, depth, seen))

    def _prove(self, atom: str, depth: int, seen: frozenset[str]) -> ProofNode:
        if self._is_value_atom(atom):
            return self._leaf(atom, True)
        name = atom_signature(atom)[0]
        if depth > MAX_DEPTH or atom in seen:
            return ProofNode(atom=atom, label=self.pack.label_of(name), note=SEEN_ABOVE)
        seen = seen | {atom}
        step = self.walker.application(atom)
        if step is not None:
            return self._rule_proof_node(step, depth, seen)
        if atom in self.model:
            return ProofNode(atom=atom, label=self.pack.label_of(name), kind=NodeKind.FACT, note="donné tel quel")
        return ProofNode(atom=atom, label=self.pack.label_of(name), holds=False, note="ne tient pas dans ce modèle")

    def _rule_proof_node(self, step: RuleApplication, depth: int, seen: frozenset[str]) -> ProofNode:
        children = [self._premise(p, depth, seen) for p in step.premises]
        meta = step.rule.meta
        note = "règle ouverte : choix laissé à l'appréciation du juge" if step.rule.is_choice else None
        return ProofNode(
            atom=step.head,
            label=meta.label if meta else self.pack.label_of(atom_signature(step.head)[0]),
            kind=NodeKind.RULE,
            holds=True,
            rule_id=step.rule.rule_id,
            sources=self._sources(meta.sources if meta else []),
            children=children,
            note=note,
        )

    def _premise(self, premise: Premise, depth: int, seen: frozenset[str]) -> ProofNode:
        if premise.kind is PremiseKind.ATOM:
            inst = premise.atom
            if inst is None:
                return ProofNode(atom=premise.text, label=premise.text, kind=NodeKind.ASSUMPTION)
            if premise.negated:
                node = self.why_not(inst, depth + 1, seen) if depth < 3 else ProofNode(atom=inst, holds=False)
                return ProofNode(
                    atom=f"not {inst}",
                    label=f"absence de : {node.label or inst}",
                    kind=NodeKind.ASSUMPTION,
                    holds=True,
                    children=[node],
                )
            return self.prove(inst, depth + 1, seen)
        if premise.kind is PremiseKind.COMPARISON and premise.holds is not None:
            return ProofNode(
                atom=premise.text, label=premise.detail or premise.text, kind=NodeKind.COMPUTED, holds=premise.holds
            )
        return ProofNode(atom=premise.text, label=premise.text, kind=NodeKind.COMPUTED)

    # ------------------------------------------------------------------ why not
    def why_not(self, atom: str, depth: int = 0, seen: frozenset[str] = frozenset()) -> ProofNode:
        return self._memoised((atom, False), lambda: self._why_not(atom, depth, seen))

    def _why_not(self, atom: str, depth: int, seen: frozenset[str]) -> ProofNode:
        label = self.pack.label_of(atom_signature(atom)[0])
        if self._is_value_atom(atom):
            return self._leaf(atom, False)
        if atom in self.model:
            return self.prove(atom, depth, seen)
        if depth > MAX_DEPTH or atom in seen:
            return ProofNode(atom=atom, label=label, holds=False, note=SEEN_ABOVE)
        seen = seen | {atom}
        matches = self.walker.matches(atom, View.REFERENCE)
        if not matches:
            return ProofNode(atom=atom, label=label, holds=False, note="aucune règle ne conclut à ce fait")
        children = [self._rule_failure(match, depth, seen) for match in matches]
        if len(children) == 1:
            return children[0]
        return ProofNode(
            atom=atom,
            label=label,
            holds=False,
            kind=NodeKind.RULE,
            note="aucune des règles qui y concluent ne s'applique",
            children=children,
        )

    def _rule_failure(self, match: RuleMatch, depth: int, seen: frozenset[str]) -> ProofNode:
        meta = match.rule.meta
        node = ProofNode(
            atom=match.head,
            label=meta.label if meta else self.pack.label_of(atom_signature(match.head)[0]),
            kind=NodeKind.RULE,
            holds=False,
            rule_id=match.rule.rule_id,
            sources=self._sources(meta.sources if meta else []),
        )
        if not match.unifies:
            node.note = "tête de règle non unifiable"
            return node
        if match.rule.is_choice:
            node.note = "règle ouverte (appréciation du juge) : le juge peut ne pas retenir cette conclusion"
        for step in match.steps:
            # the first failing instance is explained even when another one passes (same memo as before)
            failure = self._obstacle(step.obstacle, step.premise.text, depth, seen) if step.obstacle else None
            if not step.passed:
                if failure is not None:
                    node.children.append(failure)
                return node
            node.children.append(
                self._premise(step.premise, depth + 1, seen)
                if not step.premise.negated
                else ProofNode(atom=step.premise.text, label=step.premise.text, kind=NodeKind.ASSUMPTION)
            )
        if match.rule.is_choice:
            return node
        node.note = "toutes les prémisses tiennent dans ce modèle"
        return node

    def _obstacle(self, obstacle: Obstacle, premise_text: str, depth: int, seen: frozenset[str]) -> ProofNode:
        if obstacle.kind is ObstacleKind.ABSENT and obstacle.atom is not None:
            return self.why_not(obstacle.atom, depth + 1, seen)
        if obstacle.kind is ObstacleKind.BLOCKED and obstacle.atom is not None:
            proof = self.prove(obstacle.atom, depth + 1, seen)
            return ProofNode(
                atom=f"not {obstacle.atom}",
                label=f"empêché par : {proof.label or obstacle.atom}",
                kind=NodeKind.RULE,
                holds=False,
                children=[proof],
            )
        if obstacle.kind is ObstacleKind.NO_INSTANCE and obstacle.predicate is not None:
            return self._absent_pattern(obstacle.predicate, obstacle.text)
        return ProofNode(atom=premise_text, label=obstacle.text, kind=NodeKind.COMPUTED, holds=False)

    def _absent_pattern(self, name: str, pattern: str) -> ProofNode:
        if name in self.values:
            info = self.values[name]
            if info.status is ValueStatus.UNKNOWN:
                return self.value_proof_node(name)
            return ProofNode(
                atom=pattern,
                label=self.pack.label_of(name),
                kind=NodeKind.FACT,
                holds=False,
                value=info.value,
                grounding=info.grounding,
            )
        return ProofNode(atom=pattern, label=self.pack.label_of(name), holds=False, note="aucune instance dérivée")

    # ------------------------------------------------------------------ live unknowns
    def live_unknowns(self, target: str) -> tuple[list[str], list[str]]:
        """The unknown inputs on a derivation path of `target` that is still alive.

        A rule is dead when one of its premises is decided against it (a positive premise false in every
        answer set, a negated one true in every answer set); only the undecided premises of live rules are
        followed. Unknown computed values lead to the facts they lack; appreciation facts become reasons.
        """
        missing: list[str] = []
        reasons: list[str] = []
        seen: set[str] = set()

        def visit(atom: str) -> None:
            if atom in seen:
                return
            seen.add(atom)
            name = atom_signature(atom)[0]
            info = self.values.get(name)
            if info is not None and self.pack.value_type(name) in (FactType.BOOL, FactType.ENUM):
                if info.status is ValueStatus.UNKNOWN:
                    for m in info.missing:
                        spec = self.pack.facts.get(m)
                        if spec is not None and spec.appreciation:
                            reasons.append(spec.label)
                        elif m in self.pack.facts and m not in missing:
                            missing.append(m)
                elif info.status is ValueStatus.OPEN:
                    reasons.append(self.pack.label_of(name))
                return
            for match in self.walker.matches(atom, View.CONSEQUENCES):
                if match.decided_against:
                    continue  # a premise is decided against this rule
                for step in match.steps:
                    for undecided in step.undecided:
                        visit(undecided)

        visit(target)
        order = list(self.pack.facts)
        missing.sort(key=order.index)
        return missing, list(dict.fromkeys(reasons))
