"""E prover (Debian `eprover` 2.6) for full sorted FOL, through TPTP FOF with sort predicates.

Sorts are lowered to unary predicates: each constant gets `s_Sort(c)`, each inferred sub-sort link
`![X]: (s_A(X) => s_B(X))`, each quantifier is guarded (`![X]: (s_S(X) => F)`, `?[X]: (s_S(X) & F)`).
That is the standard many-sorted → unsorted translation, so answers match the sorted semantics the
Prolog bridge implements. The binary is checked first: a missing prover must never read as "not
entailed" (Tweety's EFOLReasoner makes that mistake).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time

from lexlogic.bridges.fol_tools import FolTools
from lexlogic.logic.fol import model as fm
from lexlogic.logic.fol.answers import ConsistencyAnswer, EntailmentAnswer, FolReasonerError
from lexlogic.logic.fol.hierarchy import SortHierarchy
from lexlogic.logic.fol.printer import print_formula
from lexlogic.logic.proof import NodeKind, ProofNode

DEFAULT_TIMEOUT = 20.0


def binary(tools: FolTools | None = None) -> str | None:
    """The E prover binary: ``tools.eprover`` (``LEXLOGIC_EPROVER`` at the edge), else ``eprover`` on PATH."""
    return (tools or FolTools()).eprover_binary()


def _t(t: object) -> str:
    return f"V{t.name}" if isinstance(t, fm.Var) else f"c_{t.name}"  # type: ignore[attr-defined]


def tptp_formula(f: fm.Formula) -> str:
    if isinstance(f, fm.Atom):
        return f"p_{f.pred}" + (f"({','.join(_t(a) for a in f.args)})" if f.args else "")
    if isinstance(f, fm.Equals):
        return f"({_t(f.left)} = {_t(f.right)})"
    if isinstance(f, fm.NotEquals):
        return f"({_t(f.left)} != {_t(f.right)})"
    if isinstance(f, fm.Top):
        return "$true"
    if isinstance(f, fm.Bottom):
        return "$false"
    if isinstance(f, fm.Not):
        return f"~({tptp_formula(f.body)})"
    if isinstance(f, (fm.And, fm.Or)):
        op = " & " if isinstance(f, fm.And) else " | "
        return "(" + op.join(tptp_formula(p) for p in f.parts) + ")"
    if isinstance(f, fm.Xor):
        acc = tptp_formula(f.parts[0])
        for p in f.parts[1:]:
            acc = f"({acc} <~> {tptp_formula(p)})"
        return acc
    if isinstance(f, fm.Implies):
        return f"({tptp_formula(f.left)} => {tptp_formula(f.right)})"
    if isinstance(f, fm.Iff):
        return f"({tptp_formula(f.left)} <=> {tptp_formula(f.right)})"
    if isinstance(f, (fm.Forall, fm.Exists)):
        v = _t(f.var)
        body = tptp_formula(f.body)
        if f.var.sort == fm.ANY:
            return f"{'!' if isinstance(f, fm.Forall) else '?'}[{v}]: {body}"
        guard = f"s_{f.var.sort}({v})"
        if isinstance(f, fm.Forall):
            return f"![{v}]: ({guard} => {body})"
        return f"?[{v}]: ({guard} & {body})"
    raise TypeError(f)


def _close(f: fm.Formula) -> fm.Formula:
    for name in sorted(fm.free_vars(f)):
        sort = next((t.sort for t in _vars(f) if t.name == name), fm.ANY)
        f = fm.Forall(fm.Var(name, sort), f)
    return f


def _vars(f: fm.Formula):  # type: ignore[no-untyped-def]
    from lexlogic.logic.fol.model import terms_of

    return [t for t in terms_of(f) if isinstance(t, fm.Var)]


def problem(bs: fm.BeliefSet, conjecture: fm.Formula | None = None) -> tuple[str, dict[str, int | str]]:
    """TPTP text and a map from axiom name to formula index (or a description)."""
    names: dict[str, int | str] = {}
    out: list[str] = []
    hierarchy = SortHierarchy.from_belief_set(bs)
    for sort, consts in bs.signature.sorts.items():
        for c in consts:
            name = f"sort_{c}"
            names[name] = f"{c} : {sort}"
            out.append(f"fof({name}, axiom, s_{sort}(c_{c})).")
    for i, (a, b) in enumerate(hierarchy.edges()):
        name = f"subsort_{i}"
        names[name] = f"{a} ⊑ {b}"
        out.append(f"fof({name}, axiom, ![X]: (s_{a}(X) => s_{b}(X))).")
    for i, f in enumerate(bs.formulas):
        name = f"f_{i + 1}"
        names[name] = i
        out.append(f"fof({name}, axiom, {tptp_formula(_close(f))}).")
    if conjecture is not None:
        out.append(f"fof(query, conjecture, {tptp_formula(_close(conjecture))}).")
    return "\n".join(out) + "\n", names


_STATUS = re.compile(r"# SZS status (\w+)")
_USED = re.compile(r"file\('[^']*',\s*(\w+)\)")


# `--auto` is fast but prunes axioms with SInE, which is incomplete (on 10,000 facts it answered GaveUp
# on a theorem); `-xAuto` alone can crash on Debian's build (picosat without trace). So: `--auto` first,
# then E's default (complete) heuristic when the first answer is GaveUp or missing.
STRATEGIES = (["--auto"], ["-tAuto"])


def _run(text: str, timeout: float, tools: FolTools | None = None) -> tuple[str, list[str]]:
    exe = binary(tools)
    if exe is None:
        raise FolReasonerError("E prover not found: install Debian's `eprover` (2.6) or set LEXLOGIC_EPROVER")
    fd, path = tempfile.mkstemp(suffix=".p", prefix="lexlogic_")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    used: list[str] = []
    status, detail = "GaveUp", ""
    try:
        for strategy in STRATEGIES:
            try:
                proc = subprocess.run(
                    [
                        exe,
                        *strategy,
                        "--tptp3-format",
                        "--proof-object",
                        "-s",
                        f"--cpu-limit={max(1, int(timeout))}",
                        path,
                    ],
                    capture_output=True,
                    text=True,
                    timeout=timeout + 5,
                )
            except subprocess.TimeoutExpired:
                return "Timeout", []
            m = _STATUS.search(proc.stdout)
            if not m:
                detail = f"exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:300]}"
                continue
            status = m.group(1)
            used = []
            for u in _USED.findall(proc.stdout):
                if u not in used:
                    used.append(u)
            if status not in ("GaveUp", "ResourceOut"):
                break
    finally:
        os.unlink(path)
    if detail and status == "GaveUp" and not used:
        raise FolReasonerError(f"E prover gave no usable SZS status ({detail})")
    return status, used


def _proof(used: list[str], names: dict[str, int | str], bs: fm.BeliefSet, root_text: str) -> ProofNode:
    root = ProofNode(
        atom=root_text,
        label=f"{root_text} (E prover refutation; premises used)",
        kind=NodeKind.RULE,
        rule_id="fol:eprover",
    )
    repaired = {r.fact for r in bs.repairs}
    for u in used:
        ref = names.get(u)
        if ref is None:
            continue
        if isinstance(ref, int):
            text = print_formula(bs.formulas[ref])
            kind = (
                NodeKind.REPAIR
                if text in repaired
                else (
                    NodeKind.FACT
                    if not fm.free_vars(bs.formulas[ref]) and isinstance(bs.formulas[ref], (fm.Atom, fm.Not))
                    else NodeKind.RULE
                )
            )
            line = bs.lines[ref]
            root.children.append(
                ProofNode(
                    atom=text,
                    label=text,
                    kind=kind,
                    rule_id=f"fol:{ref + 1}",
                    note=f"formula {ref + 1}" + (f", line {line}" if line else ""),
                )
            )
        else:
            root.children.append(ProofNode(atom=ref, label=ref, kind=NodeKind.RULE, rule_id="fol:sorts"))
    return root


def entails(
    bs: fm.BeliefSet,
    query: fm.Formula,
    *,
    proof: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
    tools: FolTools | None = None,
) -> EntailmentAnswer:
    t0 = time.perf_counter()
    qtext = print_formula(query)
    text, names = problem(bs, query)
    status, used = _run(text, timeout, tools)
    ms = (time.perf_counter() - t0) * 1000
    if status in ("Theorem", "ContradictoryAxioms"):
        inconsistent = status == "ContradictoryAxioms" or "query" not in used
        return EntailmentAnswer(
            query=qtext,
            entailed=True,
            backend="eprover",
            elapsed_ms=ms,
            proof=_proof(used, names, bs, qtext) if proof else None,
            inconsistent_kb=inconsistent,
            reason="the belief set is inconsistent (everything follows)" if inconsistent else "E found a proof",
        )
    if status in ("CounterSatisfiable", "Satisfiable"):
        return EntailmentAnswer(
            query=qtext,
            entailed=False,
            backend="eprover",
            elapsed_ms=ms,
            reason="E saturated the clause set without contradiction: a countermodel exists",
        )
    return EntailmentAnswer(
        query=qtext, entailed=None, backend="eprover", elapsed_ms=ms, reason=f"E gave up (SZS status {status})"
    )


def consistent(
    bs: fm.BeliefSet, *, timeout: float = DEFAULT_TIMEOUT, tools: FolTools | None = None
) -> ConsistencyAnswer:
    t0 = time.perf_counter()
    text, names = problem(bs)
    status, used = _run(text, timeout, tools)
    ms = (time.perf_counter() - t0) * 1000
    if status in ("Unsatisfiable", "ContradictoryAxioms"):
        idx = [names[u] for u in used if isinstance(names.get(u), int)]
        return ConsistencyAnswer(
            consistent=False,
            backend="eprover",
            elapsed_ms=ms,
            involved=[print_formula(bs.formulas[i]) for i in idx],  # type: ignore[index]
            involved_lines=[bs.lines[i] for i in idx],  # type: ignore[index]
            proof=_proof(used, names, bs, "-"),
            reason="E derived the empty clause",
        )
    if status == "Satisfiable":
        return ConsistencyAnswer(consistent=True, backend="eprover", elapsed_ms=ms, reason="E saturated: satisfiable")
    return ConsistencyAnswer(
        consistent=None, backend="eprover", elapsed_ms=ms, reason=f"E gave up (SZS status {status})"
    )
