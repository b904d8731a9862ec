"""Portfolio mode (``lexlogic batch --portfolio``): a folder of case files analysed by groups.

Why: case by case, each item is a run of its own, persisted at every transition (~10 snapshots of ~10 KB)
and evaluated in whatever process picks it up, so two cases with the same model structure rebuild its
grounding, compiled circuit and contraction plans in different processes (the prob caches are per process
and bounded). Here the case files are grouped by pack and SKELETON — the pack, which facts are given and
how (a yes/no or enum fact with its value, any other fact only as present; an uncertain reading as such) —
which fixes the symbolic program and the model's structure up to the numbers; a group runs in one process,
its cases one after the other, so the work shared by a group (the pack and its compiled rules, each model
structure's grounding, circuit and plans) is done once per group, and nothing is persisted but each
item's result (the batch's record, so a re-run resumes). Each case still goes through the same state machine
and the same evaluator as the per-case path (in memory), so its result is the per-case result: the test
checks it on the 40-case portfolio. Dossier folders (documents to read) are left to the per-case path.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from lexlogic.engine.jobs.batch import BatchReport, batch_id_for, discover, run_batch
from lexlogic.engine.jobs.batch_store import BatchStore, ItemResult
from lexlogic.engine.jobs.patience import DEFAULT_LIMIT, Patience
from lexlogic.engine.jobs.portfolio_groups import Group, group_items, run_group
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob.inference_plan import InferenceLimits
from lexlogic.engine.store.cases import CaseStore, LeaseTimes
from lexlogic.settings import Settings

# --- many groups, on a pool --------------------------------------------------------------------------------
CHUNK = 64  # cases a chunk at most: the unit of a pool process or a Celery task


def cut(groups: list[Group], chunk: int = CHUNK) -> list[list[tuple[str, str, str]]]:
    """The groups' chunks (slices of ≤ ``chunk`` cases of one group), largest first."""
    chunks = [g.items[i : i + chunk] for g in groups for i in range(0, len(g.items), chunk)]
    chunks.sort(key=len, reverse=True)
    return chunks


def run_groups(
    groups: list[Group],
    rules_dir: str,
    *,
    proofs: bool,
    workers: int,
    on_results: Callable[[list[dict]], None],
    chunk: int = CHUNK,
    limits: InferenceLimits | None = None,
) -> None:
    """Every group, on ``workers`` spawned processes (in this one when 1). A large group is cut into chunks
    of ``chunk`` cases (each chunk pays the group's shared work once); chunks go largest first. ``limits``:
    the inference thresholds of the caller's Settings, given to every chunk's evaluator."""
    chunks = cut(groups, chunk)
    if workers <= 1 or len(chunks) <= 1:
        for c in chunks:
            on_results(run_group(rules_dir, c, proofs, limits))
        return
    from lexlogic.engine.jobs.local_pool import die_with_parent

    with ProcessPoolExecutor(
        max_workers=min(workers, len(chunks)),
        mp_context=get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        futures = [pool.submit(run_group, rules_dir, c, proofs, limits) for c in chunks]
        for f in as_completed(futures):
            on_results(f.result())


# --- the batch -----------------------------------------------------------------------------------------------
def run_portfolio(
    root: str | Path,
    *,
    packs: PackLibrary,
    settings: Settings | None = None,
    db_url: str | None = None,
    batch_id: str | None = None,
    concurrency: int | None = None,
    proofs: bool = False,
    on_item: Callable[[ItemResult, int, int], None] | None = None,
    distributed: bool | None = False,
    timeout: float | None = None,
    outage_limit: float = DEFAULT_LIMIT,
    on_notice: Callable[[str], None] | None = None,
) -> BatchReport:
    """The batch of ``root`` in portfolio mode: case files by groups (this module), then anything else
    (dossiers) by the per-case path; the same batch record, so a re-run resumes either way. ``settings``: the
    caller's (its database, broker, leases); None: ``Settings.defaults()``. ``distributed``: the chunks on the
    Celery workers (None: when a broker is configured; False, the default here: a local pool of
    ``concurrency`` processes). As the per-case path: database/broker outages are waited out up to
    ``outage_limit`` s (``on_notice`` says why), and ``timeout`` bounds the wait for the workers."""
    settings = settings or Settings.defaults()
    root = Path(root).resolve()
    items = discover(root)
    bid = batch_id or batch_id_for(root)
    notice = on_notice or (lambda msg: None)
    patience = Patience(notice, limit=outage_limit)
    remote = bool(settings.broker_url) if distributed is None else distributed
    t0 = time.monotonic()
    store = patience.call(CaseStore, db_url or settings.database, LeaseTimes.from_settings(settings))
    try:
        bstore = patience.call(BatchStore.on, store.engine)
        patience.call(bstore.open, bid, str(root), items)
        rows = patience.call(bstore.items, bid, [i.key for i in items])
        skipped = sum(r.status == "done" for r in rows)
        pending = [r for r in rows if r.status == "pending" and r.kind == "case"]
        groups, invalid = group_items(pending, packs)
        for key, why in invalid.items():
            patience.call(bstore.fail, bid, key, why)
        done = [skipped + len(invalid)]

        def announce(r: ItemResult) -> None:
            done[0] += 1
            if on_item is not None:
                on_item(r, done[0], len(items))

        if remote:
            _on_workers(store, bstore, bid, groups, settings, packs, proofs, patience, notice, announce, timeout)
        else:
            limits = InferenceLimits.of(settings)  # the caller's thresholds, to the chunks' evaluators
            _on_pool(bstore, bid, groups, packs, proofs, limits, concurrency, patience, announce)
    finally:
        store.close()
    left = max(1.0, timeout - (time.monotonic() - t0)) if timeout else None
    kw: dict[str, Any] = {"concurrency": concurrency, "on_notice": on_notice, "outage_limit": outage_limit}
    rest = run_batch(
        root, packs=packs, settings=settings, db_url=db_url, batch_id=bid, distributed=remote, timeout=left, **kw
    )
    return rest.model_copy(update={"mode": "portfolio_celery" if remote else "portfolio", "skipped": skipped})


def _on_pool(
    bstore: BatchStore,
    bid: str,
    groups: list[Group],
    packs: PackLibrary,
    proofs: bool,
    limits: InferenceLimits,
    concurrency: int | None,
    patience: Patience,
    announce: Callable[[ItemResult], None],
) -> None:
    """The groups on a local pool; each chunk's results recorded in one transaction (through outages)."""

    def record(results: list[dict]) -> None:
        for r, new in zip(results, patience.call(bstore.record_many, bid, results)):
            if new:
                announce(ItemResult.model_validate(r))

    workers = max(1, concurrency or os.cpu_count() or 1)
    run_groups(groups, str(packs.root), proofs=proofs, workers=workers, on_results=record, limits=limits)


def _on_workers(
    store: CaseStore,
    bstore: BatchStore,
    bid: str,
    groups: list[Group],
    settings: Settings,
    packs: PackLibrary,
    proofs: bool,
    patience: Patience,
    notice: Callable[[str], None],
    announce: Callable[[ItemResult], None],
    timeout: float | None,
) -> None:
    """The groups' chunks as Celery tasks (``engine.jobs.chunks``), waited for."""
    from lexlogic.engine.jobs.chunk_dispatch import Dispatch
    from lexlogic.engine.jobs.chunks import ChunkJob, chunk_id

    rules = str(packs.root)
    plan = [
        (
            chunk_id(bid, [run for _, _, run in c]),
            ChunkJob(batch_id=bid, keys=[k for k, _, _ in c], rules_dir=rules, proofs=proofs),
        )
        for c in cut(groups)
    ]
    n = sum(len(job.keys) for _, job in plan)
    if plan:
        notice(f"{n} case(s) in {len(groups)} group(s), {len(plan)} chunk(s) of ≤ {CHUNK}: on the workers")
    Dispatch(
        store=store,
        bstore=bstore,
        batch_id=bid,
        settings=settings,
        patience=patience,
        notice=notice,
        on_item=announce,
        deadline=time.monotonic() + timeout if timeout else None,
        timeout=timeout,
        chunks=plan,
    ).run()
