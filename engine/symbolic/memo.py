"""One pass per run: a case file is parsed once and a (case, answers) pair analysed once.

A run (the orchestrator's evaluator, the API's verdict service, a CLI call) owns one ``RunMemo``; the
EXECUTING step's analysis, the verdict's main analysis and each narrative world's analysis all go
through it, so the same work is never redone within the run. ``parse`` is the edge where a case file as
stored (JSON) becomes the typed ``CaseFile``; ``analyse`` takes that typed case. Keys are content hashes
(the case, the answers, the pack's name), so a changed input is a new entry, never a stale one; a case the
memo parsed keeps the hash of what it was parsed from (no second serialisation). ``counts`` says how much
real work was done (the one-pass test reads it). ``memos``: every other result the run memoises (solved
assignments, computations, the case model, the verdict's tables…: ``logic/memos.py``), handed down as
``memos=`` — nothing of a run is kept at module level, so two runs (two services) never serve each other's.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.symbolic.analysis import Analysis, analyse
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.facts import CaseFile, parse_case
from lexlogic.logic.memos import Memos
from lexlogic.logic.pack import RulePack


class RunMemo:
    def __init__(self, limit: int = 64, memos: Memos | None = None) -> None:
        """``memos``: the owner's memoised results when the run is one of many it owns (a batch chunk's cases, the
        API's requests); none, the run's own."""
        self.limit = limit
        self._parsed: dict[str, CaseFile] = {}
        self._analyses: dict[str, Analysis] = {}
        self._keys: dict[int, tuple[CaseFile, str]] = {}  # id → (the case, its content key), for cases seen
        self.counts: Counter[str] = Counter()
        self.memos = memos if memos is not None else Memos()  # passed down (``memos=``)

    def _keep(self, table: dict[str, Any], key: str, value: Any) -> None:
        if len(table) >= self.limit:  # a long interactive run: forget the oldest
            table.pop(next(iter(table)))
        table[key] = value

    def parse(self, stored: dict[str, Any], pack: RulePack) -> CaseFile:
        """The typed case file of a case file as stored (CaseFileError with its JSON path, as ``parse_case``)."""
        key = canonical_hash({"c": stored, "p": pack.name})
        hit = self._parsed.get(key)
        if hit is None:
            self.counts["parse"] += 1
            hit = parse_case(stored, pack)
            self._keep(self._parsed, key, hit)
            self._remember(hit, key)
        return hit

    def adopt(self, stored: dict[str, Any], case: CaseFile) -> None:
        """A case typed at the edge (a facts file, parsed once when read): ``parse(stored)`` returns it."""
        key = canonical_hash({"c": stored, "p": case.pack})
        self._keep(self._parsed, key, case)
        self._remember(case, key)

    def _remember(self, case: CaseFile, key: str) -> None:
        if len(self._keys) >= 4 * self.limit:
            self._keys.pop(next(iter(self._keys)))
        self._keys[id(case)] = (case, key)  # the case is held: its id cannot be reused while remembered

    def key(self, case: CaseFile) -> str:
        """The content key of a typed case (computed once per case object)."""
        seen = self._keys.get(id(case))
        if seen is not None and seen[0] is case:
            return seen[1]
        key = canonical_hash({"c": case.model_dump(mode="json"), "p": case.pack})
        self._remember(case, key)
        return key

    def analyse(
        self,
        pack: RulePack,
        program: CompiledProgram,
        case: CaseFile,
        answers: dict[str, Any] | None = None,
        dynamic: list[Any] | None = None,
        *,
        proofs: bool = True,
    ) -> Analysis:
        """The symbolic analysis of a typed case with these answers and dynamic interpretations (``proofs=False``:
        without its trees, a separate entry — never served to a caller that reads them)."""
        what: dict[str, Any] = {"c": self.key(case), "p": pack.name, "a": answers or {}}
        what["d"] = [repr(d) for d in dynamic or []]
        if not proofs:
            what["no-proofs"] = True
        key = canonical_hash(what)
        hit = self._analyses.get(key)
        if hit is None:
            self.counts["analyse"] += 1
            # ``proofs`` passed only when off (spies in tests wrap the call)
            hit = (
                analyse(pack, program, case, answers, dynamic, memos=self.memos)
                if proofs
                else analyse(pack, program, case, answers, dynamic, proofs=False, memos=self.memos)
            )
            self._keep(self._analyses, key, hit)
        return hit
