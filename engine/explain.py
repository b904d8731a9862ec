"""Proof and why-not trees from one answer set and the reified rule applications.

`prove(atom)`: the rule instance that derived it, its premises recursively, down to the case facts
with their grounding. `why_not(atom)`: for each rule that could conclude it, the first premise that
failed (recursively), or the missing fact that left it open.
"""

from __future__ import annotations

from typing import Any

import clingo

from lexlogic.bridges.clingo_bridge import CompiledProgram, CompiledRule, Lit, Solution
from lexlogic.bridges.clingo_terms import Binding, Unevaluable, assign, compare, evaluate, unify
from lexlogic.engine.values import ValueInfo, ValueStatus
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.proof import NodeKind, ProofNode

MAX_DEPTH = 12


class Explainer:
    def __init__(
        self, pack: RulePack, program: CompiledProgram, solution: Solution, values: dict[str, ValueInfo]
    ) -> None:
        self.pack = pack
        self.program = program
        self.solution = solution
        self.values = values
        self.model = solution.reference
        self._memo_values: dict[tuple[str, bool | None], ProofNode] = {}
        self._memo_proofs: dict[tuple[str, bool], ProofNode] = {}
        self._by_sig: dict[tuple[str, int], list[clingo.Symbol]] = {}
        for sym in self.model:
            self._by_sig.setdefault((sym.name, len(sym.arguments)), []).append(sym)

    # ------------------------------------------------------------------ leaves: facts and computations
    def _is_value_atom(self, sym: clingo.Symbol) -> bool:
        info = self.values.get(sym.name)
        if info is None:
            return False
        t = self.pack.value_type(sym.name)
        return (t is FactType.BOOL and not sym.arguments) or (t is FactType.ENUM and len(sym.arguments) == 1)

    def value_proof_node(self, name: str, holds: bool | None = None, depth: int = 0) -> ProofNode:
        key = (name, holds)
        cached = self._memo_values.get(key)
        if cached is None:
            cached = self._memo_values[key] = self._value_proof_node(name, holds, depth)
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
            return ProofNode(
                atom=name,
                label=label,
                kind=NodeKind.MISSING,
                holds=False,
                note=note,
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

    def _leaf(self, sym: clingo.Symbol, holds: bool) -> ProofNode:
        name = sym.name
        info = self.values[name]
        if sym.arguments:  # enum: claimant_activity(distribution)
            return self.value_proof_node(name, holds=holds).model_copy(update={"atom": str(sym)})
        return self.value_proof_node(name, holds=holds if info.known else None)

    # ------------------------------------------------------------------ proofs
    def prove(self, sym: clingo.Symbol, depth: int = 0, seen: frozenset[str] = frozenset()) -> ProofNode:
        key = (str(sym), True)
        hit = self._memo_proofs.get(key)
        if hit is None:
            hit = self._prove(sym, depth, seen)
            if hit.note != "(voir plus haut)":
                self._memo_proofs[key] = hit
        return hit

    def _prove(self, sym: clingo.Symbol, depth: int, seen: frozenset[str]) -> ProofNode:
        if self._is_value_atom(sym):
            return self._leaf(sym, True)
        key = str(sym)
        if depth > MAX_DEPTH or key in seen:
            return ProofNode(atom=key, label=self.pack.label_of(sym.name), note="(voir plus haut)")
        seen = seen | {key}
        for rule in self.program.rules_for(sym.name, len(sym.arguments)):
            for values in self.solution.apps.get(rule.index, []):
                binding = dict(zip(rule.variables, values))
                if not self._head_matches(rule, sym, binding):
                    continue
                return self._rule_proof_node(rule, sym, binding, True, depth, seen)
        if self._by_sig.get((sym.name, len(sym.arguments))) and sym in self.model:
            return ProofNode(atom=key, label=self.pack.label_of(sym.name), kind=NodeKind.FACT, note="donné tel quel")
        return ProofNode(atom=key, label=self.pack.label_of(sym.name), holds=False, note="ne tient pas dans ce modèle")

    def _head_matches(self, rule: CompiledRule, sym: clingo.Symbol, binding: Binding) -> bool:
        for term, ground in rule.heads:
            try:
                value = ground if ground is not None else evaluate(term, binding)
            except Unevaluable:
                continue
            if value == sym:
                return not rule.is_choice or sym in self.model
        return False

    def _rule_proof_node(
        self, rule: CompiledRule, sym: clingo.Symbol, binding: Binding, holds: bool, depth: int, seen: frozenset[str]
    ) -> ProofNode:
        children: list[ProofNode] = []
        for lit in rule.lits:
            children.append(self._premise(lit, binding, depth, seen))
        meta = rule.meta
        sources = [s for sid in (meta.sources if meta else []) if (s := self.pack.source(sid))]
        note = "règle ouverte : choix laissé à l'appréciation du juge" if rule.is_choice else None
        return ProofNode(
            atom=str(sym),
            label=meta.label if meta else self.pack.label_of(sym.name),
            kind=NodeKind.RULE,
            holds=holds,
            rule_id=rule.rule_id,
            sources=sources,
            children=children,
            note=note,
        )

    def _premise(self, lit: Lit, binding: Binding, depth: int, seen: frozenset[str]) -> ProofNode:
        if lit.kind == "atom":
            try:
                inst = lit.ground if lit.ground is not None else evaluate(lit.node, binding)
            except Unevaluable:
                return ProofNode(atom=lit.text, label=lit.text, kind=NodeKind.ASSUMPTION)
            if lit.negated:
                node = self.why_not(inst, depth + 1, seen) if depth < 3 else ProofNode(atom=str(inst), holds=False)
                return ProofNode(
                    atom=f"not {inst}",
                    label=f"absence de : {node.label or inst}",
                    kind=NodeKind.ASSUMPTION,
                    holds=True,
                    children=[node],
                )
            return self.prove(inst, depth + 1, seen)
        if lit.kind == "cmp":
            try:
                ok, text = compare(lit.node, binding)
            except Unevaluable:
                return ProofNode(atom=lit.text, label=lit.text, kind=NodeKind.COMPUTED)
            return ProofNode(atom=lit.text, label=text, kind=NodeKind.COMPUTED, holds=ok)
        return ProofNode(atom=lit.text, label=lit.text, kind=NodeKind.COMPUTED)

    # ------------------------------------------------------------------ why not
    def why_not(self, sym: clingo.Symbol, depth: int = 0, seen: frozenset[str] = frozenset()) -> ProofNode:
        key = (str(sym), False)
        hit = self._memo_proofs.get(key)
        if hit is None:
            hit = self._why_not(sym, depth, seen)
            if hit.note != "(voir plus haut)":
                self._memo_proofs[key] = hit
        return hit

    def _why_not(self, sym: clingo.Symbol, depth: int, seen: frozenset[str]) -> ProofNode:
        label = self.pack.label_of(sym.name)
        if self._is_value_atom(sym):
            return self._leaf(sym, False)
        key = str(sym)
        if sym in self.model:
            return self.prove(sym, depth, seen)
        if depth > MAX_DEPTH or key in seen:
            return ProofNode(atom=key, label=label, holds=False, note="(voir plus haut)")
        seen = seen | {key}
        rules = self.program.rules_for(sym.name, len(sym.arguments))
        if not rules:
            return ProofNode(atom=key, label=label, holds=False, note="aucune règle ne conclut à ce fait")
        children = [self._rule_failure(rule, sym, depth, seen) for rule in rules]
        if len(children) == 1:
            return children[0]
        return ProofNode(
            atom=key,
            label=label,
            holds=False,
            kind=NodeKind.RULE,
            note="aucune des règles qui y concluent ne s'applique",
            children=children,
        )

    def _rule_failure(self, rule: CompiledRule, sym: clingo.Symbol, depth: int, seen: frozenset[str]) -> ProofNode:
        binding: Binding | None = None
        for term, ground in rule.heads:
            binding = ({} if ground == sym else None) if ground is not None else unify(term, sym, {})
            if binding is not None:
                break
        meta = rule.meta
        sources = [s for sid in (meta.sources if meta else []) if (s := self.pack.source(sid))]
        node = ProofNode(
            atom=str(sym),
            label=meta.label if meta else self.pack.label_of(sym.name),
            kind=NodeKind.RULE,
            holds=False,
            rule_id=rule.rule_id,
            sources=sources,
        )
        if binding is None:
            node.note = "tête de règle non unifiable"
            return node
        if rule.is_choice:
            node.note = "règle ouverte (appréciation du juge) : le juge peut ne pas retenir cette conclusion"
        bindings = [binding]
        for lit in rule.lits:
            ok_bindings, failure = self._filter(lit, bindings, depth, seen)
            if not ok_bindings:
                if failure is not None:
                    node.children.append(failure)
                return node
            node.children.append(
                self._premise(lit, ok_bindings[0], depth + 1, seen)
                if not lit.negated
                else ProofNode(atom=lit.text, label=lit.text, kind=NodeKind.ASSUMPTION)
            )
            bindings = ok_bindings
        if rule.is_choice:
            return node
        node.note = "toutes les prémisses tiennent dans ce modèle"
        return node

    def _filter(
        self, lit: Lit, bindings: list[Binding], depth: int, seen: frozenset[str]
    ) -> tuple[list[Binding], ProofNode | None]:
        out: list[Binding] = []
        failure: ProofNode | None = None
        if lit.kind == "atom":
            pattern = lit.node
            for b in bindings:
                if not lit.negated:
                    try:
                        inst = lit.ground if lit.ground is not None else evaluate(pattern, b)
                        cands = [inst] if inst in self.model else []
                        if not cands and failure is None:
                            failure = self.why_not(inst, depth + 1, seen)
                        out.extend(b for _ in cands)
                    except Unevaluable:
                        try:
                            name = pattern.name
                            arity = len(pattern.arguments)
                        except AttributeError:
                            continue
                        for cand in self._by_sig.get((name, arity), []):
                            nb = unify(pattern, cand, b)
                            if nb is not None:
                                out.append(nb)
                        if not out and failure is None:
                            failure = self._absent_pattern(pattern, depth, seen)
                else:
                    try:
                        inst = lit.ground if lit.ground is not None else evaluate(pattern, b)
                    except Unevaluable:
                        continue
                    if inst in self.model:
                        if failure is None:
                            proof = self.prove(inst, depth + 1, seen)
                            failure = ProofNode(
                                atom=f"not {inst}",
                                label=f"empêché par : {proof.label or inst}",
                                kind=NodeKind.RULE,
                                holds=False,
                                children=[proof],
                            )
                    else:
                        out.append(b)
            return out, failure
        if lit.kind == "cmp":
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
                elif failure is None:
                    failure = ProofNode(atom=lit.text, label=text, kind=NodeKind.COMPUTED, holds=False)
            return out, failure
        return bindings, None  # aggregates etc.: not evaluated here

    def _absent_pattern(self, pattern: Any, depth: int, seen: frozenset[str]) -> ProofNode:
        name = pattern.name
        if name in self.values:
            info = self.values[name]
            if info.status is ValueStatus.UNKNOWN:
                return self.value_proof_node(name)
            return ProofNode(
                atom=str(pattern),
                label=self.pack.label_of(name),
                kind=NodeKind.FACT,
                holds=False,
                value=info.value,
                grounding=info.grounding,
            )
        return ProofNode(atom=str(pattern), label=self.pack.label_of(name), holds=False, note="aucune instance dérivée")
