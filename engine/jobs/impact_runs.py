"""`lexlogic impact`'s runs: every case and dossier of a portfolio under two versions of the rules, run as
the service runs a case (the case FSM: perception for a dossier, the plan, a fatal defeater settling the case
without the probabilistic model), then read back as typed verdicts for the workbench to compare.

Why here: the workbench reads verdicts and never drives a case; running is this room's job. Both versions
are ONE batch: each case twice (items ``base/<key>`` and ``new/<key>``), each copy carrying its own rules
folder, so two versions of one pack name run side by side, and an item's digest covers its rules (a changed
candidate is re-run, an unchanged one resumes). The batch runs in this process (``here``: one run after
another on the given store) or through ``run_batch`` (the local process pool, or Celery workers when a
broker is configured); either way the final states are read back from the store, so the reports are the
same (tests/workbench/test_impact_batch.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from lexlogic.engine.case.machine import CaseState, Orchestrator, read_state
from lexlogic.engine.jobs.batch import _create_run, discover, run_batch
from lexlogic.engine.jobs.batch_store import BatchItemRow, BatchStore, Item
from lexlogic.engine.jobs.tasks import Job
from lexlogic.engine.store.cases import CaseStore, LeaseTimes, UnreadableState
from lexlogic.engine.workbench.impact import CaseRuns, ImpactError, ImpactReport, Rules, compare, read_jsonl
from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import Settings

SIDES = ("base", "new")
Mode = Literal["here", "batch"]


def portfolio_items(path: Path, scratch: Path) -> list[Item]:
    """The portfolio's items: under a folder, its case files and dossier folders (the batch's ``discover``);
    a JSON-lines file, one case file per line, written under ``scratch`` (key ``cases.jsonl:N``)."""
    if path.is_dir():
        items = discover(path)
        if not items:
            raise ImpactError(f"{path}: no case file (*.json with facts) and no dossier folder")
        return items
    if not path.is_file():
        raise ImpactError(f"{path}: no such file or folder")
    items = []
    for n, (key, raw) in enumerate(read_jsonl(path), start=1):
        text = json.dumps(raw, ensure_ascii=False, sort_keys=True)
        file = scratch / f"case-{n:05d}.json"
        file.write_text(text, encoding="utf-8")
        items.append(Item(key=key, kind="case", path=str(file), digest=hashlib.sha256(text.encode()).hexdigest()))
    return items


def side_items(items: list[Item], base: Rules, new: Rules) -> list[Item]:
    """Each item once per version, carrying that version's rules folder; its digest covers the rules."""
    out = []
    for name, rules in zip(SIDES, (base, new), strict=True):
        version = rules.digest()
        for it in items:
            digest = hashlib.sha256(f"{it.digest}:{version}".encode()).hexdigest()
            out.append(
                it.model_copy(update={"key": f"{name}/{it.key}", "digest": digest, "rules_dir": str(rules.folder)})
            )
    return out


def batch_id_for(portfolio: Path, base: Rules, new: Rules) -> str:
    seed = f"{portfolio.resolve()}|{base.digest()}|{new.digest()}"
    return "i" + hashlib.sha1(seed.encode()).hexdigest()[:12]


def impact(
    portfolio: Path,
    base: Rules,
    new: Rules,
    *,
    scratch: Path,
    mode: Mode = "here",
    settings: Settings | None = None,
    db_url: str | None = None,
    distributed: bool | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImpactReport:
    """Run the portfolio under both versions (``mode``) and compare the verdicts. ``db_url``: where the runs
    are kept (default: a scratch SQLite file, in this process only; a batch on workers needs the shared one).
    ``settings``: the caller's (its broker, leases, document cache); None: ``Settings.defaults()``."""
    settings = settings or Settings.defaults()
    items = portfolio_items(portfolio, scratch)
    both = side_items(items, base, new)
    batch_id = batch_id_for(portfolio, base, new)
    url = db_url or f"sqlite:///{scratch / 'impact.db'}"
    if mode == "here":
        store = CaseStore(url, LeaseTimes.from_settings(settings))
        try:
            _run_here(store, batch_id, both, {"base": base, "new": new}, progress, settings.documents_cache)
        finally:
            store.close()
    else:
        run_batch(
            portfolio if portfolio.is_dir() else portfolio.parent,
            packs=new.library,
            settings=settings,
            db_url=url,
            batch_id=batch_id,
            items=both,
            distributed=distributed,
            concurrency=concurrency,
            timeout=timeout,
            on_progress=progress,
        )
    store = CaseStore(url)
    try:
        runs = collect(store, batch_id, items)
    finally:
        store.close()
    return compare(runs, base, new)


def _run_here(
    store: CaseStore,
    batch_id: str,
    items: list[Item],
    rules: dict[str, Rules],
    progress: Callable[[int, int], None] | None,
    documents_cache: Path | None = None,
) -> None:
    """The batch's items one after another in this process: the same item records, the same FSM."""
    bstore = BatchStore.on(store.engine)
    bstore.open(batch_id, "impact", items)
    rows = bstore.items(batch_id, [i.key for i in items])
    for n, row in enumerate(rows, start=1):
        if row.status == "pending":
            _run_item(store, bstore, batch_id, row, rules[row.key.split("/", 1)[0]], documents_cache)
        if progress:
            progress(n, len(rows))


def _run_item(
    store: CaseStore,
    bstore: BatchStore,
    batch_id: str,
    row: BatchItemRow,
    rules: Rules,
    documents_cache: Path | None = None,
) -> None:
    packs = rules.library
    if not _create_run(store, bstore, batch_id, row, packs):
        return  # invalid: recorded with its reason
    latest = store.latest(row.run_id)
    assert latest is not None
    job = Job(kind="batch", batch_id=batch_id, key=row.key, rules_dir=str(packs.root))
    try:
        state = read_state(latest[1], f"run {row.run_id}")  # UnreadableState: a LexlogicError, said in the line
        if state.status == "running":
            orch = Orchestrator(store, packs=packs, job=job.model_dump(), documents_cache=documents_cache)
            state = orch.run(state)
    except (LexlogicError, ValueError, OSError) as exc:  # the case fails, not the impact: said in its line
        bstore.fail(batch_id, row.key, f"{type(exc).__name__}: {exc}"[:500])
        return
    bstore.complete(batch_id, row.key, row.run_id, state)


def collect(store: CaseStore, batch_id: str, items: list[Item]) -> list[CaseRuns]:
    """Each portfolio item with its two verdicts, read from the runs' final states."""
    rows = {r.key: r for r in BatchStore.on(store.engine).items(batch_id)}
    out = []
    for it in items:
        runs = CaseRuns(key=it.key, case_id=it.key)
        for name in SIDES:
            row = rows.get(f"{name}/{it.key}")
            state = _final_state(store, row)
            if isinstance(state, str):
                runs.error = runs.error or f"{name}: {state}"
                continue
            runs.pack = state.pack
            if it.kind == "case" and state.case_file and state.case_file.get("case_id"):
                runs.case_id = str(state.case_file["case_id"])
            setattr(runs, name, state.evaluation)
        out.append(runs)
    return out


def _final_state(store: CaseStore, row: BatchItemRow | None) -> CaseState | str:
    """The run's last state, or why there is no verdict to compare (invalid item, failed or unfinished run)."""
    if row is None or row.status != "done":
        return "not run"
    result = row.result or {}
    if result.get("status") == "invalid":
        return str(result.get("message") or "invalid")
    latest = store.latest(row.run_id)
    if latest is None:
        return "no run"
    try:
        state = read_state(latest[1], f"run {row.run_id}")
    except UnreadableState as exc:
        return str(exc)
    if state.evaluation is None:
        return f"{state.status}: {state.message}" if state.message else state.status
    return state
