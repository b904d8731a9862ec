"""Oracles for the case model, independent of it.

* ``brute_force``: enumerate every completion of the case's unknown yes/no and enum facts, run the
  SYMBOLIC analysis (``engine.analysis.analyse``) on each, weight by the pack's priors. The judge's call
  (an appreciation fact whose prior is a computed value) is split only where the analysis leaves the
  target open, with that world's prior and the pack's balancing folded in (odds × score). Gives P(target),
  the posterior of every unknown fact and its EIG.
* ``to_problog``: the model's discrete program written for ProbLog (probabilistic facts, annotated
  disjunctions, ``\\+`` for negation, constraints as evidence).
* ``cases``: hypothesis cases from the pack's vocabulary around the example (≤ 8 unknown roots).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from lexlogic.engine.prob.model import BoolVar, ProbProgram
from lexlogic.engine.prob.soft import factor
from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.engine.symbolic.values import ValueStatus, gather_values
from lexlogic.logic.facts import parse_case
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.weights import load_weights
from tests.support.packs import SHIPPED  # the tests' owner of memoised results (its memos), as a driver's library

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
TOGGLED = [
    "notice_written",
    "economic_dependence_proven",
    "dedicated_investments",
    "exclusivity",
    "private_label",
    "fault_serious",
    "fault_proven",
    "fault_tolerated",
    "regular_orders",
    "force_majeure",
    "claimant_is_author",
    "terms_change_substantial",
]


def entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@st.composite
def cases(draw: st.DrawFn, max_unknown: int = 5) -> dict[str, Any]:
    facts = json.loads(EXAMPLE.read_text())["facts"]
    facts["notice_given_months"] = draw(st.sampled_from([0, 3, 6, 10, 12, 18, 24]))
    facts["notification_date"] = draw(st.sampled_from(["2024-03-15", "2019-01-10"]))
    if facts["notification_date"] < "2019-04-26":
        facts["claim_date"] = "2021-09-12"
    unknown = draw(st.lists(st.sampled_from(TOGGLED), max_size=max_unknown, unique=True))
    for name in TOGGLED:
        if name in unknown:
            facts.pop(name, None)
        elif draw(st.booleans()):
            facts[name] = draw(st.booleans())
    if len(unknown) < max_unknown and draw(st.booleans()):
        facts.pop("rupture_kind")  # an unknown enum (4 values); the volume drop is given
        facts["volume_drop_pct"] = 40
    return {"pack": "rupture_brutale", "case_id": "gen", "facts": facts}


def _prior(pack: RulePack, name: str, priors: dict[str, Any]) -> list[tuple[Any, float]]:
    spec = pack.facts[name]
    if spec.type is FactType.ENUM:
        vals = spec.values or []
        return [(v, 1.0 / len(vals)) for v in vals]
    p = priors.get(name, spec.prior if isinstance(spec.prior, (int, float)) else 0.5)
    p = float(getattr(p, "mean", p))
    return [(True, p), (False, 1.0 - p)]


def brute_force(
    pack: RulePack, program: Any, raw: dict[str, Any], answers: dict[str, Any] | None = None
) -> dict[str, Any]:
    """P(target), posterior and EIG of every unknown fact, by the symbolic analysis of each completion."""
    answers = dict(answers or {})
    case = parse_case(raw, pack)
    weights = load_weights(pack.root / "weights.yaml")
    values = gather_values(pack, case, answers, memos=SHIPPED.memos)
    unknown = [
        n
        for n, s in pack.facts.items()
        if s.type in (FactType.BOOL, FactType.ENUM) and values[n].status is ValueStatus.UNKNOWN
    ]
    calls = [n for n in unknown if pack.facts[n].appreciation and isinstance(pack.facts[n].prior, str)]
    roots = [n for n in unknown if n not in calls]
    target = pack.manifest.target
    rows: list[tuple[dict[str, Any], float, bool]] = []  # (completion, weight, target holds)
    for combo in itertools.product(*(_prior(pack, n, weights.priors) for n in roots)):
        completion = {n: v for n, (v, _) in zip(roots, combo)}
        w = math.prod(p for _, p in combo)
        if w == 0.0:
            continue
        a = analyse(pack, program, case, {**answers, **completion}, memos=SHIPPED.memos)
        if a.verdict == "INCONSISTENT":
            continue
        status = a.outcomes[target].status
        if status != "unknown":
            rows.append((completion, w, status == "yes"))
            continue
        open_calls = [n for n in calls if n not in answers]
        assert open_calls, f"target undecided in a complete world: {completion}"
        decided = {law.decides: law for law in weights.numbers.values() if law.decides}
        for call_values in itertools.product([True, False], repeat=len(open_calls)):
            wc = w
            for n, v in zip(open_calls, call_values):
                if n in decided:  # issue 29: the call is the event « the law's number exceeds the value »
                    p = exceed_oracle(decided[n], {k: x.value for k, x in a.values.items() if x.known})
                    wc *= p if v else 1.0 - p
                    continue
                info = a.values[pack.facts[n].prior]  # type: ignore[index]
                p = max(0.0, min(1.0, info.value / 100.0)) if info.known else 0.5
                for rule in weights.soft_rules:
                    if rule.condition_atom == n:
                        q = factor(rule)
                        p = p * q / (p * q + (1 - p) * (1 - q))
                wc *= p if v else 1.0 - p
            a2 = analyse(
                pack,
                program,
                case,
                {**answers, **completion, **dict(zip(open_calls, call_values))},
                memos=SHIPPED.memos,
            )
            s2 = a2.outcomes[target].status
            assert s2 != "unknown", f"target undecided in a complete world: {completion} {call_values}"
            rows.append((completion, wc, s2 == "yes"))
    z = sum(w for _, w, _ in rows)
    pt = sum(w for _, w, t in rows if t) / z
    posterior: dict[str, dict[Any, float]] = {}
    eig: dict[str, float] = {}
    for n in roots:
        px: dict[Any, float] = {}
        pxt: dict[Any, float] = {}
        for c, w, t in rows:
            px[c[n]] = px.get(c[n], 0.0) + w / z
            pxt[c[n]] = pxt.get(c[n], 0.0) + (w / z if t else 0.0)
        posterior[n] = px
        eig[n] = entropy(pt) - sum(p * entropy(pxt[x] / p) for x, p in px.items() if p > 0)
    return {"p": pt, "posterior": posterior, "eig": eig, "roots": roots, "worlds": len(rows)}


def exceed_oracle(law: Any, values: dict[str, Any], k: int = 12) -> float:
    """P(X > threshold) for the pack's lognormal regression, written here from its definition (ln X = a +
    b·ln(covariate/divide) + Σ effects + σ·ε, (a, b, ln σ) ~ N(mean, cov)): ε integrated in closed form,
    (a, b, ln σ) by a k-point Gauss–Hermite product rule over the Cholesky factor. Shares no code with the
    model; ``test_judge_call_law`` checks the rule itself against plain Monte Carlo."""
    threshold = float(values[law.at_least["value"]])
    if law.max is not None and threshold >= law.max:
        return 0.0
    nodes, wts = np.polynomial.hermite_e.hermegauss(k)
    wts = wts / wts.sum()
    chol = np.linalg.cholesky(np.array(law.cov, dtype=float))
    shift = sum(e for f, e in law.effects.items() if values.get(f) is True)
    ln_cov = math.log(float(values[law.covariate]) / law.divide)
    total = 0.0
    for (i, u0), (j, u1), (m, u2) in itertools.product(enumerate(nodes), repeat=3):
        z = np.array(law.mean) + chol @ np.array([u0, u1, u2])
        sd = math.exp(z[2])
        total += (
            wts[i]
            * wts[j]
            * wts[m]
            * 0.5
            * math.erfc((math.log(threshold) - z[0] - z[1] * ln_cov - shift) / (sd * math.sqrt(2)))
        )
    return total


_NOT = re.compile(r"\bnot\s+")


def to_problog(prog: ProbProgram) -> str:
    """The discrete program for ProbLog: same facts, same rules, same priors (soft rules excluded)."""
    lines: list[str] = []
    for v in prog.variables:
        if isinstance(v, BoolVar):
            lines.append(f"{v.p!r}::{v.atom}.")
        else:
            lines.append("; ".join(f"{o.prob!r}::{o.atom}" for o in v.options) + ".")
    k = 0
    for raw in prog.program.splitlines():
        line = raw.split("%", 1)[0].strip()
        if not line:
            continue
        if line.startswith(":-"):
            lines.append(f"violated_constraint_{k} :- {_NOT.sub(chr(92) + '+', line[2:].strip())}")
            lines.append(f"evidence(violated_constraint_{k}, false).")
            k += 1
            continue
        lines.append(_NOT.sub("\\\\+", line))
    defined = {m.group(1) for line in lines for m in [_HEAD.match(line)] if m}
    used = {
        m.group(1)
        for line in lines
        if not line.startswith("evidence(")
        for m in _ATOM.finditer(line.split(":-", 1)[-1])
    }
    for name in sorted(used - defined - {"evidence", "query", "true", "false"}):
        lines.append(f"0.0::{name}.")  # never derived nor given: false (clingo drops it the same way)
    lines.append(f"query({prog.target}).")
    return "\n".join(lines)


_HEAD = re.compile(r"^(?:[0-9.e-]+::)?([a-z_][A-Za-z0-9_]*)")
_ATOM = re.compile(r"(?<![A-Za-z0-9_(])([a-z_][A-Za-z0-9_]*)(?!\s*\()")
