"""Sorted first-order logic: model, Tweety `.fologic` syntax, sort hierarchy, repairs, builder."""
from logic.fol.model import (ANY, And, Atom, BeliefSet, Bottom, Const, Equals, Exists, Forall, Formula,
                             Iff, Implies, Not, NotEquals, Or, Signature, Top, Var, Xor)
from logic.fol.syntax import (FolSyntaxError, parse_belief_set, parse_file, parse_formula,
                              print_belief_set, print_formula)

__all__ = ["ANY", "And", "Atom", "BeliefSet", "Bottom", "Const", "Equals", "Exists", "Forall", "Formula",
           "Iff", "Implies", "Not", "NotEquals", "Or", "Signature", "Top", "Var", "Xor", "FolSyntaxError",
           "parse_belief_set", "parse_file", "parse_formula", "print_belief_set", "print_formula"]
