"""Parser and printer for TweetyProject's `.fologic` syntax (see shared/tweety/API.md).

Faithful to Tweety's `FolParser`: sort declarations first (every line before the first `type(...)`
line is read as one), then predicate declarations, then one formula per line; `forall X: (F)` with the
body in parentheses; no comments; names `[a-zA-Z][a-zA-Z0-9]*` for sorts and predicates, constants may
hold `_`; an uppercase-initial term is a variable. Errors carry `line:column` (1-based).

Two sort disciplines:
- ``strict=True``: Tweety's exact-sort check (a term must have exactly the argument's sort).
- default: a term of another sort is collected as a *sort use*; once the whole file is read, the sort
  hierarchy is inferred from its universal implications and each such use is accepted when its sort is
  a sub-sort of the expected one (recorded as a repair) or rejected at its line:column.

Extensions, each because a belief set built by code must print: an empty sort `S = {}` is accepted
(Tweety rejects it), and chained `a => b => c` is an error (Tweety silently misparses it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.fol import model as fm
from lexlogic.logic.fol.printer import print_formula, show_predicate

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
CONST_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


class FolSyntaxError(LexlogicError, ValueError):
    """A parse or declaration error at a position of the source."""

    def __init__(
        self, message: str, line: int | None = None, column: int | None = None, source: str = "<string>"
    ) -> None:
        self.message, self.line, self.column, self.source = message, line, column, source
        super().__init__(self.located())

    def located(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


# --------------------------------------------------------------------------------------- tokens
@dataclass(slots=True)
class Tok:
    kind: str
    text: str
    col: int  # 1-based


_SYMBOLS = [
    ("<=>", "IFF"),
    ("/==", "NEQ"),
    ("=>", "IMP"),
    ("==", "EQ"),
    ("&&", "AND"),
    ("||", "OR"),
    ("^^", "XOR"),
    ("!", "NOT"),
    ("(", "LP"),
    (")", "RP"),
    (",", "COMMA"),
    (":", "COLON"),
    ("+", "TOP"),
    ("-", "BOT"),
]


def _tokenize(text: str, line: int, source: str) -> list[Tok]:
    toks: list[Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t":
            i += 1
            continue
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            j = i
            while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
                j += 1
            if j < n and not text[j].isascii():
                raise FolSyntaxError(
                    f"illegal character {text[j]!r} in name (accents and non-ASCII letters are not allowed)",
                    line,
                    j + 1,
                    source,
                )
            toks.append(Tok("IDENT", text[i:j], i + 1))
            i = j
            continue
        for sym, kind in _SYMBOLS:
            if text.startswith(sym, i):
                toks.append(Tok(kind, sym, i + 1))
                i += len(sym)
                break
        else:
            what = (
                "comments are not part of the syntax"
                if ch == "%"
                else "illegal character (accents and non-ASCII letters are not allowed)"
                if not ch.isascii()
                else "unexpected character"
            )
            raise FolSyntaxError(f"{what}: {ch!r}", line, i + 1, source)
    toks.append(Tok("END", "", n + 1))
    return toks


# --------------------------------------------------------------------------------------- parser
@dataclass
class SortUse:
    """A term used where another sort is expected (resolved against the hierarchy later)."""

    term: str
    is_variable: bool
    actual: str
    expected: str
    predicate: str
    index: int
    line: int
    column: int
    formula_index: int


class _FormulaParser:
    def __init__(self, toks: list[Tok], sig: fm.Signature, line: int, source: str) -> None:
        self.toks, self.sig, self.line, self.source, self.i = toks, sig, line, source, 0
        self.positions: dict[int, tuple[fm.Atom, list[int]]] = {}  # id(atom) -> (atom, arg columns)
        self.eq_positions: dict[int, tuple[object, list[int]]] = {}

    def err(self, msg: str, tok: Tok | None = None) -> FolSyntaxError:
        tok = tok or self.toks[self.i]
        return FolSyntaxError(msg, self.line, tok.col, self.source)

    def peek(self, k: int = 0) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self, kind: str, what: str) -> Tok:
        tok = self.peek()
        if tok.kind != kind:
            found = repr(tok.text) if tok.text else "end of line"
            raise self.err(f"expected {what}, found {found}")
        self.i += 1
        return tok

    def parse(self) -> fm.Formula:
        f = self.iff()
        if self.peek().kind != "END":
            raise self.err(f"unexpected {self.peek().text!r} after a complete formula")
        return f

    def iff(self) -> fm.Formula:
        left = self.imp()
        if self.peek().kind == "IFF":
            self.i += 1
            right = self.imp()
            if self.peek().kind in ("IFF", "IMP"):
                raise self.err("chained '<=>'/'=>' needs parentheses")
            return fm.Iff(left, right)
        return left

    def imp(self) -> fm.Formula:
        left = self.nary("XOR", fm.Xor, self.disj)
        if self.peek().kind == "IMP":
            self.i += 1
            right = self.nary("XOR", fm.Xor, self.disj)
            if self.peek().kind == "IMP":
                raise self.err("chained '=>' needs parentheses: write (a => b) => c or a => (b => c)")
            return fm.Implies(left, right)
        return left

    def nary(self, kind: str, cls: type[fm.And | fm.Or | fm.Xor], sub: Callable[[], fm.Formula]) -> fm.Formula:
        parts = [sub()]
        while self.peek().kind == kind:
            self.i += 1
            parts.append(sub())
        return parts[0] if len(parts) == 1 else cls(tuple(parts))

    def disj(self) -> fm.Formula:
        return self.nary("OR", fm.Or, self.conj)

    def conj(self) -> fm.Formula:
        return self.nary("AND", fm.And, self.unary)

    def unary(self) -> fm.Formula:
        tok = self.peek()
        if tok.kind == "NOT":
            self.i += 1
            return fm.Not(self.unary())
        if tok.kind == "LP":
            self.i += 1
            if self.peek().kind == "RP":
                raise self.err("empty parentheses")
            f = self.iff()
            self.take("RP", "')'")
            return f
        if tok.kind == "TOP":
            self.i += 1
            return fm.Top()
        if tok.kind == "BOT":
            self.i += 1
            return fm.Bottom()
        if tok.kind == "IDENT" and tok.text in ("forall", "exists"):
            return self.quantifier()
        if tok.kind == "IDENT":
            return self.atomic()
        found = repr(tok.text) if tok.text else "end of line"
        raise self.err(f"expected a formula, found {found}")

    def quantifier(self) -> fm.Formula:
        kw = self.take("IDENT", "quantifier")
        vtok = self.peek()
        if vtok.kind != "IDENT" or not vtok.text[0].isupper():
            raise self.err("a quantifier needs one variable (uppercase first letter)", vtok)
        self.i += 1
        if self.peek().kind == "COMMA":
            raise self.err(f"one variable per quantifier: nest them ('{kw.text} X: ({kw.text} Y: (...))')")
        self.take("COLON", "':' after the quantified variable")
        if self.peek().kind != "LP":
            if (
                self.peek().kind == "IDENT"
                and self.peek(1).kind == "LP"
                and self.sig.sorts.get(self.peek().text) is not None
            ):
                raise self.err("typed quantifiers ('forall X:Sort (...)') are not part of the syntax")
            raise self.err("the body of a quantifier must be in parentheses: 'forall X: (F)'")
        self.i += 1
        body = self.iff()
        self.take("RP", "')' closing the quantifier's body")
        if vtok.text not in fm.free_vars(body):
            raise FolSyntaxError(
                f"Variable(s) '{vtok.text}' not found in quantification.", self.line, vtok.col, self.source
            )
        var = fm.Var(vtok.text)
        return fm.Forall(var, body) if kw.text == "forall" else fm.Exists(var, body)

    def term(self) -> tuple[object, int]:
        tok = self.take("IDENT", "a term (constant or variable)")
        name = tok.text
        if name[0].isdigit():
            raise self.err(f"'{name}' could not be parsed: names cannot start with a digit", tok)
        if name[0].isupper():
            return fm.Var(name), tok.col
        if name[0] == "_":
            raise self.err(f"'{name}' could not be parsed", tok)
        if self.sig.sort_of(name) is None:
            raise self.err(f"Constant '{name}' has not been declared.", tok)
        return fm.Const(name), tok.col

    def atomic(self) -> fm.Formula:
        tok = self.peek()
        nxt = self.peek(1)
        if nxt.kind in ("EQ", "NEQ"):
            left, lcol = self.term()
            op = self.peek()
            self.i += 1
            if not self.sig.equality:
                raise self.err(
                    f"Equality/Inequality predicate {op.text} is not part of this parser's FolSignature.", op
                )
            right, rcol = self.term()
            node = fm.Equals(left, right) if op.kind == "EQ" else fm.NotEquals(left, right)  # type: ignore[arg-type]
            return node
        self.i += 1
        name = tok.text
        if name not in self.sig.predicates:
            if nxt.kind != "LP" and (name[0].isupper() or self.sig.sort_of(name) is not None):
                raise self.err(f"'{name}' is a term, not a formula (missing predicate?)", tok)
            raise self.err(f"Predicate '{name}' has not been declared.", tok)
        arg_sorts = self.sig.predicates[name]
        args: list[object] = []
        cols: list[int] = []
        if self.peek().kind == "LP":
            self.i += 1
            if self.peek().kind != "RP":
                while True:
                    if self.peek().kind == "IDENT" and self.peek(1).kind == "LP":
                        raise self.err("function terms are not supported (no functor declarations)")
                    t, c = self.term()
                    args.append(t)
                    cols.append(c)
                    if self.peek().kind == "COMMA":
                        self.i += 1
                        continue
                    break
            self.take("RP", "',' or ')' in the argument list")
        if len(args) != len(arg_sorts):
            raise self.err(
                f"Predicate '{show_predicate(name, arg_sorts)}' has arity '{len(arg_sorts)}' "
                f"(got {len(args)} argument(s)).",
                tok,
            )
        atom = fm.Atom(name, tuple(args))  # type: ignore[arg-type]
        self.positions[id(atom)] = (atom, cols)
        return atom


# ----------------------------------------------------------------------------- typing of variables
def _first_sort(f: fm.Formula, name: str, sig: fm.Signature) -> str | None:
    """Sort of the first predicate-argument occurrence of free variable `name` in f (text order)."""
    if isinstance(f, fm.Atom):
        sorts = sig.predicates.get(f.pred, ())
        for t, sort in zip(f.args, sorts):
            if isinstance(t, fm.Var) and t.name == name:
                return sort
        return None
    if isinstance(f, (fm.Forall, fm.Exists)):
        return None if f.var.name == name else _first_sort(f.body, name, sig)
    for c in fm.children(f):
        found = _first_sort(c, name, sig)
        if found is not None:
            return found
    return None


class _Typer:
    """Rebuilds a parsed formula with every variable carrying its sort, and collects sort uses."""

    def __init__(
        self,
        sig: fm.Signature,
        positions: dict[int, tuple[fm.Atom, list[int]]],
        line: int,
        formula_index: int,
        strict: bool,
        source: str,
    ) -> None:
        self.sig, self.positions, self.line, self.idx = sig, positions, line, formula_index
        self.strict, self.source = strict, source
        self.uses: list[SortUse] = []

    def run(self, f: fm.Formula, env: dict[str, str]) -> fm.Formula:
        if isinstance(f, fm.Atom):
            sorts = self.sig.predicates[f.pred]
            cols = self.positions.get(id(f), (f, [0] * len(f.args)))[1]
            new_args: list[object] = []
            for k, (t, expected) in enumerate(zip(f.args, sorts)):
                col = cols[k] if k < len(cols) else None
                if isinstance(t, fm.Var):
                    actual = env.get(t.name, expected)
                    new_args.append(fm.Var(t.name, actual))
                    label = "Variable"
                else:
                    actual = self.sig.sort_of(t.name) or fm.ANY
                    new_args.append(t)
                    label = "Term"
                if actual != expected and actual != fm.ANY:
                    if self.strict:
                        msg = (
                            f"Variable '{t.name}' has wrong sort: '{actual}' (its first use), "
                            f"'{expected}' expected by {f.pred}"
                            if isinstance(t, fm.Var)
                            else f"Term '{t.name}' has the wrong sort: '{actual}', '{expected}' expected by {f.pred}"
                        )
                        raise FolSyntaxError(msg, self.line, col, self.source)
                    self.uses.append(
                        SortUse(
                            t.name, isinstance(t, fm.Var), actual, expected, f.pred, k, self.line, col or 0, self.idx
                        )
                    )
                del label
            return fm.Atom(f.pred, tuple(new_args))  # type: ignore[arg-type]
        if isinstance(f, (fm.Equals, fm.NotEquals)):

            def fix(t: fm.Term) -> fm.Term:
                return fm.Var(t.name, env.get(t.name, fm.ANY)) if isinstance(t, fm.Var) else t

            return type(f)(fix(f.left), fix(f.right))
        if isinstance(f, (fm.Forall, fm.Exists)):
            sort = _first_sort(f.body, f.var.name, self.sig) or fm.ANY
            inner = dict(env)
            inner[f.var.name] = sort
            return type(f)(fm.Var(f.var.name, sort), self.run(f.body, inner))
        if isinstance(f, fm.Not):
            return fm.Not(self.run(f.body, env))
        if isinstance(f, (fm.And, fm.Or, fm.Xor)):
            return type(f)(tuple(self.run(p, env) for p in f.parts))
        if isinstance(f, (fm.Implies, fm.Iff)):
            return type(f)(self.run(f.left, env), self.run(f.right, env))
        return f


def _type_formula(
    raw: fm.Formula, p: _FormulaParser, sig: fm.Signature, line: int, index: int, strict: bool, source: str
) -> tuple[fm.Formula, list[SortUse]]:
    env = {}
    for v in fm.free_vars(raw):  # free variables (e.g. an uppercase "constant"): first-use sort
        env[v] = _first_sort(raw, v, sig) or fm.ANY
    typer = _Typer(sig, p.positions, line, index, strict, source)
    return typer.run(raw, env), typer.uses


# ------------------------------------------------------------------------------------ belief set
_SORT_LINE = re.compile(r"\s*([^=\s]*)\s*=\s*\{(.*)\}\s*\Z")
_TYPE_LINE = re.compile(r"\s*type\s*\(")


@dataclass
class ParseReport:
    belief_set: fm.BeliefSet
    sort_uses: list[SortUse]
    warnings: list[str]


def parse_formula(
    text: str, signature: fm.Signature, *, strict: bool = False, line: int = 1, source: str = "<formula>"
) -> tuple[fm.Formula, list[SortUse]]:
    """Parse one formula against a signature; returns it with its (unresolved) sort uses."""
    p = _FormulaParser(_tokenize(text, line, source), signature, line, source)
    raw = p.parse()
    return _type_formula(raw, p, signature, line, 0, strict, source)


def parse_report(text: str, *, strict: bool = False, source: str = "<string>") -> ParseReport:
    """Parse a whole `.fologic` text; sort uses are returned unresolved (see `parse_belief_set`)."""
    sig = fm.Signature(equality=True)
    bs = fm.BeliefSet(signature=sig)
    uses: list[SortUse] = []
    warnings: list[str] = []
    section = 0
    for lineno, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line:
            continue
        lead = len(raw_line) - len(raw_line.lstrip())
        if _TYPE_LINE.match(line):
            section = 1
            _parse_type(line, sig, lineno, lead, source)
            continue
        if section >= 1:
            section = 2
            if _SORT_LINE.match(raw_line):
                raise FolSyntaxError(
                    "a sort declaration must come before the first type(...) line", lineno, lead + 1, source
                )
            p = _FormulaParser(_tokenize(raw_line, lineno, source), sig, lineno, source)
            raw = p.parse()
            f, fuses = _type_formula(raw, p, sig, lineno, len(bs.formulas), strict, source)
            for v in sorted(fm.free_vars(f)):
                warnings.append(
                    f"{source}:{lineno}: '{v}' is a free variable (uppercase first letter); "
                    f"a constant must start with a lowercase letter"
                )
            bs.add(f, lineno)
            uses.extend(fuses)
            continue
        _parse_sort(raw_line, sig, lineno, source)
    return ParseReport(bs, uses, warnings)


def _parse_sort(raw_line: str, sig: fm.Signature, lineno: int, source: str) -> None:
    m = _SORT_LINE.match(raw_line)
    lead = len(raw_line) - len(raw_line.lstrip()) + 1
    if not m:
        raise FolSyntaxError(
            "expected a sort declaration 'Sort = {c1, c2}' (every line before the first "
            "type(...) line is a sort declaration; no comments)",
            lineno,
            lead,
            source,
        )
    name = m.group(1)
    if not NAME_RE.match(name):
        raise FolSyntaxError(
            f"Illegal characters in sort definition '{name}'; declaration must conform to [a-zA-Z][a-zA-Z0-9]*",
            lineno,
            m.start(1) + 1,
            source,
        )
    if name in sig.sorts:
        raise FolSyntaxError(f"Multiple declarations of sort '{name}'.", lineno, m.start(1) + 1, source)
    consts: list[str] = []
    body_start = m.start(2)
    body = m.group(2)
    if "{" in body or "}" in body:
        raise FolSyntaxError("Multiple '{' or '}' in sort declaration.", lineno, body_start + 1, source)
    offset = 0
    if body.strip():
        for piece in body.split(","):
            c = piece.strip()
            col = body_start + offset + (len(piece) - len(piece.lstrip())) + 1
            offset += len(piece) + 1
            if not CONST_RE.match(c):
                raise FolSyntaxError(
                    f"Illegal characters in constant definition '{c}'; declaration must "
                    f"conform to [a-zA-Z][a-zA-Z0-9_]*",
                    lineno,
                    col,
                    source,
                )
            other = sig.sort_of(c) if c not in consts else name
            if other is not None:
                raise FolSyntaxError(
                    f"Constant '{c}' has already been defined to be of sort '{other}'.", lineno, col, source
                )
            consts.append(c)
    sig.sorts[name] = consts


_TYPE_FULL = re.compile(r"\s*type\s*\(\s*([^()\s]*)\s*(?:\((.*)\))?\s*\)\s*\Z")


def _parse_type(line: str, sig: fm.Signature, lineno: int, lead: int, source: str) -> None:
    m = _TYPE_FULL.match(line)
    if not m:
        raise FolSyntaxError(
            "malformed predicate declaration: expected type(Name(Sort1,Sort2)) or type(Name)", lineno, lead + 1, source
        )
    name = m.group(1)
    col = lead + m.start(1) + 1
    if "=" in name or (m.group(2) is not None and "=" in line[: line.find("(", 5)]):
        raise FolSyntaxError("functor declarations are not supported", lineno, col, source)
    if not NAME_RE.match(name):
        raise FolSyntaxError(
            f"Illegal characters in predicate definition '{name}'; declaration must conform to [a-zA-Z][a-zA-Z0-9]*",
            lineno,
            col,
            source,
        )
    if name in sig.predicates:
        raise FolSyntaxError(f"Multiple declarations of predicate '{name}'.", lineno, col, source)
    sorts: list[str] = []
    if m.group(2) is not None and m.group(2).strip():
        start = lead + m.start(2)
        offset = 0
        for piece in m.group(2).split(","):
            s = piece.strip()
            scol = start + offset + (len(piece) - len(piece.lstrip())) + 1
            offset += len(piece) + 1
            if s not in sig.sorts:
                raise FolSyntaxError(f"Sort '{s}' has not been declared before.", lineno, scol, source)
            sorts.append(s)
    sig.predicates[name] = tuple(sorts)


def parse_belief_set(text: str, *, strict: bool = False, source: str = "<string>") -> fm.BeliefSet:
    """Parse, infer the sort hierarchy from the universal implications, resolve sort uses.

    A sort use whose sort is a sub-sort of the expected one is accepted and recorded as a repair;
    otherwise a FolSyntaxError at the use's line:column names the missing link.
    """
    from lexlogic.logic.fol.hierarchy import SortHierarchy
    from lexlogic.logic.fol.repair import Repair, RepairKind

    report = parse_report(text, strict=strict, source=source)
    bs = report.belief_set
    hierarchy = SortHierarchy.from_belief_set(bs)
    for use in report.sort_uses:
        path = hierarchy.path(use.actual, use.expected)
        if path is None:
            what = "Variable" if use.is_variable else "Constant"
            raise FolSyntaxError(
                f"{what} '{use.term}' of sort '{use.actual}' used where {use.predicate} expects "
                f"'{use.expected}' (argument {use.index + 1}): no inferred link {use.actual} ⊑ "
                f"{use.expected} (known super-sorts of {use.actual}: "
                f"{sorted(hierarchy.ancestors(use.actual)) or 'none'})",
                use.line,
                use.column,
                source,
            )
        if not use.is_variable:
            bs.repairs.append(
                Repair(
                    kind=RepairKind.SUBSORT_ACCEPTED,
                    constant=use.term,
                    constant_sort=use.actual,
                    expected_sort=use.expected,
                    predicate=use.predicate,
                    argument_index=use.index,
                    fact=print_formula(bs.formulas[use.formula_index]),
                    reason=f"'{use.term}' is a {use.actual}, and {' ⊑ '.join(path)} (inferred)",
                    justified_by=hierarchy.justifications(path),
                    line=use.line,
                )
            )
    return bs


def parse_file(path: str, *, strict: bool = False) -> fm.BeliefSet:
    with open(path, encoding="utf-8") as fh:
        return parse_belief_set(fh.read(), strict=strict, source=str(path))
