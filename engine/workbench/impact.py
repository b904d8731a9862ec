"""Impact of a change of the rules on a portfolio: the same cases under two versions of the rules.

Why: a legal engineer moving a parameter (the 18-month safe harbour to 24) or adding a regime must see
which cases of a portfolio the change flips, by how much P(target) moves, and why (the first step where
the two proofs part), and a pull request can be gated on it (OpenFisca's reforms, LexImpact).

Each version is a rules FOLDER (a git ref is exported to one first: ``rules_at_ref``). This module reads
verdicts, it never drives a case: each case of the portfolio is run under each version by the runs room
(``engine.jobs.impact_runs``: in this process, or as one batch on the local pool or Celery workers), as the
service runs it, and the two typed verdicts are compared here.
"""

from __future__ import annotations

import hashlib
import io
import json
import statistics
import subprocess
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import PackLibrary, load_folder, pack_digest
from lexlogic.engine.verdict.model import Verdict
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import PackError, RulePack, find_packs
from lexlogic.logic.proof import ProofNode

HISTOGRAM = [-1.0, -0.5, -0.2, -0.05, -0.001, 0.001, 0.05, 0.2, 0.5, 1.0000001]


class ImpactError(LexlogicError):
    """A portfolio or a version of the rules that cannot be read (named, with where)."""


class Side(BaseModel):
    """One case under one version of the rules."""

    verdict: str
    outcomes: dict[str, str]
    p_target: float | None
    distributions: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    proof_rules: list[str] = Field(default_factory=new_list)


class CaseImpact(BaseModel):
    key: str
    case_id: str
    flips: dict[str, tuple[str, str]] = Field(default_factory=dict, description="outcome → (base, new) status")
    p_base: float | None = None
    p_new: float | None = None
    delta_p: float | None = None
    distribution_shift: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    first_difference: str | None = Field(default=None, description="the first step where the target's proofs part")
    rules: list[str] = Field(default_factory=new_list, description="rules in one proof of the target and not the other")
    error: str | None = None


class ImpactReport(BaseModel):
    base: str
    new: str
    cases: list[CaseImpact]
    changed_parameters: dict[str, tuple[Any, Any]] = Field(default_factory=dict)
    changed_rules: list[str] = Field(default_factory=new_list)

    @property
    def flipped(self) -> list[CaseImpact]:
        return [c for c in self.cases if c.flips]

    def histogram(self) -> dict[str, int]:
        bins = {f"[{lo:+.3g}, {hi:+.3g})": 0 for lo, hi in zip(HISTOGRAM, HISTOGRAM[1:], strict=False)}
        for c in self.cases:
            if c.delta_p is None:
                continue
            for (lo, hi), name in zip(zip(HISTOGRAM, HISTOGRAM[1:], strict=False), bins, strict=True):
                if lo <= c.delta_p < hi:
                    bins[name] += 1
                    break
        return bins

    def rules_behind_flips(self) -> list[tuple[str, int]]:
        return Counter(r for c in self.flipped for r in c.rules).most_common()


# --------------------------------------------------------------------------------------- inputs
def rules_at_ref(rules: Path, ref: str, dest: Path) -> Path:
    """The rules folder as it was at git ``ref`` (``git archive``), extracted under ``dest``."""
    rules = rules.resolve()

    def git(*args: str, where: Path = rules) -> bytes:
        try:
            done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, check=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            raise ImpactError(
                f"--base {ref}: git {' '.join(args[:2])} failed: {detail.decode(errors='replace').strip() or exc}"
            ) from exc
        return done.stdout

    top = Path(git("rev-parse", "--show-toplevel").decode().strip())
    rel = rules.relative_to(top)
    data = git("archive", "--format=tar", ref, "--", str(rel), where=top)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest / rel


def read_jsonl(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(key, case file) pairs, one per line of a JSON-lines portfolio (``cases.jsonl:N``)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ImpactError(f"{path}: cannot read the portfolio: {exc.strerror or exc}") from exc
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ImpactError(f"{path}:{n}: not a JSON case: {exc}") from exc
        if not isinstance(data, dict) or not isinstance(data.get("facts"), dict):
            raise ImpactError(f"{path}:{n}: a case needs a 'facts' object")
        out.append((f"{path.name}:{n}", data))
    if not out:
        raise ImpactError(f"{path}: no case in this file")
    return out


class Rules:
    """One version of the rules: a rules folder, its packs by name (each loaded once) and its library
    (what a run of a case under this version is given)."""

    def __init__(self, folder: Path, label: str) -> None:
        self.folder = folder.resolve()
        self.label = label
        self.roots = {r.name: r for r in find_packs(self.folder)}
        self.library = PackLibrary(self.folder)

    def pack(self, name: str) -> tuple[RulePack, CompiledProgram]:
        root = self.roots.get(name)
        if root is None:
            raise ImpactError(f"{self.label}: no pack named '{name}' in {self.folder}")
        loaded = load_folder(root)
        return loaded.pack, loaded.program

    def digest(self) -> str:
        """Names the version's content: every pack's digest (a changed candidate is a new batch item)."""
        h = hashlib.sha256()
        for name, root in sorted(self.roots.items()):
            h.update(f"{name}:{pack_digest(root)};".encode())
        return h.hexdigest()


# --------------------------------------------------------------------------------------- comparing
class CaseRuns(BaseModel):
    """One case of the portfolio and its verdict under each version (or why there is none)."""

    key: str
    case_id: str
    pack: str | None = None
    base: Verdict | None = None
    new: Verdict | None = None
    error: str | None = None


def side(verdict: Verdict) -> tuple[Side, dict[str, ProofNode]]:
    """The case under one version, read on the verdict the service gives it: outcomes, P(target),
    distributions, and each outcome's proof."""
    proof = verdict.outcomes[verdict.target].proof if verdict.target in verdict.outcomes else None
    result = Side(
        verdict=verdict.label.value,
        outcomes={a: o.status for a, o in verdict.outcomes.items()},
        p_target=verdict.probability.p_target,
        distributions={
            d.name: {"mean": d.mean, "p10": d.p10, "p50": d.p50, "p90": d.p90}
            for d in verdict.probability.distributions
        },
        proof_rules=sorted(proof.rule_ids()) if proof else [],
    )
    return result, {a: o.proof for a, o in verdict.outcomes.items() if o.proof is not None}


def first_difference(a: ProofNode | None, b: ProofNode | None, path: str = "") -> str | None:
    """The deepest first node, in proof order, where the two trees disagree: a different rule or atom is
    reported where it is; a different truth or value is followed down to the premise that changed."""
    if a is None or b is None:
        return None if a is b else f"{path or 'root'}: one proof is missing"
    here = f"{path}/{a.atom}" if path else a.atom
    if (a.atom, a.rule_id) != (b.atom, b.rule_id):
        return f"{here}: {_step(a)} → {_step(b)}"
    for x, y in zip(a.children, b.children, strict=False):
        found = first_difference(x, y, here)
        if found:
            return found
    if (a.holds, a.value) != (b.holds, b.value):
        return f"{here}: {_step(a)} → {_step(b)}"
    if len(a.children) != len(b.children):
        return f"{here}: {len(a.children)} premises → {len(b.children)}"
    return None


def _step(n: ProofNode) -> str:
    value = "" if n.value is None else f" = {n.value!r}"
    return f"{n.rule_id or n.kind.value} {'holds' if n.holds else 'fails'}{value}"


def compare_case(runs: CaseRuns) -> CaseImpact:
    """One case's two verdicts, compared: flips, ΔP, shifts of the distributions, where the proofs part."""
    if runs.error or runs.base is None or runs.new is None:
        return CaseImpact(key=runs.key, case_id=runs.case_id, error=runs.error or "no verdict")
    (a, ta), (b, tb) = side(runs.base), side(runs.new)
    flips = {o: (a.outcomes.get(o, "—"), b.outcomes.get(o, "—")) for o in sorted(set(a.outcomes) | set(b.outcomes))}
    flips = {o: v for o, v in flips.items() if v[0] != v[1]}
    shift = {
        n: {k: _minus(b.distributions[n].get(k), a.distributions[n].get(k)) for k in ("mean", "p50")}
        for n in sorted(set(a.distributions) & set(b.distributions))
    }
    delta = _minus(b.p_target, a.p_target)
    return CaseImpact(
        key=runs.key,
        case_id=runs.case_id,
        flips=flips,
        p_base=a.p_target,
        p_new=b.p_target,
        delta_p=None if delta is None else round(delta, 6),
        distribution_shift={n: s for n, s in shift.items() if any(v for v in s.values())},
        first_difference=_why(flips, ta, tb, runs.new.target),
        rules=sorted(set(a.proof_rules) ^ set(b.proof_rules)),
    )


def _why(
    flips: dict[str, tuple[str, str]], base: dict[str, ProofNode], new: dict[str, ProofNode], target: str
) -> str | None:
    """Where the proofs first part, read on the flipped outcome that rests on no other flipped one (the
    root of the change), else on the target's proofs."""
    roots = [
        o
        for o in flips
        if o in base
        and o in new
        and not any(n.atom in flips and n.atom != o for t in (base[o], new[o]) for n in t.walk())
    ]
    for outcome in roots or [target]:
        found = first_difference(base.get(outcome), new.get(outcome))
        if found:
            return found
    return None


def _minus(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else round(x - y, 6)


def compare(runs: list[CaseRuns], base: Rules, new: Rules) -> ImpactReport:
    """The report over the portfolio's cases (each already run under both versions)."""
    params, rules = _changes(base, new, {r.pack for r in runs if r.pack})
    return ImpactReport(
        base=base.label,
        new=new.label,
        cases=[compare_case(r) for r in runs],
        changed_parameters=params,
        changed_rules=rules,
    )


def _changes(base: Rules, new: Rules, names: set[str]) -> tuple[dict[str, tuple[Any, Any]], list[str]]:
    """What differs between the versions' packs: parameter values (all periods) and rules (by id, text)."""
    params: dict[str, tuple[Any, Any]] = {}
    rules: list[str] = []
    for name in sorted(names):
        try:
            (bp, bprog), (np_, nprog) = base.pack(name), new.pack(name)
        except (PackError, ImpactError):
            continue
        for p in sorted(set(bp.parameters or {}) | set(np_.parameters or {})):
            va = _periods(bp, p)
            vb = _periods(np_, p)
            if va != vb:
                params[f"{name}.{p}"] = (va, vb)
        ra = {r.rule_id.rsplit("/", 1)[-1]: r.text for r in bprog.rules}
        rb = {r.rule_id.rsplit("/", 1)[-1]: r.text for r in nprog.rules}
        rules += [f"{name}.{r}" for r in sorted(set(ra) | set(rb)) if ra.get(r) != rb.get(r)]
    return params, rules


def _periods(pack: RulePack, name: str) -> Any:
    p = (pack.parameters or {}).get(name)
    if p is None:
        return None
    return [[str(x.valid_from) if x.valid_from else None, x.value] for x in p.values]


# --------------------------------------------------------------------------------------- output
def render_markdown(report: ImpactReport) -> str:
    n, flipped = len(report.cases), report.flipped
    moved = [c for c in report.cases if c.delta_p and abs(c.delta_p) > 1e-3]
    errors = [c for c in report.cases if c.error]
    lines = [
        f"## Impact of the rules change: `{report.base}` → `{report.new}`",
        "",
        f"**{len(flipped)} of {n} cases flip** (an outcome changes status); P(target) moves by more than 0.001 "
        f"in {len(moved)}" + (f"; {len(errors)} case(s) could not be analysed" if errors else "") + ".",
        "",
    ]
    if report.changed_parameters or report.changed_rules:
        lines += ["What changed:", ""]
        lines += [f"- parameter `{k}`: {a} → {b}" for k, (a, b) in report.changed_parameters.items()]
        lines += [f"- rule `{r}`" for r in report.changed_rules]
        lines.append("")
    if flipped:
        lines += ["| case | flips | P before | P after | ΔP | first difference |", "|---|---|---|---|---|---|"]
        for c in flipped:
            flips = ", ".join(f"{o}: {a}→{b}" for o, (a, b) in c.flips.items())
            lines.append(
                f"| {c.case_id} | {flips} | {_p(c.p_base)} | {_p(c.p_new)} | {_signed(c.delta_p)} | {c.first_difference or '—'} |"
            )
        lines.append("")
    lines += ["ΔP histogram:", "", "| ΔP | cases |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in report.histogram().items() if v]
    behind = report.rules_behind_flips()
    if behind:
        lines += ["", "Rules behind the flips: " + ", ".join(f"`{r}` ({k})" for r, k in behind)]
    if moved:
        deltas = [c.delta_p for c in moved if c.delta_p is not None]
        lines += ["", f"Mean ΔP over the moved cases: {_signed(statistics.fmean(deltas))}."]
    return "\n".join(lines) + "\n"


def render_text(report: ImpactReport) -> str:
    lines = [f"impact {report.base} → {report.new}: {len(report.flipped)} of {len(report.cases)} cases flip"]
    for k, (a, b) in report.changed_parameters.items():
        lines.append(f"  parameter {k}: {a} → {b}")
    for r in report.changed_rules:
        lines.append(f"  rule changed: {r}")
    for c in report.cases:
        if c.error:
            lines.append(f"  {c.key}: error: {c.error}")
        elif c.flips or (c.delta_p and abs(c.delta_p) > 1e-3):
            flips = ", ".join(f"{o} {a}→{b}" for o, (a, b) in c.flips.items()) or "no flip"
            lines.append(f"  {c.case_id}: {flips}; P {_p(c.p_base)} → {_p(c.p_new)} (ΔP {_signed(c.delta_p)})")
            if c.first_difference:
                lines.append(f"      first difference: {c.first_difference}")
            for name, s in c.distribution_shift.items():
                lines.append(f"      {name}: mean {_signed(s.get('mean'))}, p50 {_signed(s.get('p50'))}")
    lines.append("  ΔP histogram: " + ", ".join(f"{k} {v}" for k, v in report.histogram().items() if v))
    return "\n".join(lines) + "\n"


def render_json(report: ImpactReport) -> str:
    data = report.model_dump(mode="json")
    data["summary"] = {
        "cases": len(report.cases),
        "flipped": len(report.flipped),
        "histogram": report.histogram(),
        "rules_behind_flips": report.rules_behind_flips(),
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _p(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _signed(x: float | None) -> str:
    return "—" if x is None else f"{x:+.3f}"
