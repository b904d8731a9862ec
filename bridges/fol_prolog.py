"""SWI-Prolog (pyswip) for the Horn fragment of sorted FOL, with proof trees.

Each belief set is written once as a Prolog module (tabled predicates, so recursive rules such as
symmetry terminate; sort guards `'$in'(Sort, X)` after each body so rules are range-restricted and
sub-sorts are honoured) and cached by content. A query Q is answered by refutation, exactly like a
prover: the clauses of ¬Q (Skolemised) are added as hypotheses, and Q is entailed iff `'$qgoal'` or
`'$false'` (a violated negative clause) succeeds. Ground atomic queries need no hypothesis and stay on
warm tables.

pyswip fails under concurrent threads (NestedQueryError): every call goes through ONE worker thread.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from lexlogic.logic.fol.answers import ConsistencyAnswer, EntailmentAnswer, FolReasonerError
from lexlogic.logic.fol.clauses import Clause, Clausifier, HornProgram, NotClausal, horn_program
from lexlogic.logic.fol.hierarchy import SortHierarchy
from lexlogic.logic.fol.model import ANY, Atom, BeliefSet, Formula, Not, Var
from lexlogic.logic.fol.printer import fingerprint, print_formula
from lexlogic.logic.fol.repair import Repair
from lexlogic.logic.proof import NodeKind, ProofNode

T = TypeVar("T")


# ------------------------------------------------------------------------------- single worker
class _PrologWorker:
    def __init__(self) -> None:
        self._q: queue.Queue[tuple[Callable[[], Any], Future[Any]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.prolog: Any = None

    def submit(self, fn: Callable[[], T]) -> T:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lexlogic-prolog", daemon=True)
                self._thread.start()
        fut: Future[T] = Future()
        self._q.put((fn, fut))
        return fut.result()

    def _run(self) -> None:
        try:
            from pyswip import Prolog

            self.prolog = Prolog()
            init_error = None
        except Exception as exc:  # pragma: no cover - depends on the machine
            init_error = exc
        while True:
            fn, fut = self._q.get()
            if init_error is not None:
                fut.set_exception(FolReasonerError(f"SWI-Prolog (pyswip) is not usable: {init_error}"))
                continue
            try:
                fut.set_result(fn())
            except BaseException as exc:
                fut.set_exception(exc)


_WORKER = _PrologWorker()


def _q(name: str) -> str:
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _term(t: object) -> str:
    return t.name if isinstance(t, Var) else _q(t.name)  # type: ignore[attr-defined]


def _atom(a: Atom) -> str:
    return _q(a.pred) + (f"({','.join(_term(t) for t in a.args)})" if a.args else "")


def _guards(c: Clause) -> list[str]:
    return [f"'$in'({_q(s)},{n})" if s != ANY else f"'$const'({n})" for n, s in c.vars]


def _body(c: Clause) -> str:
    parts = [_atom(a) for a in c.neg] + _guards(c)
    return ",".join(parts) if parts else "true"


class _Loaded:
    def __init__(self, module: str, program: HornProgram, bs: BeliefSet) -> None:
        self.module, self.program, self.bs = module, program, bs


_CACHE: dict[str, _Loaded] = {}
_QN = iter(range(1, 1 << 62))

_META = r"""
'$prove'(true, _, []) :- !.
'$prove'((A,B), Anc, P) :- !, '$prove'(A, Anc, PA), '$prove'(B, Anc, PB), append(PA, PB, P).
'$prove'('$const'(X), _, []) :- !, '$const'(X).
'$prove'('$in'(S,X), _, [in(S,X)]) :- !, '$in'(S,X).
'$prove'(G, _, [hyp(G)]) :- '$hyp'(G).
'$prove'(G, Anc, [node(G, Id, Ps)]) :- \+ (member(A, Anc), A =@= G), '$rule'(G, Id, Body), '$prove'(Body, [G|Anc], Ps).
'$flat'([], _, []).
'$flat'([P|Ps], D, L) :- '$flat1'(P, D, L1), '$flat'(Ps, D, L2), append(L1, L2, L).
'$flat1'(in(S,X), D, [R]) :- format(atom(R), '~w|in|~q|~q', [D, S, X]).
'$flat1'(hyp(G), D, [R]) :- format(atom(R), '~w|hyp|-|~q', [D, G]).
'$flat1'(node(G, Id, Ps), D, [R|L]) :- format(atom(R), '~w|rule|~w|~q', [D, Id, G]), D1 is D+1, '$flat'(Ps, D1, L).
'$answer'(Proof) :- '$qgoal', !, once('$prove'('$qgoal', [], P)), '$flat'(P, 0, Proof).
'$answer'(Proof) :- '$false', !, once('$prove'('$false', [], P)), '$flat'(P, 0, Proof0), Proof = ['0|refuted|-|-'|Proof0].
"""


def program_text(bs: BeliefSet, module: str) -> tuple[str, HornProgram]:
    """The Prolog module for a Horn belief set (FolReasonerError if not Horn)."""
    try:
        prog = horn_program(bs)
    except NotClausal as exc:
        raise FolReasonerError(f"not in the Horn fragment: {exc}") from exc
    sig = bs.signature
    hierarchy = SortHierarchy.from_belief_set(bs)
    consts = dict(sig.constant_sorts())
    consts.update(prog.skolems)
    preds = dict(sig.predicates)
    lines = [
        f":- module({module}, []).",
        ":- style_check(-discontiguous).",
        ":- style_check(-singleton).",
        ":- dynamic('$hyp'/1).",
        ":- dynamic('$rule'/3).",
        ":- dynamic('$qgoal'/0).",
        ":- dynamic('$false'/0).",
    ]
    heads = {c.pos[0].pred for c in prog.clauses if c.pos and c.neg}
    for p in sorted(heads):
        lines.append(f":- table {_q(p)}/{len(preds[p])}.")
    for c, s in consts.items():
        lines.append(f"'$const'({_q(c)}).")
        for sup in [s, *sorted(hierarchy.ancestors(s) - {s})]:
            lines.append(f"'$in'({_q(sup)},{_q(c)}).")
    lines.append("'$in'(S,X) :- '$hyp'('$in'(S,X)).")
    lines.append("'$const'(X) :- '$hyp'('$const'(X)).")
    for p, sorts in preds.items():
        args = ",".join(f"A{i}" for i in range(len(sorts)))
        head = _q(p) + (f"({args})" if sorts else "")
        lines.append(f"{head} :- '$hyp'({head}).")
    for i, clause in enumerate(prog.clauses):
        head = _atom(clause.pos[0]) if clause.pos else "'$false'"
        body = _body(clause)
        lines.append(f"{head} :- {body}." if body != "true" else f"{head}.")
        lines.append(f"'$rule'({head}, {i}, ({body})).")
    lines.append(_META)
    return "\n".join(lines) + "\n", prog


def _version(bs: BeliefSet) -> tuple[int, ...]:
    return (
        len(bs.formulas),
        sum(len(c) for c in bs.signature.sorts.values()),
        len(bs.signature.predicates),
        len(bs.repairs),
    )


_BY_ID: dict[int, tuple[tuple[int, ...], str, BeliefSet]] = {}


def _load(bs: BeliefSet) -> _Loaded:
    """Load (once per content) and return the module holding this belief set; runs on the worker."""
    cached = _BY_ID.get(id(bs))
    if cached and cached[0] == _version(bs) and cached[2] is bs:
        fp = cached[1]
    else:
        fp = fingerprint(bs)
        _BY_ID[id(bs)] = (_version(bs), fp, bs)
    if fp in _CACHE:
        return _CACHE[fp]
    module = f"lexlogic_kb_{fp}"
    text, prog = program_text(bs, module)
    fd, path = tempfile.mkstemp(suffix=".pl", prefix="lexlogic_fol_")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    try:
        list(_WORKER.prolog.query(f"load_files({_q(path)}, [silent(true)])"))
    finally:
        os.unlink(path)
    loaded = _Loaded(module, prog, bs)
    _CACHE[fp] = loaded
    return loaded


# ------------------------------------------------------------------------------------- queries
def _negated_query_clauses(query: Formula) -> tuple[list[Clause], dict[str, str]]:
    cl = Clausifier()
    cl._sk = iter(range(10**6, 10**7))  # type: ignore[assignment]  # keep query Skolems apart from the KB's
    try:
        clauses = cl.clauses(Not(query), -1)
    except NotClausal as exc:
        raise FolReasonerError(f"query outside the Horn fragment: {exc}") from exc
    for c in clauses:
        if c.pos and (c.neg or c.vars):
            raise FolReasonerError("query outside the Horn fragment: its negation has a rule-shaped clause")
        if len(c.pos) > 1:
            raise FolReasonerError("query outside the Horn fragment: its negation has a disjunction")
    return clauses, {k: v for k, v in cl.skolems.items()}


def _call(goal: str) -> list[dict[str, Any]]:
    return list(_WORKER.prolog.query(goal))


def _rows_to_proof(rows: list[str], loaded: _Loaded, query_text: str) -> ProofNode:
    bs = loaded.bs
    repairs_by_fact: dict[str, list[Repair]] = {}
    for r in bs.repairs:
        repairs_by_fact.setdefault(r.fact, []).append(r)
    hierarchy = SortHierarchy.from_belief_set(bs)
    consts = dict(bs.signature.constant_sorts())
    consts.update(loaded.program.skolems)
    root = ProofNode(atom=query_text, label=query_text, kind=NodeKind.RULE, rule_id="fol:query")
    stack: list[tuple[int, ProofNode]] = [(-1, root)]
    for row in rows:
        depth_s, kind, ident, goal = row.split("|", 3)
        depth = int(depth_s)
        text = goal.replace("'", "")
        if kind == "refuted":
            node = ProofNode(
                atom="-",
                label="contradiction: a negative clause is violated",
                kind=NodeKind.RULE,
                rule_id="fol:contradiction",
            )
            root.children.append(node)
            stack = [(-1, root), (-1, node)]
            continue
        elif kind == "in":
            sort, const = ident.replace("'", ""), text
            own = consts.get(const)
            if own is None or own == sort:
                continue  # declared membership: not worth a node
            chain = hierarchy.path(own, sort) or [own, sort]
            node = ProofNode(
                atom=f"{const} : {sort}",
                label=f"{const} is a {own}, {' ⊑ '.join(chain)}",
                kind=NodeKind.RULE,
                rule_id="fol:sort-hierarchy",
                note="inferred sub-sort: " + "; ".join(hierarchy.justifications(chain)),
            )
        elif kind == "hyp":
            node = ProofNode(atom=text, label=f"{text} (hypothesis of the query)", kind=NodeKind.ASSUMPTION)
        else:
            clause = loaded.program.clauses[int(ident)] if ident.isdigit() else None
            if clause is None:  # the query's own goal clause
                continue
            src = clause.source
            ftext = print_formula(bs.formulas[src])
            line = bs.lines[src] if src < len(bs.lines) else None
            where = f"formula {src + 1}" + (f", line {line}" if line else "")
            if not clause.neg and not clause.vars:
                reps = repairs_by_fact.get(ftext, [])
                if reps:
                    node = ProofNode(
                        atom=text,
                        label=f"{text} (repaired, not a given)",
                        kind=NodeKind.REPAIR,
                        rule_id=f"fol:{src + 1}",
                        note="; ".join(r.reason for r in reps),
                        children=[c for r in reps for c in r.to_proof_node().children],
                    )
                else:
                    node = ProofNode(atom=text, label=text, kind=NodeKind.FACT, rule_id=f"fol:{src + 1}", note=where)
            else:
                node = ProofNode(
                    atom=text, label=f"{text} by {ftext}", kind=NodeKind.RULE, rule_id=f"fol:{src + 1}", note=where
                )
        while stack and stack[-1][0] >= depth:
            stack.pop()
        stack[-1][1].children.append(node)
        stack.append((depth, node))
    return root


def entails(bs: BeliefSet, query: Formula, *, proof: bool = True) -> EntailmentAnswer:
    """Does the (Horn) belief set entail `query`? FolReasonerError outside the Horn fragment."""
    t0 = time.perf_counter()
    qtext = print_formula(query)
    neg, skolems = _negated_query_clauses(query)

    def job() -> EntailmentAnswer:
        loaded = _load(bs)
        m = loaded.module
        hyps: list[str] = []
        goal_bodies: list[str] = []
        hierarchy = None
        for sk, sort in skolems.items():
            hyps.append(f"'$const'({_q(sk)})")
            if sort != ANY:
                hierarchy = hierarchy or SortHierarchy.from_belief_set(bs)
                for sup in [sort, *sorted(hierarchy.ancestors(sort) - {sort})]:
                    hyps.append(f"'$in'({_q(sup)},{_q(sk)})")
        for c in neg:
            if c.pos:
                hyps.append(_atom(c.pos[0]))
            else:
                goal_bodies.append(_body(c))
        asserted: list[str] = []
        kb_inconsistent = bool(_call(f"once({m}:'$false')"))
        try:
            for h in hyps:
                _call(f"assertz({m}:'$hyp'({h}))")
            for i, b in enumerate(goal_bodies):
                cl = f"('$qgoal' :- {b})"
                _call(f"assertz({m}:{cl}), assertz({m}:'$rule'('$qgoal', q{i}, ({b})))")
                asserted.append(b)
            if hyps:
                _call("abolish_all_tables")
            if proof:
                res = _call(f"{m}:'$answer'(P)")
                rows = [str(r) for r in res[0]["P"]] if res else None
            else:
                res = _call(f"once(({m}:'$qgoal' ; {m}:'$false'))")
                rows = [] if res else None
            inconsistent = kb_inconsistent
            if rows is None:
                return EntailmentAnswer(
                    query=qtext,
                    entailed=False,
                    backend="prolog",
                    reason="no derivation: the query fails in the least model of the "
                    "Horn belief set (complete for this fragment)",
                )
            pnode = _rows_to_proof(rows, loaded, qtext) if proof else None
            return EntailmentAnswer(
                query=qtext,
                entailed=True,
                backend="prolog",
                proof=pnode,
                inconsistent_kb=inconsistent,
                reason="the belief set is inconsistent (everything follows)"
                if inconsistent
                else (
                    "refutation: the query's negation contradicts the belief set"
                    if rows and rows[0].startswith("0|refuted")
                    else "derived"
                ),
            )
        finally:
            _call(f"retractall({m}:'$hyp'(_)), retractall({m}:'$qgoal'), retractall({m}:'$rule'('$qgoal',_,_))")
            if hyps:
                _call("abolish_all_tables")

    ans = _WORKER.submit(job)
    ans.elapsed_ms = (time.perf_counter() - t0) * 1000
    return ans


def consistent(bs: BeliefSet) -> ConsistencyAnswer:
    t0 = time.perf_counter()

    def job() -> ConsistencyAnswer:
        loaded = _load(bs)
        m = loaded.module
        res = _call(f"{m}:'$false', once({m}:'$prove'('$false', [], P)), {m}:'$flat'(P, 0, Rows)")
        if not res:
            return ConsistencyAnswer(
                consistent=True, backend="prolog", reason="no negative clause is violated in the least model"
            )
        rows = [str(r) for r in res[0]["Rows"]]
        proof = _rows_to_proof(rows, loaded, "-")
        involved_idx: list[int] = []
        for r in rows:
            _, kind, ident, _ = r.split("|", 3)
            if kind == "rule" and ident.isdigit():
                src = loaded.program.clauses[int(ident)].source
                if src not in involved_idx:
                    involved_idx.append(src)
        return ConsistencyAnswer(
            consistent=False,
            backend="prolog",
            involved=[print_formula(bs.formulas[i]) for i in involved_idx],
            involved_lines=[bs.lines[i] for i in involved_idx],
            proof=proof,
            reason="a negative clause is derivable",
        )

    ans = _WORKER.submit(job)
    ans.elapsed_ms = (time.perf_counter() - t0) * 1000
    return ans


def available() -> bool:
    try:
        _WORKER.submit(lambda: None)
        return True
    except FolReasonerError:
        return False
