"""Validity periods are law: a dated rule applies only to cases whose relevant date lies in its period.

Why a text transform at load time: the pack's ASP is read by the clingo bridge and by the probabilistic
model alike; gating it once, in the sources both read, keeps them the same program. A rule annotated
``%@ {id: R, …, from: 2019-04-26, to: …}`` gets a first body literal ``in_force__R`` and the pack a yes/no
computation of that name over the relevant date (the pack's ``versions.date_fact``, or the annotation's own
``date:``). An unknown date leaves it unknown (the rule may or may not apply); a date outside the period
makes the rule inert, and the verdict says which rules were set aside and why; the proof of a rule that
applied shows the version (period and sources) it applied in.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from lexlogic.logic import yaml_load
from lexlogic.logic.pack import Computation, FactType, RulePack

PREFIX = "in_force__"
_ANNOTATION = re.compile(r"^\s*%@\s*(\{.*\})\s*$")


def atom_of(rule_id: str) -> str:
    """The input atom saying a rule is in force (an ASP-safe name)."""
    return PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", rule_id).lower()


def _period(meta: dict[str, Any]) -> tuple[date | None, date | None]:
    start, end = meta.get("from"), meta.get("to")
    return (start if isinstance(start, date) else None, end if isinstance(end, date) else None)


def period_text(start: date | None, end: date | None) -> str:
    if start and end:
        return f"du {start.strftime('%d/%m/%Y')} au {end.strftime('%d/%m/%Y')}"
    if start:
        return f"depuis le {start.strftime('%d/%m/%Y')}"
    return f"jusqu'au {end.strftime('%d/%m/%Y')}" if end else ""


def _gate(statement: str, atom: str) -> str:
    """The statement with ``atom`` as its first body literal (a fact becomes a rule)."""
    if ":-" in statement:
        head, body = statement.split(":-", 1)
        return f"{head}:- {atom},{body}"
    text = statement.rstrip()
    assert text.endswith(".")
    return f"{text[:-1]} :- {atom}."


def _statement_end(lines: list[str], start: int) -> int:
    """The index of the line where the statement starting at ``start`` ends (its final period)."""
    for k in range(start, len(lines)):
        code = lines[k].split("%", 1)[0].rstrip()
        if code.endswith(".") and not re.search(r"\d\.$", code):
            return k
    return len(lines) - 1


def gate_text(text: str, date_fact: str | None, facts: set[str]) -> tuple[str, list[dict[str, Any]]]:
    """The ASP text with every dated rule gated, and the dated rules found (id, label, period, date, sources).
    A rule is gated only when its relevant date is one of the pack's ``facts``."""
    import yaml  # here, not at the top: a cold `analyze` served from the pack cache reads no YAML (issue 33)

    lines = text.splitlines()
    found: list[dict[str, Any]] = []
    k = 0
    while k < len(lines):
        m = _ANNOTATION.match(lines[k])
        if not m:
            k += 1
            continue
        try:
            meta = yaml_load.safe_load(m.group(1))  # libyaml: ~5x faster on a pack's annotations
        except (yaml.YAMLError, ValueError):
            k += 1  # the bridge reports a malformed annotation with its line
            continue
        start, end = _period(meta if isinstance(meta, dict) else {})
        relevant = (meta or {}).get("date", date_fact) if isinstance(meta, dict) else date_fact
        if not (start or end) or relevant not in facts or "id" not in meta:
            k += 1
            continue
        first = k + 1
        while first < len(lines) and (not lines[first].strip() or lines[first].lstrip().startswith("%")):
            first += 1
        last = _statement_end(lines, first)
        statement = "\n".join(lines[first : last + 1])
        atom = atom_of(str(meta["id"]))
        gated = _gate(statement, atom).splitlines()
        lines[first : last + 1] = gated + [""] * (last + 1 - first - len(gated))  # line numbers kept
        found.append(
            {
                "id": str(meta["id"]),
                "label": str(meta.get("label", meta["id"])),
                "from": start,
                "to": end,
                "date": str(relevant),
                "sources": [str(s) for s in meta.get("sources", [])],
                "atom": atom,
                "if_unknown": meta.get("if_unknown"),
            }
        )
        k = last + 1
    return "\n".join(lines) + ("\n" if text.endswith("\n") else ""), found


def computation_for(rule: dict[str, Any], pack: RulePack) -> Computation:
    """The yes/no computation « this rule is in force at the case's relevant date »."""
    start, end = rule["from"], rule["to"]
    tests: list[Any] = []
    if start:
        tests.append({"date_on_or_after": [{"var": rule["date"]}, start.isoformat()]})
    if end:
        tests.append({"date_before": [{"var": rule["date"]}, (end + timedelta(days=1)).isoformat()]})
    spec = pack.facts.get(rule["date"])
    when = spec.label if spec is not None else rule["date"]
    label = rule["label"]
    logic: Any = {"and": tests} if len(tests) > 1 else tests[0]
    unknown = rule.get("if_unknown")
    if isinstance(unknown, bool):  # the pack says how an unknown date reads (e.g. the solution in force today)
        logic = {"if": [{"var": rule["date"]}, logic, unknown]}
    return Computation(
        id=f"VALIDITY_{rule['id']}",
        output=rule["atom"],
        type=FactType.BOOL,
        label=f"En vigueur ({period_text(start, end)}) à la date retenue ({when[:1].lower()}{when[1:]}) : {label}",
        inputs=[] if isinstance(unknown, bool) else [rule["date"]],
        logic=logic,
        sources=list(rule["sources"]),
        note="Période de validité de la règle : hors de cette période, elle ne s'applique pas.",
    )


def gate_pack(pack: RulePack) -> RulePack:
    """Gate every dated rule of the pack by its period (in place); ``pack.dated_rules``: atom → rule."""
    date_fact = pack.manifest.versions.date_fact if pack.manifest.versions else None
    rules: list[dict[str, Any]] = []
    for rel, text in list(pack.asp_sources.items()):
        pack.asp_sources[rel], found = gate_text(text, date_fact, set(pack.facts))
        rules += found
    pack.computations = [computation_for(r, pack) for r in rules] + pack.computations
    pack.dated_rules = {r["atom"]: r for r in rules}
    return pack
