"""Belief-set builder: the tool functions an LLM (or the offline case builder) calls.

Middle way between strict and lax: an unknown constant is declared in the sort the predicate expects,
a constant of a sub-sort (per the hierarchy inferred from the implications so far) is accepted, an
incompatible one is rejected with the missing link named — and kept pending, re-checked each time the
hierarchy grows. Every repair is recorded (see logic.fol.repair).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.fol.hierarchy import SortHierarchy
from lexlogic.logic.fol.model import And, Atom, BeliefSet, Const, Exists, Forall, Formula, Implies, Not, Var
from lexlogic.logic.fol.names import constant_name, symbol_name
from lexlogic.logic.fol.repair import Rejection, Repair, RepairKind
from lexlogic.logic.fol.syntax import print_formula


class BuilderError(LexlogicError, ValueError):
    """A tool call that cannot be honoured; the message is meant for the caller (or the LLM) to fix it."""


# ---------------------------------------------------------------------------- tool argument models
class AddSortArgs(BaseModel):
    """Declare a sort (a type of individual), e.g. 'personne morale', 'contrat'."""

    name: str = Field(description="sort name; any label, normalised to CamelCase")


class AddPredicateSchemaArgs(BaseModel):
    """Declare a predicate with the sorts of its arguments (empty list: a proposition)."""

    name: str = Field(description="predicate name, e.g. 'est partie a'")
    argument_sorts: list[str] = Field(description="declared sorts, one per argument")


class AddConstantToSortArgs(BaseModel):
    """Declare a named individual in a sort."""

    constant: str = Field(description="individual, e.g. 'Société Alpha SA'")
    sort: str


class AddAtomicFactArgs(BaseModel):
    """Assert predicate(arguments). Unknown constants are declared in the expected sort."""

    predicate: str
    arguments: list[str] = Field(default_factory=list)


class AddUniversalImplicationArgs(BaseModel):
    """Assert forall X: (antecedent(X) => consequent(X)); makes sort(antecedent) a sub-sort of sort(consequent)."""

    antecedent: str = Field(description="unary predicate")
    consequent: str = Field(description="unary predicate")
    sort: str | None = Field(default=None, description="sort of X (default: the antecedent's argument sort)")


class AddExistentialConjunctionArgs(BaseModel):
    """Assert exists X: (p1(X) && p2(X) && ...)."""

    predicates: list[str] = Field(min_length=1, description="unary predicates")
    sort: str | None = Field(default=None, description="sort of X (default: the first predicate's)")


TOOL_MODELS: dict[str, type[BaseModel]] = {
    "add_sort": AddSortArgs,
    "add_predicate_schema": AddPredicateSchemaArgs,
    "add_constant_to_sort": AddConstantToSortArgs,
    "add_atomic_fact": AddAtomicFactArgs,
    "add_negated_atomic_fact": AddAtomicFactArgs,
    "add_universal_implication": AddUniversalImplicationArgs,
    "add_existential_conjunction": AddExistentialConjunctionArgs,
}


def tool_definitions() -> list[dict[str, Any]]:
    """OpenAI-style tool definitions (JSON schema of each tool's arguments)."""
    out = []
    for name, model in TOOL_MODELS.items():
        schema = model.model_json_schema()
        schema.pop("title", None)
        desc = (model.__doc__ or "").strip()
        if name == "add_negated_atomic_fact":
            desc = "Assert !predicate(arguments) (the fact is false)."
        out.append({"type": "function", "function": {"name": name, "description": desc, "parameters": schema}})
    return out


class BeliefSetBuilder:
    def __init__(self, belief_set: BeliefSet | None = None) -> None:
        self.bs = belief_set or BeliefSet()
        self.hierarchy = SortHierarchy.from_belief_set(self.bs)
        self.pending: list[tuple[AddAtomicFactArgs, bool, Rejection]] = []
        self.rejections: list[Rejection] = []
        self.cycles: list[list[str]] = []
        self.log: list[str] = []

    # ------------------------------------------------------------------------ name resolution
    def _label(self, name: str, label: str) -> None:
        if label != name and name not in self.bs.labels:
            self.bs.labels[name] = label

    def _find(self, names: Iterable[str], name: str) -> str | None:
        if name in names:
            return name
        low = name.casefold()
        for n in names:
            if n.casefold() == low:
                return n
        return None

    def sort(self, label: str) -> str:
        name = self._find(self.bs.signature.sorts, symbol_name(label, "sort"))
        if name is None:
            raise BuilderError(
                f"unknown sort {label!r}; known sorts: {sorted(self.bs.signature.sorts) or 'none'}"
                f" (declare it with add_sort)"
            )
        return name

    def predicate(self, label: str) -> str:
        name = self._find(self.bs.signature.predicates, symbol_name(label))
        if name is None:
            raise BuilderError(
                f"unknown predicate {label!r}; known predicates: "
                f"{sorted(self.bs.signature.predicates) or 'none'} (declare it with "
                f"add_predicate_schema)"
            )
        return name

    def _constant(self, label: str) -> str:
        return constant_name(label)

    # --------------------------------------------------------------------------------- tools
    def add_sort(self, name: str) -> str:
        norm = symbol_name(name, "sort")
        existing = self._find(self.bs.signature.sorts, norm)
        if existing:
            return f"sort {existing} already declared"
        self.bs.signature.sorts[norm] = []
        self._label(norm, name)
        return f"sort {norm} declared"

    def add_predicate_schema(self, name: str, argument_sorts: list[str]) -> str:
        norm = symbol_name(name)
        sorts = tuple(self.sort(s) for s in argument_sorts)
        existing = self._find(self.bs.signature.predicates, norm)
        if existing:
            if self.bs.signature.predicates[existing] == sorts:
                return f"predicate {existing} already declared"
            raise BuilderError(
                f"predicate {existing} is already declared with argument sorts "
                f"{list(self.bs.signature.predicates[existing])}, not {list(sorts)}"
            )
        if norm in self.bs.signature.sorts:
            raise BuilderError(f"{norm} is already a sort name; choose another predicate name")
        self.bs.signature.predicates[norm] = sorts
        self._label(norm, name)
        return f"predicate {norm}({', '.join(sorts)}) declared"

    def add_constant_to_sort(self, constant: str, sort: str) -> str:
        c = self._constant(constant)
        s = self.sort(sort)
        current = self.bs.signature.sort_of(c)
        if current == s:
            return f"{c} already in {s}"
        if current is not None:
            if self.hierarchy.is_subsort(current, s):
                return f"{c} is a {current}, already a sub-sort of {s}: nothing to do"
            raise BuilderError(
                f"constant {c} is already of sort {current}; a constant has exactly one sort "
                f"and {current} is not a sub-sort of {s}"
            )
        self.bs.signature.sorts[s].append(c)
        self._label(c, constant)
        return f"constant {c} declared in {s}"

    def add_atomic_fact(self, predicate: str, arguments: list[str]) -> str:
        return self._fact(AddAtomicFactArgs(predicate=predicate, arguments=arguments), negated=False)

    def add_negated_atomic_fact(self, predicate: str, arguments: list[str]) -> str:
        return self._fact(AddAtomicFactArgs(predicate=predicate, arguments=arguments), negated=True)

    def _check_fact(self, args: AddAtomicFactArgs, negated: bool) -> tuple[Formula, list[Repair]]:
        """The fact and the repairs it needs, or BuilderError naming the incompatible argument."""
        p = self.predicate(args.predicate)
        sorts = self.bs.signature.predicates[p]
        if len(args.arguments) != len(sorts):
            raise BuilderError(
                f"{p} takes {len(sorts)} argument(s) ({', '.join(sorts) or 'none'}), got {len(args.arguments)}"
            )
        names = [self._constant(a) for a in args.arguments]
        atom = Atom(p, tuple(Const(n) for n in names))
        fact = Not(atom) if negated else atom
        text = print_formula(fact)
        repairs: list[Repair] = []
        declared: dict[str, str] = {}
        for k, (c, expected) in enumerate(zip(names, sorts)):
            actual = self.bs.signature.sort_of(c) or declared.get(c)
            if actual is None:
                declared[c] = expected
                repairs.append(
                    Repair(
                        kind=RepairKind.DECLARED_CONSTANT,
                        fact=text,
                        constant=c,
                        expected_sort=expected,
                        predicate=p,
                        argument_index=k,
                        reason=f"'{c}' was not declared; declared in {expected}, the sort "
                        f"{p} expects at argument {k + 1}",
                    )
                )
                continue
            if actual == expected:
                continue
            chain = self.hierarchy.path(actual, expected)
            if chain is None:
                raise BuilderError(
                    f"rejected {text}: constant '{c}' is of sort {actual} but {p} expects {expected} at "
                    f"argument {k + 1}; missing link {actual} ⊑ {expected} (no universal implication "
                    f"makes {actual} a sub-sort of {expected}; super-sorts of {actual}: "
                    f"{sorted(self.hierarchy.ancestors(actual)) or 'none'})"
                )
            repairs.append(
                Repair(
                    kind=RepairKind.SUBSORT_ACCEPTED,
                    fact=text,
                    constant=c,
                    constant_sort=actual,
                    expected_sort=expected,
                    predicate=p,
                    argument_index=k,
                    reason=f"'{c}' is a {actual}, and {' ⊑ '.join(chain)} (inferred)",
                    justified_by=self.hierarchy.justifications(chain),
                )
            )
        return fact, repairs

    def _commit(self, fact: Formula, repairs: list[Repair]) -> None:
        for r in repairs:
            if r.kind is RepairKind.DECLARED_CONSTANT:
                if self.bs.signature.sort_of(r.constant) is None:
                    self.bs.signature.sorts[r.expected_sort].append(r.constant)
        self.bs.repairs.extend(repairs)
        self.bs.add(fact)

    def _fact(self, args: AddAtomicFactArgs, negated: bool) -> str:
        try:
            fact, repairs = self._check_fact(args, negated)
        except BuilderError as exc:
            if str(exc).startswith("rejected"):
                rej = Rejection(predicate=args.predicate, arguments=args.arguments, negated=negated, reason=str(exc))
                self.rejections.append(rej)
                self.pending.append((args, negated, rej))
                raise BuilderError(
                    f"{exc}. The fact is kept pending and will be re-checked if a later "
                    f"implication makes the sorts compatible."
                ) from None
            raise
        for a in args.arguments:
            self._label(self._constant(a), a)
        if fact in self.bs.formulas:
            return f"{print_formula(fact)} is already in the belief set"
        self._commit(fact, repairs)
        note = "; ".join(f"repair: {r.reason}" for r in repairs)
        return f"added {print_formula(fact)}" + (f" ({note})" if note else "")

    def add_universal_implication(self, antecedent: str, consequent: str, sort: str | None = None) -> str:
        a, b = self.predicate(antecedent), self.predicate(consequent)
        sa, sb = self.bs.signature.predicates[a], self.bs.signature.predicates[b]
        if len(sa) != 1 or len(sb) != 1:
            raise BuilderError(
                f"add_universal_implication needs unary predicates: {a} has {len(sa)} argument(s), {b} has {len(sb)}"
            )
        vsort = self.sort(sort) if sort else sa[0]
        if not self.hierarchy.is_subsort(vsort, sa[0]):
            raise BuilderError(
                f"X of sort {vsort} cannot be an argument of {a}, which expects {sa[0]} "
                f"(missing link {vsort} ⊑ {sa[0]})"
            )
        x = Var("X", vsort)
        f = Forall(x, Implies(Atom(a, (x,)), Atom(b, (x,))))
        self.bs.add(f)
        text = print_formula(f)
        msg = f"added {text}"
        if vsort != sb[0]:
            cycle = self.hierarchy.add(vsort, sb[0], text)
            msg += f"; inferred {vsort} ⊑ {sb[0]}"
            if cycle:
                self.cycles.append(cycle)
                msg += (
                    f"; WARNING: cycle in the sort hierarchy {' ⊑ '.join(cycle)} (the sorts on it "
                    f"are now mutually compatible)"
                )
            msg += self._recheck_pending()
        return msg

    def add_existential_conjunction(self, predicates: list[str], sort: str | None = None) -> str:
        preds = [self.predicate(p) for p in predicates]
        for p in preds:
            if len(self.bs.signature.predicates[p]) != 1:
                raise BuilderError(f"add_existential_conjunction needs unary predicates; {p} is not")
        vsort = self.sort(sort) if sort else self.bs.signature.predicates[preds[0]][0]
        for p in preds:
            expected = self.bs.signature.predicates[p][0]
            if not self.hierarchy.is_subsort(vsort, expected):
                raise BuilderError(
                    f"X of sort {vsort} cannot be an argument of {p}, which expects "
                    f"{expected} (missing link {vsort} ⊑ {expected})"
                )
        x = Var("X", vsort)
        atoms = tuple(Atom(p, (x,)) for p in preds)
        f = Exists(x, atoms[0] if len(atoms) == 1 else And(atoms))
        self.bs.add(f)
        return f"added {print_formula(f)}"

    def _recheck_pending(self) -> str:
        accepted = []
        still = []
        for args, negated, rej in self.pending:
            try:
                fact, repairs = self._check_fact(args, negated)
            except BuilderError:
                still.append((args, negated, rej))
                continue
            for r in repairs:
                if r.kind is RepairKind.SUBSORT_ACCEPTED:
                    r.kind = RepairKind.PENDING_ACCEPTED
                    r.reason += " — accepted on re-check after the hierarchy grew"
            self._commit(fact, repairs)
            accepted.append(print_formula(fact))
        self.pending = still
        return f"; pending facts now accepted: {', '.join(accepted)}" if accepted else ""

    # ------------------------------------------------------------------------- tool dispatch
    def tools(self) -> dict[str, Callable[..., str]]:
        return {name: getattr(self, name) for name in TOOL_MODELS}

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        """Run a tool; any error comes back as text starting with 'error:' (for the LLM to correct)."""
        model = TOOL_MODELS.get(name)
        if model is None:
            return f"error: unknown tool {name!r}; tools: {', '.join(TOOL_MODELS)}"
        try:
            parsed = model.model_validate(arguments)
            result: str = getattr(self, name)(**parsed.model_dump())
        except ValidationError as exc:
            return f"error: invalid arguments for {name}: {exc.errors(include_url=False)}"
        except (BuilderError, ValueError) as exc:
            return f"error: {exc}"
        self.log.append(f"{name}({arguments}) -> {result}")
        return result
