"""What the orchestrator's EXECUTING and EVALUATING steps call: the symbolic analysis of the case (cheap,
one solve), then the typed verdict (symbolic analysis + probabilistic model).

Pluggable (``Evaluator`` protocol) so a test or a replay can substitute its own; the default is the pack's
rules, evaluated symbolically and probabilistically — there is no second copy of the law in Python. The
case crosses this boundary TYPED: the state keeps the case file as stored (JSON), ``read`` turns it into a
``CaseFile`` once (the run's memo), and every other call takes that ``CaseFile``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.prob.numbers import WorldsSource
from lexlogic.engine.symbolic.memo import RunMemo
from lexlogic.engine.verdict.build import build_verdict, case_file_error, load_pack, result_verdict
from lexlogic.engine.verdict.model import Verdict
from lexlogic.logic.facts import CaseFile, CaseFileError, check_merged_date_order, check_value

Interpreter = Callable[[CaseFile], list[Any]]  # a case → the dynamic rules' interpretations of it


class Evaluator(Protocol):
    name: str

    def read(self, stored: dict[str, Any]) -> CaseFile:
        """The case file as stored, validated against its pack (CaseFileError with its JSON path)."""
        ...

    def adopt(self, stored: dict[str, Any], case: CaseFile) -> None:
        """A case already typed at the edge (a facts file): ``read(stored)`` gives it back, never re-parsed."""
        ...

    def options(self) -> dict[str, Any]:
        """What the verdict depends on besides the case and the answers (what-if, dynamic rules): part of
        the run's facts hash, so a change re-analyses instead of reusing a stale step."""
        ...

    def settles(self, case: CaseFile) -> bool:
        """Whether an established fatal defeater may settle the case without the probabilistic model."""
        ...

    def outcomes(self, case: CaseFile, answers: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The symbolic outcomes: outcome → {status: yes|no|unknown, missing: [...]}."""
        ...

    def evaluate(self, case: CaseFile, answers: dict[str, Any], *, probabilistic: bool = True) -> Verdict:
        """The typed verdict; ``probabilistic=False`` skips the probabilistic model (a fatal defeater holds)."""
        ...


class CaseEvaluator:
    """The pack's rules: symbolic analysis, then the probabilistic verdict over what is still uncertain.

    One per run: it holds the run's packs (passed in, never looked up by a global name), the inference method,
    the what-if overrides (``--whatif``), the dynamic rules' interpreter (``--dynamic-rules``) and the run's
    one-pass memo, so EXECUTING's analysis is the verdict's, and a case file is parsed once. ``result_only``
    (portfolio mode without ``--proofs``): the analysis without trees and the verdict as far as a result line
    and the state machine read it (``engine.verdict.build.result_verdict``): the same decisions, less built."""

    name = "verdict"

    def __init__(
        self,
        packs: PackLibrary,
        *,
        inference: str = "auto",
        memo: RunMemo | None = None,
        whatif: dict[str, Any] | None = None,
        interpret: Interpreter | None = None,
        result_only: bool = False,
        limits: InferenceLimits | None = None,
        draw_worlds: WorldsSource | None = None,
    ) -> None:
        self.packs = packs
        self.draw_worlds = draw_worlds  # the numbers' worlds: a portfolio group's case axis; none, sampled_worlds
        self.limits = limits  # the route's thresholds (Settings.inference_*): none, the defaults
        self.result_only = result_only
        self.inference = inference
        self.memo = memo if memo is not None else RunMemo(memos=packs.memos)  # the library's: kept across runs
        self.whatif = dict(whatif or {})
        self.interpret = interpret
        self._interpreted: dict[str, list[Any]] = {}

    def typed_answers(self, case: CaseFile, answers: dict[str, Any] | None) -> dict[str, Any]:
        """Stored answers read against the pack's vocabulary (unknown facts are ignored, not guessed), and the
        pack's date order on the case as answered (CaseFileError naming the answer: every path meets it)."""
        pack = load_pack(self.packs, case.pack).pack
        typed = {k: check_value(pack.facts[k], v) for k, v in (answers or {}).items() if k in pack.facts}
        check_merged_date_order(case, pack, typed)
        return typed

    def read(self, stored: dict[str, Any]) -> CaseFile:
        return self.memo.parse(stored, load_pack(self.packs, str(stored.get("pack"))).pack)

    def adopt(self, stored: dict[str, Any], case: CaseFile) -> None:
        self.memo.adopt(stored, case)

    def options(self) -> dict[str, Any]:
        chosen = {"whatif": self.whatif, "dynamic_rules": self.interpret is not None}
        return {k: v for k, v in chosen.items() if v}

    def interpretations(self, case: CaseFile) -> list[Any] | None:
        """The dynamic rules' interpretations of this case (run once per case), None without ``interpret``."""
        if self.interpret is None:
            return None
        key = self.memo.key(case)
        if key not in self._interpreted:
            self._interpreted[key] = self.interpret(case)
        return self._interpreted[key]

    def settles(self, case: CaseFile) -> bool:
        # a dynamic interpretation is weighed by its reliability, never taken as settled law
        return not self.interpretations(case)

    def outcomes(self, case: CaseFile, answers: dict[str, Any]) -> dict[str, dict[str, Any]]:
        loaded = load_pack(self.packs, case.pack)
        try:
            a = self.memo.analyse(
                loaded.pack,
                loaded.program,
                case,
                self.typed_answers(case, answers),
                self.interpretations(case),
                proofs=not self.result_only,
            )
        except CaseFileError as exc:
            raise case_file_error(exc) from exc
        return {k: {"status": o.status, "missing": list(o.missing)} for k, o in a.outcomes.items()}

    def evaluate(self, case: CaseFile, answers: dict[str, Any], *, probabilistic: bool = True) -> Verdict:
        dynamic = self.interpretations(case)
        common: dict[str, Any] = {
            "packs": self.packs,
            "case_id": case.case_id,
            "whatif": self.whatif,
            "dynamic": dynamic,
            "probabilistic": probabilistic or bool(dynamic),
            "inference": self.inference,
            "memo": self.memo,
            "limits": self.limits,
            "draw_worlds": self.draw_worlds,
        }
        if self.result_only:  # what a result line reads (portfolio without --proofs), by the same code
            return result_verdict(case, self.typed_answers(case, answers), **common)
        return build_verdict(case, self.typed_answers(case, answers), sliders=False, **common)
