"""What the orchestrator's EXECUTING and EVALUATING steps call: the symbolic analysis of the case (cheap,
one solve), then the typed verdict (symbolic analysis + probabilistic model).

Pluggable (``Evaluator`` protocol) so a test or a replay can substitute its own; the default is the pack's
rules, evaluated symbolically and probabilistically — there is no second copy of the law in Python.
"""

from __future__ import annotations

from typing import Any, Protocol

from lexlogic.engine.analysis import analyse
from lexlogic.engine.verdict_model import Verdict
from lexlogic.engine.verdict_service import build_verdict, load_pack, parse
from lexlogic.logic.facts import check_value


class Evaluator(Protocol):
    name: str

    def outcomes(self, case_facts: dict[str, Any], answers: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The symbolic outcomes: outcome → {status: yes|no|unknown, missing: [...]}."""
        ...

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any], *, probabilistic: bool = True) -> Verdict:
        """The typed verdict; ``probabilistic=False`` skips the probabilistic model (a fatal defeater holds)."""
        ...


def typed_answers(case_facts: dict[str, Any], answers: dict[str, Any] | None) -> dict[str, Any]:
    """Stored answers read against the pack's vocabulary (unknown facts are ignored, not guessed)."""
    pack, _ = load_pack(str(case_facts.get("pack")))
    return {k: check_value(pack.facts[k], v) for k, v in (answers or {}).items() if k in pack.facts}


class CaseEvaluator:
    """The pack's rules: symbolic analysis, then the probabilistic verdict over what is still uncertain."""

    name = "verdict"

    def outcomes(self, case_facts: dict[str, Any], answers: dict[str, Any]) -> dict[str, dict[str, Any]]:
        pack, program = load_pack(str(case_facts.get("pack")))
        a = analyse(pack, program, parse(case_facts, pack), typed_answers(case_facts, answers))
        return {k: {"status": o.status, "missing": list(o.missing)} for k, o in a.outcomes.items()}

    def evaluate(self, case_facts: dict[str, Any], answers: dict[str, Any], *, probabilistic: bool = True) -> Verdict:
        return build_verdict(
            case_facts,
            typed_answers(case_facts, answers),
            case_id=str(case_facts.get("case_id") or ""),
            probabilistic=probabilistic,
            sliders=False,
        )


def default_evaluator() -> Evaluator:
    return CaseEvaluator()
