"""Printing sorted first-order logic in Tweety's `.fologic` syntax, and a belief set's content digest.

Apart from the parser (syntax) because the model, the sort hierarchy and the bridges print formulas
without parsing any, and the parser itself needs the hierarchy: printing here breaks that circle."""

from __future__ import annotations

import hashlib

from lexlogic.logic.fol import model as fm


def show_predicate(name: str, sorts: tuple[str, ...]) -> str:
    """A predicate with its argument sorts, as `type(...)` declares it: ``pay(Party,Amount)``."""
    return f"{name}({','.join(sorts)})" if sorts else name


def print_term(t: fm.Term) -> str:
    return t.name


def _operand(f: fm.Formula) -> str:
    if isinstance(f, (fm.Atom, fm.Top, fm.Bottom)) or (isinstance(f, fm.Not) and isinstance(f.body, fm.Atom)):
        return print_formula(f)
    return f"({print_formula(f)})"


def print_formula(f: fm.Formula) -> str:
    """Tweety syntax; compound operands are always parenthesised so Tweety's parser reads the same tree."""
    if isinstance(f, fm.Atom):
        if not f.args:
            return f.pred
        return f"{f.pred}({','.join(print_term(t) for t in f.args)})"
    if isinstance(f, fm.Equals):
        return f"{print_term(f.left)} == {print_term(f.right)}"
    if isinstance(f, fm.NotEquals):
        return f"{print_term(f.left)} /== {print_term(f.right)}"
    if isinstance(f, fm.Top):
        return "+"
    if isinstance(f, fm.Bottom):
        return "-"
    if isinstance(f, fm.Not):
        return "!" + _operand(f.body)
    if isinstance(f, fm.And):
        return " && ".join(_operand(p) for p in f.parts)
    if isinstance(f, fm.Or):
        return " || ".join(_operand(p) for p in f.parts)
    if isinstance(f, fm.Xor):
        return " ^^ ".join(_operand(p) for p in f.parts)
    if isinstance(f, fm.Implies):
        return f"{_operand(f.left)} => {_operand(f.right)}"
    if isinstance(f, fm.Iff):
        return f"{_operand(f.left)} <=> {_operand(f.right)}"
    if isinstance(f, fm.Forall):
        return f"forall {f.var.name}: ({print_formula(f.body)})"
    if isinstance(f, fm.Exists):
        return f"exists {f.var.name}: ({print_formula(f.body)})"
    raise TypeError(f"not a formula: {f!r}")


def print_signature(sig: fm.Signature) -> list[str]:
    lines = [f"{s} = {{{', '.join(cs)}}}" for s, cs in sig.sorts.items()]
    lines.append("")
    lines += [f"type({show_predicate(p, ss)})" for p, ss in sig.predicates.items()]
    return lines


def print_belief_set(bs: fm.BeliefSet) -> str:
    lines = print_signature(bs.signature)
    lines.append("")
    lines += [print_formula(f) for f in bs.formulas]
    return "\n".join(lines) + "\n"


def fingerprint(bs: fm.BeliefSet) -> str:
    """Stable digest of the logical content (engines cache loaded programs by it)."""
    return hashlib.sha256(print_belief_set(bs).encode()).hexdigest()[:16]
