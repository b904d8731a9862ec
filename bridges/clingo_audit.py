"""clingo as the search engine of a pack's static audit: every combination of the input atoms at once.

The case solver (``clingo_bridge``) assigns the pack's inputs as externals, one case at a time. The audit
asks questions about ALL cases: the inputs become free choices (each yes/no atom ``{b}.``, each enum
exactly one value), so one brave-consequence enumeration says which rules can fire under some assignment
(dead rules), which exceptions can ever be decisive (shadowed exceptions), which constraints or clashes can
be reached (conflicts); a second copy of the program, sharing only the inputs, finds an assignment with two
answer sets that disagree on an outcome (gaps). A witness assignment is then searched with fewest true
atoms and shrunk to the facts that force the finding. Every solve is bounded by a deadline; a search cut
short says so (``complete=False``), never "nothing found".

The engine hands over a ``CompiledProgram`` and ``Probe`` atoms as text; it gets back text and booleans.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import clingo
from clingo import ast

from lexlogic.bridges.clingo_bridge import APP, CompiledProgram, CompiledRule, SolveError

VIOLATED = "__violated"  # a constraint's body holds (rule index)
EXCEPTION = "__exception"  # (rule index, literal index): the rest of the body holds and the exception too
CLASH = "__clash"  # an atom and its classical negation both derived
NEG_PREFIX = "__neg_"


@dataclass(frozen=True)
class Search:
    """What one bounded search found: the atoms of interest that are possible, and whether it finished."""

    possible: frozenset[str]
    complete: bool


class AuditBudget:
    """A deadline shared by every solve of one audit (``time.monotonic`` seconds)."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


# --------------------------------------------------------------------------------------- programs
def _body_text(rule: CompiledRule) -> str:
    return rule.text.split(":-", 1)[1].rstrip(".").strip() if ":-" in rule.text else ""


def _inputs_as_choices(program: CompiledProgram) -> list[str]:
    parts = [f"{{ {b} }}." for b in program.inputs.booleans]
    for name, values in program.inputs.enums.items():
        if values:
            parts.append(f"1 {{ {'; '.join(f'{name}({v})' for v in values)} }} 1.")
    return parts


def audit_program(program: CompiledProgram) -> str:
    """The pack's rules with every input free, reified (``__app``), constraints turned into ``__violated``
    atoms, each negated body atom into an ``__exception`` probe, classical negation into ``__neg_`` atoms."""
    parts = _inputs_as_choices(program)
    negated: set[tuple[str, int]] = set()
    for rule in program.rules:
        body = _body_text(rule)
        if rule.is_constraint:
            parts.append(f"{VIOLATED}({rule.index}) :- {body}.")
            continue
        parts.append(rule.text)
        vars_ = ",".join(rule.variables)
        tuple_ = f"({vars_},)" if len(rule.variables) == 1 else f"({vars_})"
        parts.append(f"{APP}({rule.index},{tuple_}) :- {body}." if body else f"{APP}({rule.index},()).")
        for k, lit in enumerate(rule.lits):
            if not lit.negated or lit.kind != "atom" or lit.text.startswith("not not"):
                continue
            rest = [other.text for j, other in enumerate(rule.lits) if j != k]
            parts.append(f"{EXCEPTION}({rule.index},{k}) :- {', '.join([*rest, str(lit.node)])}.")
        if "-" in rule.text:
            negated.update(_classically_negated(rule.text))
    source = "\n".join(parts)
    if negated:
        source = _rename_classical_negation(source)
        for name, arity in sorted(negated):
            args = ",".join(f"X{i}" for i in range(arity))
            atom = f"{name}({args})" if arity else name
            neg = f"{NEG_PREFIX}{name}({args})" if arity else f"{NEG_PREFIX}{name}"
            parts_clash = f"{CLASH}({atom}) :- {atom}, {neg}."
            source += "\n" + parts_clash
    return source


def _classically_negated(text: str) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()

    def visit(node: Any) -> None:
        if isinstance(node, ast.AST):
            if node.ast_type == ast.ASTType.UnaryOperation and node.operator_type == ast.UnaryOperator.Minus:
                arg = node.argument
                if arg.ast_type == ast.ASTType.Function:
                    found.add((arg.name, len(arg.arguments)))
                elif arg.ast_type == ast.ASTType.SymbolicTerm and arg.symbol.type == clingo.SymbolType.Function:
                    found.add((arg.symbol.name, len(arg.symbol.arguments)))
            for key in node.child_keys:
                visit(getattr(node, key))
        elif isinstance(node, (list, tuple)) or type(node).__name__ == "ASTSequence":
            for x in node:
                visit(x)

    ast.parse_string(text, visit)
    return found


class _Renamer(ast.Transformer):
    """Renames predicates: ``-p`` → ``__neg_p`` (when ``negation``), or every non-input ``p`` → ``p<suffix>``."""

    def __init__(self, keep: set[str] | None = None, suffix: str = "", negation: bool = False) -> None:
        self.keep = keep or set()
        self.suffix = suffix
        self.negation = negation

    def visit_SymbolicAtom(self, node: Any) -> Any:  # noqa: N802 - clingo's visitor naming
        return node.update(symbol=self._rename(node.symbol))

    def _rename(self, term: Any) -> Any:
        if term.ast_type == ast.ASTType.UnaryOperation and self.negation:
            inner = term.argument
            if inner.ast_type == ast.ASTType.Function:
                return inner.update(name=NEG_PREFIX + inner.name)
            if inner.ast_type == ast.ASTType.SymbolicTerm:
                sym = inner.symbol
                return inner.update(symbol=clingo.Function(NEG_PREFIX + sym.name, sym.arguments))
            return term
        if self.negation or not self.suffix:
            return term
        if term.ast_type == ast.ASTType.Function and term.name not in self.keep:
            return term.update(name=term.name + self.suffix)
        if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
            sym = term.symbol
            if sym.name not in self.keep:
                return term.update(symbol=clingo.Function(sym.name + self.suffix, sym.arguments, sym.positive))
        return term


def _transform(source: str, renamer: _Renamer) -> str:
    out: list[str] = []
    ast.parse_string(source, lambda stmt: out.append(str(renamer(stmt))))
    return "\n".join(s for s in out if not s.startswith("#program"))


def _rename_classical_negation(source: str) -> str:
    return _transform(source, _Renamer(negation=True))


def input_names(program: CompiledProgram) -> set[str]:
    return set(program.inputs.booleans) | set(program.inputs.enums)


def twin_program(program: CompiledProgram, outcomes: Iterable[str], gap: str) -> str:
    """Two copies of the pack's rules (suffixes ``__a`` and ``__b``) over ONE set of free inputs, and
    ``gap(o)`` when o holds in the first copy and not in the second: two answer sets of one assignment."""
    keep = input_names(program)
    rules = "\n".join(r.text for r in program.rules)
    rules = _rename_classical_negation(rules) if "-" in rules else rules
    parts = _inputs_as_choices(program)
    parts.append(_transform(rules, _Renamer(keep, "__a")))
    parts.append(_transform(rules, _Renamer(keep, "__b")))
    for outcome in outcomes:
        sym = clingo.parse_term(outcome)
        a = clingo.Function(sym.name + "__a", sym.arguments)
        b = clingo.Function(sym.name + "__b", sym.arguments)
        parts.append(f'{gap}("{outcome}") :- {a}, not {b}.')
    return "\n".join(parts)


# --------------------------------------------------------------------------------------- solving
def _control(source: str, extra: Sequence[str] = ()) -> clingo.Control:
    ctl = clingo.Control(["--warn=none"])
    try:
        ctl.add("base", [], source + "\n" + "\n".join(extra))
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise SolveError(f"audit grounding failed: {exc}") from exc
    return ctl


def _bounded(ctl: clingo.Control, budget: AuditBudget, on_model: Any, assumptions: Sequence[Any] = ()) -> bool | None:
    """Solve until done or the budget is spent: True/False (satisfiable), None when cut short."""
    with ctl.solve(on_model=on_model, assumptions=list(assumptions), async_=True) as handle:
        if not handle.wait(budget.left()):
            handle.cancel()
            return None
        result = handle.get()
    if result.interrupted:
        return None
    return bool(result.satisfiable)


def brave(source: str, wanted: Iterable[str], budget: AuditBudget) -> Search:
    """Which atoms whose predicate is in ``wanted`` hold in SOME answer set (the brave consequences)."""
    names = set(wanted)
    ctl = _control(source)
    conf: Any = ctl.configuration.solve
    conf.enum_mode = "brave"
    conf.models = 0
    last: list[str] = []

    def on_model(model: clingo.Model) -> None:
        last[:] = [str(s) for s in model.symbols(atoms=True) if s.name in names]

    outcome = _bounded(ctl, budget, on_model)
    return Search(possible=frozenset(last), complete=outcome is not None)


def witness(source: str, goal: str, inputs: Sequence[str], budget: AuditBudget) -> dict[str, bool] | None:
    """An assignment of the inputs (as text → truth) under which ``goal`` holds, with fewest true inputs
    (clingo's optimisation, cut at the budget: then the best found so far)."""
    choices = " ; ".join(f"1,{i}:{a}" for i, a in enumerate(inputs))
    extra = [f":- not {goal}.", f"#minimize {{ {choices} }}." if inputs else ""]
    ctl = _control(source, extra)
    conf: Any = ctl.configuration.solve
    conf.opt_mode = "opt"
    best: list[set[str]] = []

    def on_model(model: clingo.Model) -> None:
        best[:] = [{str(s) for s in model.symbols(atoms=True)}]

    _bounded(ctl, budget, on_model)
    if not best:
        return None
    return {a: a in best[0] for a in inputs}


def forced(source: str, goal: str, partial: Mapping[str, bool], budget: AuditBudget) -> bool | None:
    """Does ``goal`` hold in every answer set of every completion of ``partial``? None: no time left."""
    ctl = _control(source, [f":- {goal}."])
    assumptions = [(clingo.parse_term(a), v) for a, v in partial.items()]
    sat = _bounded(ctl, budget, None, assumptions)
    return None if sat is None else not sat


def shrink(
    source: str, goal: str, groups: Mapping[str, Mapping[str, bool]], budget: AuditBudget
) -> dict[str, dict[str, bool]]:
    """Drop, one group at a time (a yes/no input, or all the atoms of one enum), the inputs the finding does
    not need: left free, ``goal`` still holds in every completion. What remains is a minimal (not minimum)
    counterexample; when the budget ends, what is left so far."""
    kept = {name: dict(atoms) for name, atoms in groups.items()}

    def flat(gs: Mapping[str, Mapping[str, bool]]) -> dict[str, bool]:
        return {a: v for atoms in gs.values() for a, v in atoms.items()}

    if forced(source, goal, flat(kept), budget) is not True:
        return kept  # not forced by this assignment (several answer sets): keep it whole
    for name in sorted(groups, key=lambda n: (any(groups[n].values()), n)):
        trial = {k: v for k, v in kept.items() if k != name}
        verdict = forced(source, goal, flat(trial), budget)
        if verdict is None:
            break
        if verdict:
            kept = trial
    return kept


def ties(groups: Sequence[Sequence[str]]) -> str:
    """Constraints making the yes/no inputs of each group equal in every assignment (a chain of both-way
    implications): computed booleans one computation defines are one value, not free choices each."""
    parts = []
    for group in groups:
        for x, y in zip(group, group[1:], strict=False):
            parts += [f":- {x}, not {y}.", f":- {y}, not {x}."]
    return "\n".join(parts)


def fatal_probes(target: str, checks: Sequence[tuple[str, str, str]], probe: str) -> str:
    """``probe(check)`` when the target is concluded while a check the pack declares fatal ends the analysis
    (``checks``: id, outcome atom, the fatal value ``yes``/``no``)."""
    lines = []
    for check_id, outcome, fatal_if in checks:
        lit = outcome if fatal_if == "yes" else f"not {outcome}"
        lines.append(f'{probe}("{check_id}") :- {target}, {lit}.')
    return "\n".join(lines)


def cone(program: CompiledProgram, atom: str) -> set[str]:
    """The predicate names ``atom`` depends on through the rules (itself included)."""
    start = clingo.parse_term(atom).name
    seen = {start}
    todo = [start]
    while todo:
        name = todo.pop()
        for rule in program.rules:
            if any(sig[0] == name for sig in rule.head_signatures):
                for pred in rule.body_predicates - seen:
                    seen.add(pred)
                    todo.append(pred)
    return seen
