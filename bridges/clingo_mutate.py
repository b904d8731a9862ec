"""Mutants of a pack's ASP file, made on clingo's AST: negate or drop a body literal, swap a comparison,
swap an enum constant. Each mutant is the whole file's new text (the mutated rule rewritten in place, on
its own lines; annotations and other rules untouched), so it loads like any pack file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import clingo
from clingo import ast

_SWAP_CMP = {
    ast.ComparisonOperator.LessThan: ast.ComparisonOperator.LessEqual,
    ast.ComparisonOperator.LessEqual: ast.ComparisonOperator.LessThan,
    ast.ComparisonOperator.GreaterThan: ast.ComparisonOperator.GreaterEqual,
    ast.ComparisonOperator.GreaterEqual: ast.ComparisonOperator.GreaterThan,
    ast.ComparisonOperator.Equal: ast.ComparisonOperator.NotEqual,
    ast.ComparisonOperator.NotEqual: ast.ComparisonOperator.Equal,
}


@dataclass(frozen=True)
class AspMutant:
    line: int
    operator: str  # negate | drop | swap_comparison | swap_enum
    description: str
    text: str  # the whole file, mutated


def _rules(text: str) -> list[Any]:
    stmts: list[Any] = []
    ast.parse_string(text, stmts.append)
    return [s for s in stmts if s.ast_type == ast.ASTType.Rule]


def _replace(text: str, stmt: Any, new: Any) -> str:
    lines = text.splitlines()
    begin, end = stmt.location.begin, stmt.location.end
    first, last = lines[begin.line - 1], lines[end.line - 1]
    rewritten = first[: begin.column - 1] + str(new) + last[end.column - 1 :]
    return "\n".join([*lines[: begin.line - 1], rewritten, *lines[end.line :]]) + "\n"


def _enum_swaps(lit: Any, enums: Mapping[str, Sequence[str]]) -> list[tuple[str, Any]]:
    atom = lit.atom
    if atom.ast_type != ast.ASTType.SymbolicAtom:
        return []
    term = atom.symbol
    if term.ast_type != ast.ASTType.Function or term.name not in enums or len(term.arguments) != 1:
        return []
    arg = term.arguments[0]
    if arg.ast_type != ast.ASTType.SymbolicTerm or arg.symbol.type != clingo.SymbolType.Function:
        return []
    values = list(enums[term.name])
    current = arg.symbol.name
    if current not in values or len(values) < 2:
        return []
    other = values[(values.index(current) + 1) % len(values)]
    new_arg = arg.update(symbol=clingo.Function(other))
    new_lit = lit.update(atom=atom.update(symbol=term.update(arguments=[new_arg])))
    return [(f"{term.name}({current}) → {term.name}({other})", new_lit)]


def _literal_mutants(lit: Any, enums: Mapping[str, Sequence[str]]) -> list[tuple[str, str, Any]]:
    """(operator, description, mutated literal) for one body literal."""
    out: list[tuple[str, str, Any]] = []
    atom = lit.atom
    if atom.ast_type == ast.ASTType.Comparison and len(atom.guards) == 1:
        guard = atom.guards[0]
        if guard.comparison in _SWAP_CMP:
            new = lit.update(atom=atom.update(guards=[guard.update(comparison=_SWAP_CMP[guard.comparison])]))
            out.append(("swap_comparison", f"{lit} → {new}", new))
        return out
    if atom.ast_type == ast.ASTType.SymbolicAtom:
        sign = ast.Sign.NoSign if lit.sign != ast.Sign.NoSign else ast.Sign.Negation
        new = lit.update(sign=sign)
        out.append(("negate", f"{lit} → {new}", new))
        out += [("swap_enum", d, m) for d, m in _enum_swaps(lit, enums)]
    return out


def asp_mutants(text: str, enums: Mapping[str, Sequence[str]]) -> list[AspMutant]:
    """Every mutant of one ASP file (``enums``: enum fact → its values, for constant swaps)."""
    mutants: list[AspMutant] = []
    for stmt in _rules(text):
        body = list(stmt.body)
        line = stmt.location.begin.line
        for k, lit in enumerate(body):
            if lit.ast_type != ast.ASTType.Literal:
                continue
            for op, description, new_lit in _literal_mutants(lit, enums):
                new_body = [*body[:k], new_lit, *body[k + 1 :]]
                mutants.append(AspMutant(line, op, description, _replace(text, stmt, stmt.update(body=new_body))))
            dropped = [*body[:k], *body[k + 1 :]]
            mutants.append(AspMutant(line, "drop", f"drop {lit}", _replace(text, stmt, stmt.update(body=dropped))))
    return mutants
