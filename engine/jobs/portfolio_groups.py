"""A portfolio's groups and their evaluation in one process (``lexlogic batch --portfolio``).

Case files are grouped by pack and SKELETON (see ``skeleton``), which fixes the symbolic program and the model's
structure up to the numbers; a group (or a chunk of it) runs in one process, its cases one after the other
through the same state machine and evaluator as the per-case path, in memory, so the work a group shares is
done once. Its own room because both the local pool (``portfolio``) and a Celery worker (``chunks``) run it:
neither may depend on the other.
"""

from __future__ import annotations

import functools
import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.case.machine import CaseState, Orchestrator, Phase
from lexlogic.engine.jobs.batch_store import BatchItemRow, ItemResult, result_of
from lexlogic.engine.jobs.portfolio_axis import CaseAxisRun
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.prob.numbers import WorldsSource
from lexlogic.logic.canonical import canonical_hash
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import parse_case
from lexlogic.logic.pack import RulePack

_SHAPED = ("bool", "enum")  # fact types whose value shapes the program (others enter as numbers)


# --- groups ------------------------------------------------------------------------------------------------
def skeleton(raw: dict[str, Any], pack: RulePack) -> str:
    """The group key of a case file: its pack (name, version) and how each fact is given (see the module)."""
    shape: dict[str, Any] = {}
    for name, given in sorted((raw.get("facts") or {}).items()):
        spec = pack.facts.get(name)
        wrapped = isinstance(given, dict) and "value" in given  # {value, confidence, allegation…}, not amounts
        value = given["value"] if wrapped else given
        uncertain = wrapped and any(k != "value" for k in given)
        if spec is not None and spec.type.value in _SHAPED and not uncertain:
            shape[name] = value
        else:
            shape[name] = sorted(given) if uncertain else "given"
    extra = {k: v for k, v in raw.items() if k not in ("facts", "case_id")}
    return canonical_hash({"pack": pack.name, "version": pack.manifest.version, "facts": shape, "rest": extra})


@dataclass
class Group:
    key: str
    items: list[tuple[str, str, str]] = field(default_factory=list)  # (key, path, run id)


def group_items(rows: Iterable[BatchItemRow], packs: PackLibrary) -> tuple[list[Group], dict[str, str]]:
    """Pending case items by skeleton (largest group first), and the items that cannot start (key → why)."""
    groups: dict[str, Group] = {}
    invalid: dict[str, str] = {}
    for r in rows:
        try:
            raw = json.loads(Path(r.path).read_text(encoding="utf-8"))
            pack = packs.pack(str(raw["pack"]) if raw.get("pack") else None)
            parse_case(raw, pack, r.key)  # refused here exactly as the per-case path refuses it
        except (OSError, ValueError, LexlogicError) as exc:
            invalid[r.key] = f"{type(exc).__name__}: {exc}"[:500]
            continue
        k = skeleton(raw, pack)
        groups.setdefault(k, Group(k)).items.append((r.key, r.path, r.run_id))
    return sorted(groups.values(), key=lambda g: (-len(g.items), g.key)), invalid


# --- one group, in one process -----------------------------------------------------------------------------
class TransientStore:
    """The state machine's store for a portfolio run: it keeps each run's state hashes (the loop detector
    reads them: ``InMemoryMachine.loop_key``) and nothing else — a portfolio records results, not snapshots."""

    def __init__(self) -> None:
        self._hashes: dict[str, list[Any]] = {}

    def save(self, case_id: str, state: dict[str, Any], *, state_hash: Any, **_: Any) -> int:
        seen = self._hashes.setdefault(case_id, [])
        seen.append(state_hash)
        return len(seen)

    def hashes(self, case_id: str, *, since_epoch: bool = True) -> list[Any]:
        return list(self._hashes.get(case_id, []))

    def acquire(self, case_id: str, owner: str | None = None, **_: Any) -> Any:
        return case_id  # one process owns the whole group: there is nothing to lease

    def let_go(self, hold: Any, *, release: bool = True) -> None:
        self._hashes.pop(hold, None)


class InMemoryMachine(Orchestrator):
    """The state machine without snapshots: a transition only feeds the loop detector its hash. Without
    ``proofs`` its evaluator builds what a result line reads and no more (``CaseEvaluator(result_only=True)``:
    no proof trees, no distributions nobody reads); with ``proofs``, the whole verdict, as the per-case path."""

    def __init__(
        self,
        packs: PackLibrary,
        proofs: bool = False,
        limits: InferenceLimits | None = None,
        draw_worlds: WorldsSource | None = None,
    ) -> None:
        self.memory = TransientStore()
        evaluator = CaseEvaluator(packs, result_only=not proofs, limits=limits, draw_worlds=draw_worlds)
        super().__init__(self.memory, evaluator, packs=packs, job={"kind": "portfolio"})  # type: ignore[arg-type]

    def loop_key(self, state: CaseState) -> Any:
        """The loop detector's key unhashed (``CaseState.loop_key``): its sha256 over the case file at every
        step was ~6 % of a case; nothing here is stored, so only equality matters."""
        return state.loop_key()

    def persist(self, state: CaseState, note: str = "") -> int:
        """A transition, numbered. Its hash is not stored: ``run`` reads the store's hashes once, when it starts
        (the created state's, saved by ``final_state``), then keeps its own; a portfolio case is run once."""
        self._seq[state.case_id] = self._seq.get(state.case_id, 0) + 1
        return self._seq[state.case_id]


_LIBRARIES: dict[str, PackLibrary] = {}


def library(rules_dir: str) -> PackLibrary:
    """One pack library per process and rules folder: a group's packs are read and compiled once."""
    lib = _LIBRARIES.get(rules_dir)
    if lib is None:
        lib = _LIBRARIES[rules_dir] = PackLibrary(Path(rules_dir))
    return lib


def final_state(orch: InMemoryMachine, packs: PackLibrary, key: str, path: str, run_id: str) -> CaseState:
    """One case through the state machine, in memory, from the state the per-case path creates."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    pack = packs.pack(str(raw["pack"]) if raw.get("pack") else None)
    created = CaseState(
        case_id=run_id,
        pack=pack.name,
        source=path,
        phase=Phase.PLANNING,
        case_file=parse_case(raw, pack, key).model_dump(mode="json"),
    ).model_dump(mode="json")  # the per-case path reads its first state back from the database: as JSON
    state = CaseState.model_validate(created)
    orch.memory.save(run_id, created, state_hash=orch.loop_key(state))
    return orch.run(state)


def run_case(
    packs: PackLibrary,
    key: str,
    path: str,
    run_id: str,
    proofs: bool,
    limits: InferenceLimits | None = None,
    draw_worlds: WorldsSource | None = None,
) -> dict[str, Any]:
    """One case's result line (its proof tree and why-not when ``proofs``). ``limits``: the inference route's
    thresholds of the caller's Settings (``InferenceLimits.of(settings)``, built at the edge); None: defaults.
    ``draw_worlds``: the group's case axis (``portfolio_axis.CaseAxisRun.worlds``); None: the case alone."""
    orch = InMemoryMachine(packs, proofs, limits, draw_worlds)
    state = final_state(orch, packs, key, path, run_id)
    out = result_of(key, "case", state)
    if proofs and state.evaluation is not None:
        out.proof = state.evaluation.model_dump(mode="json", include={"proof", "why_not"})
    return out.model_dump(mode="json")


FULL_COLLECTION_EVERY = 100  # young-generation collections between two full ones during a group (default 10)


@contextmanager
def rare_full_collections() -> Iterator[None]:
    """The cyclic collector's full collections made rarer while a group runs, its thresholds restored after.

    Why (issue 33, measured with ``gc.callbacks`` on 400 cases of ``make_cases.py``): a group's process holds
    large long-lived structures (the packs, compiled circuits, the shared memos), and each full collection walks
    all of them — 8 full collections in 400 cases took 2.3–2.5 ms a case, ~12 % of the chunk's CPU, to find
    little (the evaluation's garbage is short-lived: the young generations, still collected as before, reclaim
    it). Collection timing changes no result; only how long unreachable cycles between old objects wait."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, FULL_COLLECTION_EVERY))
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)


def run_group(
    rules_dir: str,
    items: list[tuple[str, str, str]],
    proofs: bool = False,
    limits: InferenceLimits | None = None,
    case_axis: bool = True,
) -> list[dict]:
    """A group's results (ItemResult as JSON), its cases run in this process, in order — interleaved where they
    ask for their worlds when ``case_axis`` (``limits``: as
    ``run_case``; a frozen dataclass, so it travels to a pool's process with the chunk). ``case_axis``: the
    cases' numbers' worlds drawn together (``portfolio_axis``: the same results); False, each case alone."""
    packs = library(rules_dir)
    axis = CaseAxisRun(packs.memos) if case_axis and len(items) > 1 else None
    draw_worlds = axis.worlds if axis is not None else None

    def one(key: str, path: str, run_id: str) -> dict:
        try:
            return run_case(packs, key, path, run_id, proofs, limits, draw_worlds)
        except Exception as exc:  # as the per-case path: the case fails with its reason, the batch goes on
            why = f"{type(exc).__name__}: {exc}"[:500]
            return ItemResult(key=key, kind="case", status="error", message=why).model_dump(mode="json")

    tasks = [functools.partial(one, *item) for item in items]
    with rare_full_collections():
        return axis.run(tasks) if axis is not None else [task() for task in tasks]
