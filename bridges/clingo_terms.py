"""Small evaluator over clingo AST terms: substitute a binding, unify with a symbol, compare.

Used to instantiate the premises of a fired rule from its recorded variable binding, and to explain
why a rule did NOT fire (which premise failed), without asking the solver again.
"""

from __future__ import annotations

from typing import Any

import clingo
from clingo import ast

Binding = dict[str, clingo.Symbol]

_BIN = {
    ast.BinaryOperator.Plus: lambda a, b: a + b,
    ast.BinaryOperator.Minus: lambda a, b: a - b,
    ast.BinaryOperator.Multiplication: lambda a, b: a * b,
    ast.BinaryOperator.Division: lambda a, b: a // b if b else None,
    ast.BinaryOperator.Modulo: lambda a, b: a % b if b else None,
}
_CMP = {
    ast.ComparisonOperator.Equal: lambda a, b: a == b,
    ast.ComparisonOperator.NotEqual: lambda a, b: a != b,
    ast.ComparisonOperator.LessThan: lambda a, b: a < b,
    ast.ComparisonOperator.LessEqual: lambda a, b: a <= b,
    ast.ComparisonOperator.GreaterThan: lambda a, b: a > b,
    ast.ComparisonOperator.GreaterEqual: lambda a, b: a >= b,
}


class Unevaluable(Exception):
    """The term has an unbound variable or a construct this evaluator does not handle."""


def variables(node: Any) -> list[str]:
    """Variable names in an AST node, in first-occurrence order (anonymous `_` excluded)."""
    seen: list[str] = []

    def walk(n: Any) -> None:
        if isinstance(n, ast.AST):
            if n.ast_type == ast.ASTType.Variable:
                if n.name != "_" and n.name not in seen:
                    seen.append(n.name)
                return
            for key in n.child_keys:
                walk(getattr(n, key))
        elif isinstance(n, (list, tuple)) or type(n).__name__ == "ASTSequence":
            for x in n:
                walk(x)

    walk(node)
    return seen


def evaluate(term: Any, binding: Binding) -> clingo.Symbol:
    t = term.ast_type
    if t == ast.ASTType.Variable:
        if term.name in binding:
            return binding[term.name]
        raise Unevaluable(term.name)
    if t == ast.ASTType.SymbolicTerm:
        return term.symbol
    if t == ast.ASTType.Function:
        args = [evaluate(a, binding) for a in term.arguments]
        return clingo.Function(term.name, args)
    if t == ast.ASTType.BinaryOperation:
        a, b = evaluate(term.left, binding), evaluate(term.right, binding)
        if a.type != clingo.SymbolType.Number or b.type != clingo.SymbolType.Number:
            raise Unevaluable(str(term))
        value = _BIN.get(term.operator_type, lambda *_: None)(a.number, b.number)
        if value is None:
            raise Unevaluable(str(term))
        return clingo.Number(value)
    if t == ast.ASTType.UnaryOperation and term.operator_type == ast.UnaryOperator.Minus:
        a = evaluate(term.argument, binding)
        return clingo.Number(-a.number)
    raise Unevaluable(str(term))


def atom_term(literal_atom: Any) -> Any:
    """The term of a SymbolicAtom (its predicate application)."""
    return literal_atom.symbol


def unify(pattern: Any, symbol: clingo.Symbol, binding: Binding) -> Binding | None:
    """Extend `binding` so that `pattern` equals `symbol`, or None."""
    t = pattern.ast_type
    if t == ast.ASTType.Variable:
        if pattern.name == "_":
            return binding
        if pattern.name in binding:
            return binding if binding[pattern.name] == symbol else None
        return {**binding, pattern.name: symbol}
    if t == ast.ASTType.SymbolicTerm:
        return binding if pattern.symbol == symbol else None
    if t == ast.ASTType.Function:
        if (
            symbol.type != clingo.SymbolType.Function
            or symbol.name != pattern.name
            or len(symbol.arguments) != len(pattern.arguments)
        ):
            return None
        for p, s in zip(pattern.arguments, symbol.arguments):
            binding = unify(p, s, binding)  # type: ignore[assignment]
            if binding is None:
                return None
        return binding
    try:
        return binding if evaluate(pattern, binding) == symbol else None
    except Unevaluable:
        return None


def signature(term: Any) -> tuple[str, int]:
    if term.ast_type == ast.ASTType.Function:
        return term.name, len(term.arguments)
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return term.symbol.name, len(term.symbol.arguments)
    raise Unevaluable(str(term))


def compare(comparison: Any, binding: Binding) -> tuple[bool, str]:
    """Evaluate a Comparison literal; returns (holds, text with values), may extend nothing."""
    left = evaluate(comparison.term, binding)
    text = str(left)
    holds = True
    for guard in comparison.guards:
        right = evaluate(guard.term, binding)
        op = _CMP[guard.comparison]
        holds = holds and op(left, right)
        text += f" {_op_text(guard.comparison)} {right}"
        left = right
    return holds, text


def assign(comparison: Any, binding: Binding) -> Binding | None:
    """`V = expr` with V unbound: bind it (clingo's assignment semantics)."""
    if len(comparison.guards) == 1 and comparison.guards[0].comparison == ast.ComparisonOperator.Equal:
        left, right = comparison.term, comparison.guards[0].term
        for var, expr in ((left, right), (right, left)):
            if var.ast_type == ast.ASTType.Variable and var.name not in binding:
                try:
                    return {**binding, var.name: evaluate(expr, binding)}
                except Unevaluable:
                    return None
    return None


def _op_text(op: Any) -> str:
    return {
        ast.ComparisonOperator.Equal: "=",
        ast.ComparisonOperator.NotEqual: "!=",
        ast.ComparisonOperator.LessThan: "<",
        ast.ComparisonOperator.LessEqual: "<=",
        ast.ComparisonOperator.GreaterThan: ">",
        ast.ComparisonOperator.GreaterEqual: ">=",
    }[op]
