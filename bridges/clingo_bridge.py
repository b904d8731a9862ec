"""clingo adapter: compile a pack's ASP files once, ground them once, solve a case, answer in plain data.

This module (with ``clingo_terms`` and ``clingo_walk``) is the only place the symbolic analysis and the
explanations touch clingo: the engine hands over an assignment of the pack's input atoms and gets back
strings and dataclasses (the reference model's atoms, brave and cautious consequences, rule applications,
premises). Nothing here writes into a ``logic`` model: what compiling learns (rule metadata) is returned.

Rule applications are *reified*: for every rule `H :- B.` the compiler adds `__app(I, (X1,...,Xn)) :- B.`
where I is the rule's index and X1..Xn its variables, so each answer set says which rule instances
fired and with which binding. Proof trees are built from that (``clingo_walk``, ``engine/symbolic/explain.py``).
Legal metadata comes from a one-line annotation right above the rule, in YAML flow style::

    %@ {id: R_late, label: "Paiement après l'échéance", sources: [ART_1], from: 2019-04-26}
    late :- paid_after_due_date, not excused.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any

import clingo
from clingo import ast

from lexlogic.bridges.clingo_terms import Unevaluable, evaluate, signature, variables
from lexlogic.logic import yaml_load
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.pack import FactType, PackError, RuleMeta, RulePack

APP = "__app"
_ANNOTATION = re.compile(r"^\s*%@\s*(\{.*\})\s*$")
_CLINGO_MSG = re.compile(r"^<string>:(\d+):(\d+)(?:-\d+(?::\d+)?)?:\s*(.*)$", re.S)

Assignment = Mapping[str, bool | None]
"""Input atom (as text: ``flag``, ``kind(value)``) → True, False or None (unknown: free)."""


class SolveError(LexlogicError):
    """The pack's program does not ground (a pack problem the loader could not see)."""


@lru_cache(maxsize=1 << 16)
def parse_atom(text: str) -> clingo.Symbol:
    """The symbol an atom's text denotes (cached: a pack has few distinct atoms, seen in every case)."""
    return clingo.parse_term(text)


@lru_cache(maxsize=1 << 16)
def atom_signature(text: str) -> tuple[str, int]:
    """(predicate name, arity) of an atom given as text: ``kind(value)`` → ``("kind", 1)``."""
    sym = parse_atom(text)
    return sym.name, len(sym.arguments)


# --------------------------------------------------------------------------------------- compiled rules
@dataclass
class Lit:
    """A body literal, pre-digested once (clingo AST attribute access is slow in hot loops)."""

    negated: bool
    kind: str  # "atom" | "cmp" | "other"
    node: Any  # the atom's term (kind atom), the Comparison (kind cmp), or the literal
    ground: clingo.Symbol | None  # the atom itself when it has no variable
    text: str
    ground_text: str | None = None  # str(ground), computed once


def _digest(lit: Any) -> Lit:
    atom = lit.atom
    negated = lit.sign != ast.Sign.NoSign
    if atom.ast_type == ast.ASTType.SymbolicAtom:
        term = atom.symbol
        ground = None
        if not variables(term):
            try:
                ground = evaluate(term, {})
            except Unevaluable:
                ground = None
        return Lit(negated, "atom", term, ground, str(lit), None if ground is None else str(ground))
    if atom.ast_type == ast.ASTType.Comparison:
        return Lit(negated, "cmp", atom, None, str(lit))
    return Lit(negated, "other", lit, None, str(lit))


@dataclass(frozen=True, slots=True)
class RuleRef:
    """What a reader needs to know about a rule: which one it is and where the law behind it is."""

    index: int
    rule_id: str
    meta: RuleMeta | None
    is_choice: bool


@dataclass
class CompiledRule:
    index: int
    file: str
    line: int
    text: str
    head: Any  # AST
    body: list[Any]  # AST literals
    variables: list[str]
    meta: RuleMeta | None
    is_choice: bool
    is_constraint: bool
    head_signatures: list[tuple[str, int]] = field(default_factory=list)
    lits: list[Lit] = field(default_factory=list)
    heads: list[tuple[Any, clingo.Symbol | None]] = field(default_factory=list)
    head_texts: list[str | None] = field(default_factory=list)  # str(ground) of each head, None if not ground
    body_predicates: set[str] = field(default_factory=set)

    @property
    def rule_id(self) -> str:
        return self.meta.id if self.meta else f"{self.file}:{self.line}"

    @property
    def ref(self) -> RuleRef:
        return RuleRef(index=self.index, rule_id=self.rule_id, meta=self.meta, is_choice=self.is_choice)


@dataclass(frozen=True)
class ProgramInputs:
    """The atoms a case assigns: the pack's yes/no facts and computed booleans, and its enums."""

    booleans: tuple[str, ...]
    enums: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, pack: RulePack) -> ProgramInputs:
        booleans = [n for n, f in pack.facts.items() if f.type is FactType.BOOL]
        booleans += [c.output for c in pack.computations if c.type is FactType.BOOL]
        enums = {n: tuple(f.values or []) for n, f in pack.facts.items() if f.type is FactType.ENUM}
        return cls(booleans=tuple(booleans), enums=enums)


@dataclass
class CompiledProgram:
    """A pack's ASP compiled once; grounded once (on first solve) and shared by every case.

    Public attributes other modules read: ``text`` (the rules plus the reification rules), ``rules``,
    ``by_head``, ``defined``, ``used``, ``rule_meta`` (rule id → annotation), ``inputs``.
    """

    text: str  # the original rules plus the reification rules
    rules: list[CompiledRule]
    by_head: dict[tuple[str, int], list[CompiledRule]]
    defined: set[tuple[str, int]]  # predicates with at least one rule head
    used: dict[tuple[str, int], tuple[str, int]]  # body predicate -> first (file, line) using it
    rule_meta: dict[str, RuleMeta] = field(default_factory=dict)  # rule id -> its annotation
    inputs: ProgramInputs = field(default_factory=lambda: ProgramInputs((), {}))
    source: str = ""  # the pack's rules only, as written (no reification): for programs built on top
    _grounding: GroundedPack | None = field(default=None, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def rules_for(self, name: str, arity: int) -> list[CompiledRule]:
        return self.by_head.get((name, arity), [])

    def grounding(self) -> GroundedPack:
        """The one grounding of this program (inputs as externals), made on first use."""
        g = self._grounding
        if g is None:
            with self._lock:
                g = self._grounding
                if g is None:
                    g = self._grounding = GroundedPack(self, self.inputs.booleans, self.inputs.enums)
        return g

    def solve(self, assignment: Assignment) -> Solution:
        """Solve one case on the shared grounding (see ``GroundedPack.solve``)."""
        return self.grounding().solve(assignment)


# --------------------------------------------------------------------------------------- compiling
def _annotations(path: str, text: str) -> dict[int, RuleMeta]:
    """Annotation line number -> metadata (attached later to the next rule)."""
    import yaml  # here, not at the top: a cold `analyze` served from the pack cache reads no YAML (issue 33)

    out: dict[int, RuleMeta] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.lstrip().startswith("%@"):
            continue
        m = _ANNOTATION.match(line)
        if not m:
            raise PackError(path, i, "malformed rule annotation: expected %@ {id: ..., label: ..., sources: [...]}")
        try:
            data = yaml_load.safe_load(m.group(1))  # libyaml: ~5x faster on a pack's annotations
        except (yaml.YAMLError, ValueError) as exc:  # ValueError: an impossible date (2019-02-30)
            raise PackError(path, i, f"malformed rule annotation: {exc}") from exc
        if not isinstance(data, dict) or "id" not in data or "label" not in data:
            raise PackError(path, i, "rule annotation needs at least an id and a label")
        valid_from = data.get("from")
        valid_to = data.get("to")
        for key, value in (("from", valid_from), ("to", valid_to)):
            if value is not None and not isinstance(value, date):
                raise PackError(path, i, f"annotation '{key}' must be a date YYYY-MM-DD, got {value!r}")
        out[i] = RuleMeta(
            id=str(data["id"]),
            label=str(data["label"]),
            sources=[str(s) for s in data.get("sources", [])],
            valid_from=valid_from,
            valid_to=valid_to,
            file=path,
            line=i,
        )
    return out


def _parse(path: str, text: str) -> list[Any]:
    messages: list[str] = []
    stmts: list[Any] = []

    def logger(_code: clingo.MessageCode, msg: str) -> None:
        messages.append(msg)

    try:
        ast.parse_string(text, stmts.append, logger=logger)
    except RuntimeError as exc:
        for msg in messages or [str(exc)]:
            m = _CLINGO_MSG.match(msg.strip())
            if m:
                raise PackError(
                    path, int(m.group(1)), f"ASP syntax error (col {m.group(2)}): " + m.group(3).strip().splitlines()[0]
                ) from exc
        raise PackError(path, None, f"ASP syntax error: {messages or exc}") from exc
    return stmts


def _head_signatures(head: Any) -> list[tuple[str, int]]:
    sigs: list[tuple[str, int]] = []
    if head.ast_type == ast.ASTType.Literal and head.atom.ast_type == ast.ASTType.SymbolicAtom:
        sigs.append(signature(head.atom.symbol))
    elif head.ast_type == ast.ASTType.Aggregate:
        for elem in head.elements:
            lit = elem.literal
            if lit.atom.ast_type == ast.ASTType.SymbolicAtom:
                sigs.append(signature(lit.atom.symbol))
    elif head.ast_type == ast.ASTType.Disjunction:
        for elem in head.elements:
            sigs.append(signature(elem.literal.atom.symbol))
    return sigs


def _body_predicates(body: Iterable[Any]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []

    def walk(n: Any) -> None:
        if isinstance(n, ast.AST):
            if n.ast_type == ast.ASTType.SymbolicAtom:
                try:
                    out.append(signature(n.symbol))
                except Unevaluable:  # pools/intervals: not a predicate use
                    pass
                return
            for key in n.child_keys:
                walk(getattr(n, key))
        elif type(n).__name__ == "ASTSequence" or isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    for lit in body:
        walk(lit)
    return out


def head_terms(head: Any) -> list[Any]:
    """The atoms' terms a rule's head derives: one for a literal, one per element of a choice, none otherwise."""
    if head.ast_type == ast.ASTType.Literal and head.atom.ast_type == ast.ASTType.SymbolicAtom:
        return [head.atom.symbol]
    if head.ast_type == ast.ASTType.Aggregate:
        return [e.literal.atom.symbol for e in head.elements]
    return []


def rule_statements(path: str, text: str) -> list[Any]:
    """The rules of one ASP file (clingo AST), in order (PackError on a syntax error)."""
    return [stmt for stmt in _parse(path, text) if stmt.ast_type == ast.ASTType.Rule]


def by_head_of(rules: list[CompiledRule]) -> dict[tuple[str, int], list[CompiledRule]]:
    """Head predicate → the rules deriving it, in the rules' order."""
    by_head: dict[tuple[str, int], list[CompiledRule]] = {}
    for r in rules:
        for sig in r.head_signatures:
            by_head.setdefault(sig, []).append(r)
    return by_head


def compile_pack(pack: RulePack) -> CompiledProgram:
    """Parse every ASP file, attach annotations, add the reification rules. Raises PackError.

    The pack is only read: the rule metadata found in the annotations is returned in ``rule_meta``.
    """
    rules: list[CompiledRule] = []
    parts: list[str] = []
    used: dict[tuple[str, int], tuple[str, int]] = {}
    for rel, text in pack.asp_sources.items():
        path = str(pack.root / rel)
        notes = _annotations(path, text)
        pending = sorted(notes)
        parts.append(text)
        for stmt in rule_statements(path, text):
            line = stmt.location.begin.line
            meta = None
            # the closest annotation above this rule, not already used
            candidates = [n for n in pending if n < line]
            if candidates:
                meta = notes[candidates[-1]]
                for n in candidates:
                    pending.remove(n)
            is_constraint = (
                stmt.head.ast_type == ast.ASTType.Aggregate
                and not stmt.head.elements
                or (
                    stmt.head.ast_type == ast.ASTType.Literal and stmt.head.atom.ast_type == ast.ASTType.BooleanConstant
                )
            )
            rule = CompiledRule(
                index=len(rules),
                file=path,
                line=line,
                text=str(stmt),
                head=stmt.head,
                body=list(stmt.body),
                variables=variables(stmt),
                meta=meta,
                is_choice=stmt.head.ast_type == ast.ASTType.Aggregate and bool(stmt.head.elements),
                is_constraint=is_constraint,
                head_signatures=_head_signatures(stmt.head),
            )
            rule.lits = [_digest(lit) for lit in stmt.body]
            for term in head_terms(stmt.head):
                ground = None
                if not variables(term):
                    try:
                        ground = evaluate(term, {})
                    except Unevaluable:
                        pass
                rule.heads.append((term, ground))
                rule.head_texts.append(None if ground is None else str(ground))
            rules.append(rule)
            body_sigs = _body_predicates(stmt.body)
            rule.body_predicates = {name for name, _ in body_sigs}
            for sig in body_sigs:
                used.setdefault(sig, (path, line))
            if rule.body and not is_constraint:
                vars_ = ",".join(rule.variables)
                tuple_ = f"({vars_},)" if len(rule.variables) == 1 else f"({vars_})"
                body_text = str(stmt).split(":-", 1)[1].rstrip(".")
                parts.append(f"{APP}({rule.index},{tuple_}) :- {body_text}.")
            elif not is_constraint:
                parts.append(f"{APP}({rule.index},()).")
        if pending:
            raise PackError(path, pending[0], "rule annotation is not followed by a rule")
    by_head = by_head_of(rules)
    rule_meta = {r.meta.id: r.meta for r in rules if r.meta}
    return CompiledProgram(
        text="\n".join(parts),
        rules=rules,
        by_head=by_head,
        defined=set(by_head),
        used=used,
        rule_meta=rule_meta,
        inputs=ProgramInputs.of(pack),
        source="\n".join(pack.asp_sources.values()),
    )


# --------------------------------------------------------------------------------------- solving
@dataclass(frozen=True)
class Solution:
    """What the solver says about one case, as plain data (atoms as text, e.g. ``kind(value)``).

    ``reference``: one answer set (unknown facts assumed false where possible), the model proofs read;
    ``brave``/``cautious``: true in some/every answer set (three-valued outcomes); ``applications``: rule
    index → the variable bindings (as text, in the rule's variable order) of its instances that fired in
    the reference model. Reification atoms are never in the atom sets.
    """

    satisfiable: bool
    reference: frozenset[str] = frozenset()
    brave: frozenset[str] = frozenset()
    cautious: frozenset[str] = frozenset()
    applications: Mapping[int, tuple[tuple[str, ...], ...]] = field(default_factory=dict)

    def status(self, atom: str) -> bool | None:
        """Three-valued truth of an atom across the answer sets: True (every), False (none), None (some)."""
        if atom in self.cautious:
            return True
        if atom not in self.brave:
            return False
        return None


@dataclass(frozen=True)
class GroundProgram:
    """The ground program clingo produced for a pack, as integers (an aspif-like view), for evaluators
    that run many worlds on the shared grounding instead of grounding again.

    ``rules``: (choice, head literals, body literals); ``weight_rules``: (choice, head, lower bound,
    (literal, weight) pairs); ``atoms``: atom text → program literal; ``facts``: literals true in every
    model; ``externals``: input atom text → literal.
    """

    rules: tuple[tuple[bool, tuple[int, ...], tuple[int, ...]], ...]
    weight_rules: tuple[tuple[bool, tuple[int, ...], int, tuple[tuple[int, int], ...]], ...]
    atoms: Mapping[str, int]
    facts: frozenset[int]
    externals: Mapping[str, int]


class _Recorder(clingo.Observer):
    """Keeps the ground rules while clingo grounds (the only moment they are visible)."""

    def __init__(self) -> None:
        self.rules: list[tuple[bool, tuple[int, ...], tuple[int, ...]]] = []
        self.weight_rules: list[tuple[bool, tuple[int, ...], int, tuple[tuple[int, int], ...]]] = []

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        self.rules.append((choice, tuple(head), tuple(body)))

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int, body: Sequence[tuple[int, int]]) -> None:
        self.weight_rules.append((choice, tuple(head), lower_bound, tuple((lit, w) for lit, w in body)))


def _least_inputs(ctl: clingo.Control, unknown: Sequence[clingo.Symbol]) -> list[tuple[clingo.Symbol, bool]]:
    """The unknown inputs fixed one by one, in text order, to False where the program allows it, else True.

    Why: when not every unknown can be false at once (an unknown enum must take one value), "any model" is
    whichever the solver meets first, and that depends on what this shared Control learnt from earlier
    cases: the proof of an unknown outcome then changed with the process's history (a run resumed in a new
    process ended with another proof, issue 34). This choice depends on the case alone."""
    fixed: list[tuple[clingo.Symbol, bool]] = []
    for atom in sorted(unknown, key=str):
        trial = [*fixed, (atom, False)]
        fixed = trial if ctl.solve(assumptions=trial).satisfiable else [*fixed, (atom, True)]
    return fixed


class GroundedPack:
    """The pack grounded ONCE with every input atom declared `#external` (multi-shot solving).

    A case only assigns the externals: True/False for known facts, *free* for unknown ones, so clingo
    explores both values of an unknown fact without re-grounding. Enums get an exactly-one constraint.
    One Control is not re-entrant: calls are serialised by a lock (the analysis is a few ms).
    Made by ``CompiledProgram.grounding()``, which keeps the one instance.
    """

    def __init__(self, program: CompiledProgram, booleans: Sequence[str], enums: Mapping[str, Sequence[str]]) -> None:
        symbols: list[clingo.Symbol] = [clingo.Function(b) for b in booleans]
        parts = [program.text]
        parts += [f"#external {b}." for b in booleans]
        for name, values in enums.items():
            for v in values:
                parts.append(f"#external {name}({v}).")
                symbols.append(clingo.Function(name, [clingo.Function(v)]))
            parts.append(f":- not 1 {{ {'; '.join(f'{name}({v})' for v in values)} }} 1.")
        self._symbols: dict[str, clingo.Symbol] = {str(s): s for s in symbols}
        self.inputs: tuple[str, ...] = tuple(self._symbols)
        self._recorder = _Recorder()
        self.ctl = clingo.Control(["--warn=none"])
        self.ctl.register_observer(self._recorder)
        try:
            self.ctl.add("base", [], "\n".join(parts))
            self.ctl.ground([("base", [])])
        except RuntimeError as exc:
            raise SolveError(f"grounding failed: {exc}") from exc
        self.lock = threading.Lock()
        self._ground: GroundProgram | None = None
        # Every atom a model can hold is known once grounded: its text (and, for a reification atom, the
        # rule index and binding) is computed here once, not in every case (str() on a symbol is a C call).
        self._texts: dict[clingo.Symbol, str] = {}
        self._apps: dict[clingo.Symbol, tuple[int, tuple[str, ...]]] = {}
        for sa in self.ctl.symbolic_atoms:
            sym = sa.symbol
            if sym.name == APP:
                self._apps[sym] = (sym.arguments[0].number, tuple(str(a) for a in sym.arguments[1].arguments))
            else:
                self._texts[sym] = str(sym)

    def ground_program(self) -> GroundProgram:
        """The ground rules of the shared grounding, as integers (computed once)."""
        if self._ground is None:
            atoms: dict[str, int] = {}
            facts: set[int] = set()
            for sa in self.ctl.symbolic_atoms:
                if sa.symbol.name == APP:
                    continue
                atoms[str(sa.symbol)] = sa.literal
                if sa.is_fact:
                    facts.add(sa.literal)
            self._ground = GroundProgram(
                rules=tuple(self._recorder.rules),
                weight_rules=tuple(self._recorder.weight_rules),
                atoms=atoms,
                facts=frozenset(facts),
                externals={t: atoms[t] for t in self.inputs if t in atoms},
            )
        return self._ground

    def solve(self, assignment: Assignment) -> Solution:
        """`assignment`: input atom text -> True | False | None (unknown: free). Absent inputs are False."""
        with self.lock:
            ctl = self.ctl
            unknown: list[clingo.Symbol] = []
            for text, atom in self._symbols.items():
                value = assignment.get(text, False)
                if value is None:
                    ctl.assign_external(atom, None)
                    unknown.append(atom)
                else:
                    ctl.assign_external(atom, bool(value))
            reference: Sequence[clingo.Symbol] | None = None

            def keep(model: clingo.Model) -> None:
                nonlocal reference
                reference = model.symbols(atoms=True)

            conf: Any = ctl.configuration.solve
            conf.enum_mode = "auto"
            conf.models = 1
            ctl.solve(assumptions=[(a, False) for a in unknown], on_model=keep)
            if reference is None and unknown:
                ctl.solve(assumptions=_least_inputs(ctl, unknown), on_model=keep)
            if reference is None:
                ctl.solve(on_model=keep)
            if reference is None:
                return Solution(satisfiable=False)
            consequences: dict[str, frozenset[str]] = {}
            for mode in ("brave", "cautious"):
                last: Sequence[clingo.Symbol] = []

                def on_model(model: clingo.Model) -> None:
                    nonlocal last
                    last = model.symbols(atoms=True)

                conf.enum_mode = mode
                conf.models = 0
                ctl.solve(on_model=on_model)
                consequences[mode] = frozenset(self._texts[x] for x in last if x in self._texts)
            conf.enum_mode = "auto"
        apps: dict[int, list[tuple[str, ...]]] = {}
        atoms: set[str] = set()
        for sym in reference:
            atom_text = self._texts.get(sym)
            if atom_text is not None:
                atoms.add(atom_text)
            elif sym in self._apps:
                index, binding = self._apps[sym]
                apps.setdefault(index, []).append(binding)
        return Solution(
            satisfiable=True,
            reference=frozenset(atoms),
            brave=consequences["brave"],
            cautious=consequences["cautious"],
            applications={i: tuple(b) for i, b in apps.items()},
        )
