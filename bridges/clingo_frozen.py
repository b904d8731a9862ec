"""A compiled program without its clingo AST, and the AST put back: the form the pack cache keeps on disk.

Why: ``compile_pack`` spends ~50 ms of a cold ``lexlogic analyze FACTS.json`` walking clingo's AST through cffi
(variables, ground atoms, texts); parsing itself takes ~1 ms. The AST nodes cannot be pickled (cffi handles),
everything derived from them can. So the cache keeps the derived part (``frozen``) and a new process parses
the same sources again and re-attaches the nodes (``thawed``), checking rule by rule that the file, the line
and the printed rule are the ones the frozen form was made from; any difference raises ``StaleProgram``
(the caller then compiles the pack afresh).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import clingo

from lexlogic.bridges.clingo_bridge import (
    CompiledProgram,
    CompiledRule,
    ProgramInputs,
    by_head_of,
    head_terms,
    rule_statements,
)
from lexlogic.logic.errors import LexlogicError

ENGINE = f"clingo {clingo.__version__}"  # the AST a frozen program is thawed with: part of the cache's key


class StaleProgram(LexlogicError):
    """The sources parsed now are not the ones a frozen program was compiled from (internal: the pack cache
    catches it and compiles the pack afresh; never shown to a user)."""


@dataclass(frozen=True)
class FrozenProgram:
    """What ``CompiledProgram`` holds minus the AST nodes (picklable); ``by_head``, ``defined`` and
    ``rule_meta`` are rebuilt from the rules, as ``compile_pack`` builds them."""

    text: str
    rules: list[CompiledRule]
    used: dict[tuple[str, int], tuple[str, int]]
    inputs: ProgramInputs
    source: str


def frozen(program: CompiledProgram) -> FrozenProgram:
    """A copy of ``program``'s rules with every AST node left out (the program itself is not changed)."""
    rules = []
    for rule in program.rules:
        r = copy.copy(rule)
        r.head, r.body = None, []
        r.lits = [copy.copy(lit) for lit in rule.lits]
        for lit in r.lits:
            lit.node = None
        r.heads = [(None, ground) for _, ground in rule.heads]
        rules.append(r)
    return FrozenProgram(program.text, rules, dict(program.used), program.inputs, program.source)


def thawed(state: FrozenProgram, root: Path, asp_sources: Mapping[str, str]) -> CompiledProgram:
    """The program again, its AST nodes parsed from ``asp_sources`` (the pack's files, in the pack's order)."""
    statements = [s for rel, text in asp_sources.items() for s in _located(str(root / rel), text)]
    if len(statements) != len(state.rules):
        raise StaleProgram(f"{len(statements)} rules parsed, {len(state.rules)} frozen")
    for (path, stmt), rule in zip(statements, state.rules, strict=True):
        _attach(rule, path, stmt)
    by_head = by_head_of(state.rules)
    return CompiledProgram(
        text=state.text,
        rules=state.rules,
        by_head=by_head,
        defined=set(by_head),
        used=state.used,
        rule_meta={r.meta.id: r.meta for r in state.rules if r.meta},
        inputs=state.inputs,
        source=state.source,
    )


def _located(path: str, text: str) -> list[tuple[str, Any]]:
    return [(path, stmt) for stmt in rule_statements(path, text)]


def _attach(rule: CompiledRule, path: str, stmt: Any) -> None:
    """Put ``stmt``'s nodes where ``compile_pack`` put them, after checking it is the same rule."""
    if rule.file != path or rule.line != stmt.location.begin.line or rule.text != str(stmt):
        raise StaleProgram(f"{path}:{stmt.location.begin.line}: not the rule frozen at {rule.file}:{rule.line}")
    rule.head, rule.body = stmt.head, list(stmt.body)
    if len(rule.body) != len(rule.lits):
        raise StaleProgram(f"{path}:{rule.line}: {len(rule.body)} body literals, {len(rule.lits)} frozen")
    for node, lit in zip(rule.body, rule.lits, strict=True):
        lit.node = node.atom.symbol if lit.kind == "atom" else node.atom if lit.kind == "cmp" else node
    terms = head_terms(stmt.head)
    if len(terms) != len(rule.heads):
        raise StaleProgram(f"{path}:{rule.line}: {len(terms)} head atoms, {len(rule.heads)} frozen")
    rule.heads = [(term, ground) for term, (_, ground) in zip(terms, rule.heads, strict=True)]
