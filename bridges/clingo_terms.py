"""Small evaluator over clingo AST terms: substitute a binding, unify with a symbol, compare.

Why not ask the solver: the rule walker (``clingo_walk``) instantiates the premises of a fired rule from
its recorded variable binding, and explains why a rule did NOT fire (which premise failed), on the answer
sets already computed — a few dictionary look-ups instead of another solve call per question.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import clingo
from clingo import ast

from lexlogic.logic.errors import LexlogicError

Binding = dict[str, clingo.Symbol]

_BIN: dict[Any, Callable[[int, int], int | None]] = {
    ast.BinaryOperator.Plus: operator.add,
    ast.BinaryOperator.Minus: operator.sub,
    ast.BinaryOperator.Multiplication: operator.mul,
    ast.BinaryOperator.Division: lambda a, b: a // b if b else None,
    ast.BinaryOperator.Modulo: lambda a, b: a % b if b else None,
}
_CMP: dict[Any, tuple[Callable[[clingo.Symbol, clingo.Symbol], bool], str]] = {
    ast.ComparisonOperator.Equal: (operator.eq, "="),
    ast.ComparisonOperator.NotEqual: (operator.ne, "!="),
    ast.ComparisonOperator.LessThan: (operator.lt, "<"),
    ast.ComparisonOperator.LessEqual: (operator.le, "<="),
    ast.ComparisonOperator.GreaterThan: (operator.gt, ">"),
    ast.ComparisonOperator.GreaterEqual: (operator.ge, ">="),
}


class Unevaluable(LexlogicError):
    """The term has an unbound variable or a construct this evaluator does not handle.

    A control-flow signal inside the bridge (never reaches a caller), hence not a ``LexlogicError``.
    """


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
    """The symbol a term denotes under `binding`; raises Unevaluable on an unbound variable."""
    t = term.ast_type
    if t == ast.ASTType.Variable:
        if term.name in binding:
            return binding[term.name]
        raise Unevaluable(term.name)
    if t == ast.ASTType.SymbolicTerm:
        symbol: clingo.Symbol = term.symbol
        return symbol
    if t == ast.ASTType.Function:
        args = [evaluate(a, binding) for a in term.arguments]
        return clingo.Function(term.name, args)
    if t == ast.ASTType.BinaryOperation:
        a, b = evaluate(term.left, binding), evaluate(term.right, binding)
        if a.type != clingo.SymbolType.Number or b.type != clingo.SymbolType.Number:
            raise Unevaluable(str(term))
        op = _BIN.get(term.operator_type)
        value = op(a.number, b.number) if op is not None else None
        if value is None:
            raise Unevaluable(str(term))
        return clingo.Number(value)
    if t == ast.ASTType.UnaryOperation and term.operator_type == ast.UnaryOperator.Minus:
        a = evaluate(term.argument, binding)
        return clingo.Number(-a.number)
    raise Unevaluable(str(term))


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
        current: Binding | None = binding
        for p, s in zip(pattern.arguments, symbol.arguments, strict=True):
            current = unify(p, s, current) if current is not None else None
            if current is None:
                return None
        return current
    try:
        return binding if evaluate(pattern, binding) == symbol else None
    except Unevaluable:
        return None


def signature(term: Any) -> tuple[str, int]:
    """(name, arity) of a predicate application term."""
    if term.ast_type == ast.ASTType.Function:
        return str(term.name), len(term.arguments)
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return str(term.symbol.name), len(term.symbol.arguments)
    raise Unevaluable(str(term))


def compare(comparison: Any, binding: Binding) -> tuple[bool, str]:
    """Evaluate a Comparison literal; returns (holds, text with values), may extend nothing."""
    left = evaluate(comparison.term, binding)
    text = str(left)
    holds = True
    for guard in comparison.guards:
        right = evaluate(guard.term, binding)
        op, op_text = _CMP[guard.comparison]
        holds = holds and op(left, right)
        text += f" {op_text} {right}"
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
