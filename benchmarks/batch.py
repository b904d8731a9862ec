"""Batch throughput: cases/s case by case (local pool) and in portfolio mode (issue 33: case files grouped by
pack and skeleton, one process per group, no snapshots), on 1 and 2 processes, medians of ``--repeat`` runs
interleaved in the same run (so the ratio is read under the same load); ``--celery`` adds the per-case path on
1 and 2 Celery workers. Prints the projection for 10,000 cases from the measured per-case CPU, and for 1,000,000 on N workers from
the measured per-chunk figures (``projection``).

Needs RabbitMQ (``LEXLOGIC_BROKER_URL``, default amqp://guest:guest@127.0.0.1:5672//) and PostgreSQL
(``LEXLOGIC_TEST_PG_URL``, default the local ``test`` database; a fresh schema is used and dropped).
Usage: ``.venv/bin/python benchmarks/batch.py [--cases 40] [--repeat 3] [--celery]``; ``--axis-ab``: portfolio
mode alone, old (each case's numbers' worlds drawn alone) vs new (a group's on a case axis), alternated. Workers are started
and killed here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.jobs.batch import run_batch
from lexlogic.engine.jobs.portfolio import run_portfolio
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.settings import SHIPPED_RULES, Settings
from tests.distributed.make_cases import write_cases

LEXLOGIC = str(Path(sys.executable).parent / "lexlogic")
BROKER = os.environ.get("LEXLOGIC_BROKER_URL", "amqp://guest:guest@127.0.0.1:5672//")
PG = os.environ.get("LEXLOGIC_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def start_worker(name: str, env: dict[str, str], home: Path) -> subprocess.Popen:
    log = home / f"{name}.log"
    proc = subprocess.Popen(
        [LEXLOGIC, "worker", "-c", "1", "-n", f"{name}@%h", "--log-level", "info"],
        env=env,
        cwd=home,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while b" ready." not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            kill(proc)
            raise SystemExit(f"worker {name} failed: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    return proc


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(20)


def timed(
    root: Path, db: str, portfolio: bool = False, batch_id: str | None = None, **kw: object
) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its finished children) for one fresh batch."""
    cpu0 = os.times()
    t0 = time.perf_counter()
    run = run_portfolio if portfolio else run_batch
    report = run(  # type: ignore[operator]
        root,
        packs=PackLibrary(SHIPPED_RULES),
        settings=Settings(),
        db_url=db,
        batch_id=batch_id or f"bench-{uuid.uuid4().hex[:8]}",
        **kw,
    )
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    assert len(report.results) == len(list(root.glob("*.json"))), report.summary
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    cpu += (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    return wall, cpu


CHUNKS: list[tuple[int, float]] = []  # (cases, CPU seconds) of each chunk run in this process (portfolio, 1 process)


@contextlib.contextmanager
def timed_chunks() -> Iterator[None]:
    """Record each portfolio chunk's size and CPU time while in-process (``run_group`` is called per chunk;
    restored after: a pool pickles ``run_group`` by name)."""
    from lexlogic.engine.jobs import portfolio

    inner = portfolio.run_group

    def run_group(rules_dir: str, items: list, proofs: bool = False, limits: object = None) -> list:
        c = time.process_time()
        out = inner(rules_dir, items, proofs, limits)  # type: ignore[arg-type]
        CHUNKS.append((len(items), time.process_time() - c))
        return out

    portfolio.run_group = run_group  # type: ignore[assignment]
    try:
        yield
    finally:
        portfolio.run_group = inner  # type: ignore[assignment]


def compare(cases: Path, warm: Path, db: str, n: int, repeat: int) -> tuple[list[tuple[str, float, float]], float]:
    """Case by case and portfolio on 1 and 2 processes, interleaved ``repeat`` times: (mode, median wall,
    median CPU) rows and the per-case CPU of the sequential per-case path."""
    for c in (1, 2):  # imports, spawned pools, the first evaluation
        timed(warm, db, distributed=False, concurrency=c)
        timed(warm, db, portfolio=True, concurrency=c)
    runs: dict[str, list[tuple[float, float]]] = {}
    CHUNKS.clear()
    for _ in range(repeat):
        for c in (1, 2):
            runs.setdefault(f"case by case, {c} process{'es' if c > 1 else ''}", []).append(
                timed(cases, db, distributed=False, concurrency=c)
            )
            with timed_chunks() if c == 1 else contextlib.nullcontext():
                runs.setdefault(f"portfolio, {c} process{'es' if c > 1 else ''}", []).append(
                    timed(cases, db, portfolio=True, concurrency=c)
                )
    rows = [(k, statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()]
    return rows, rows[0][2] / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--celery", action="store_true", help="also the per-case path on 1 and 2 Celery workers")
    ap.add_argument(
        "--axis-ab",
        action="store_true",
        help="portfolio mode old (each case's worlds alone) vs new (a group's worlds on a case axis), alternated",
    )
    ap.add_argument(
        "--portfolio-only",
        action="store_true",
        help="portfolio mode alone (a portfolio too large for the per-case path)",
    )
    args = ap.parse_args()
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    raw = PG.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    db = f"{PG}?options=-csearch_path%3D{schema}"
    prefix = f"lexlogic-bench-{uuid.uuid4().hex[:6]}"
    workers: list[subprocess.Popen] = []
    celery: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        cases, warm = home / "cases", home / "warm"
        write_cases(cases, args.cases)
        write_cases(warm, 2)
        env = {
            **os.environ,
            "LEXLOGIC_DATABASE_URL": db,
            "LEXLOGIC_BROKER_URL": BROKER,
            "LEXLOGIC_QUEUE_PREFIX": prefix,
            "LEXLOGIC_HOME": str(home),
        }
        os.environ.update({k: v for k, v in env.items() if k.startswith("LEXLOGIC_")})
        load0 = os.getloadavg()
        print(f"load average before: {load0[0]:.2f} on {os.cpu_count()} CPUs; {args.cases} cases, {args.repeat} runs")
        try:
            if args.axis_ab:
                axis_ab(cases, warm, db, args.cases, args.repeat)
                return
            if args.portfolio_only:
                portfolio_only(cases, warm, db, args.cases, args.repeat, load0[0])
                for n in (1, 2) if args.celery else ():
                    while len(workers) < n:
                        workers.append(start_worker(f"bench{len(workers) + 1}-{prefix}", env, home))
                    celery.append(on_celery(cases, warm, db, n, home))
                if celery:
                    celery_report(celery, args.cases, home)
                return
            rows, per_case_cpu = compare(cases, warm, db, args.cases, args.repeat)
            for n in (1, 2) if args.celery else ():
                while len(workers) < n:
                    workers.append(start_worker(f"bench{len(workers) + 1}-{prefix}", env, home))
                    timed(warm, db, distributed=True, timeout=300)  # warm each worker's pool process
                wall, _ = timed(cases, db, distributed=True, timeout=600)
                celery.append((f"Celery, {n} worker{'s' if n > 1 else ''} (-c 1), case by case", wall, float("nan")))
                celery.append(on_celery(cases, warm, db, n, home))
        finally:
            for w in workers:
                kill(w)
            if workers:
                from lexlogic.engine.jobs.tasks import celery_app

                with celery_app(Settings(), BROKER).connection_for_write() as conn:
                    for q in ("ingest", "analysis"):
                        conn.default_channel.queue_delete(f"{prefix}.{q}")
            with psycopg.connect(raw, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        print(f"load average after: {os.getloadavg()[0]:.2f} (before {load0[0]:.2f})")
        report(rows, celery, args.cases, per_case_cpu)
        projection(rows[1][2], args.cases, args.repeat)
        if celery:
            celery_report(celery, args.cases, home)  # the workers' logs are under ``home``


# --- portfolio chunks on the Celery workers ---------------------------------------------------------------
CELERY_RUNS: list[str] = []  # batch ids of the portfolio runs on Celery (their chunks are in the workers' logs)
CHUNK_LINE = re.compile(r"chunk (chunk-(\S+?)-[0-9a-f]{16}): (\d+) case\(s\) in ([\d.]+) s wall, ([\d.]+) s CPU")


def on_celery(cases: Path, warm: Path, db: str, n: int, home: Path) -> tuple[str, float, float]:
    """The portfolio on ``n`` Celery workers (-c 1), after a warm-up batch: (row name, wall, coordinator CPU)."""
    timed(warm, db, portfolio=True, distributed=True, timeout=600)  # the workers' imports and first grounding
    bid = f"bench-pf{n}-{uuid.uuid4().hex[:6]}"
    CELERY_RUNS.append(bid)
    print(f"  portfolio on {n} Celery worker(s): batch {bid}, load {os.getloadavg()[0]:.2f}", flush=True)
    wall, cpu = timed(cases, db, portfolio=True, distributed=True, timeout=1800, batch_id=bid)
    return (f"Celery, {n} worker{'s' if n > 1 else ''} (-c 1), portfolio chunks", wall, cpu)


def measured_chunks(home: Path) -> list[tuple[str, int, float, float]]:
    """(batch id, cases, wall s, CPU s) of every chunk the workers evaluated for the timed Celery runs."""
    out = []
    for log in sorted(home.glob("bench*.log")):
        for m in CHUNK_LINE.finditer(log.read_text(errors="replace")):
            if m.group(2) in CELERY_RUNS:
                out.append((m.group(2), int(m.group(3)), float(m.group(4)), float(m.group(5))))
    return out


def _q(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=10, method="inclusive")[8] if q == 0.9 and len(xs) > 1 else statistics.median(xs)


def celery_report(rows: list[tuple[str, float, float]], n: int, home: Path) -> None:
    """The Celery rows, the per-chunk figures measured in the workers, and the projection built from them."""
    print("\n| mode | wall (s) | coordinator CPU (s) | cases/s |\n|---|---:|---:|---:|")
    for name, wall, cpu in rows:
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {n / wall:.2f} |")
    chunks = measured_chunks(home)
    if not chunks:
        print("no chunk figures found in the workers' logs")
        return
    walls, cpus = [w for _, _, w, _ in chunks], [c for _, _, _, c in chunks]
    per_case = [w / k for _, k, w, _ in chunks]
    print(
        f"\nper chunk, measured in the workers ({len(chunks)} chunks of {min(k for _, k, _, _ in chunks)}–"
        f"{max(k for _, k, _, _ in chunks)} cases, both runs): wall median {statistics.median(walls) * 1000:.0f} ms, "
        f"p90 {_q(walls, 0.9) * 1000:.0f} ms; CPU median {statistics.median(cpus) * 1000:.0f} ms, "
        f"p90 {_q(cpus, 0.9) * 1000:.0f} ms; wall a case median {statistics.median(per_case) * 1000:.1f} ms, "
        f"p90 {_q(per_case, 0.9) * 1000:.1f} ms"
    )
    coordinator = min(cpu for name, _, cpu in rows if name.endswith("portfolio chunks")) / n
    celery_projection(chunks, coordinator)
    own = coordinator_work(home / "cases")
    print(
        f"\nthe coordinator's per-case work alone (discover, open the batch, group: measured here on the same cases) "
        f"is {own * 1000:.2f} ms a case: the rest of the {coordinator * 1000:.2f} ms above is its fixed start (the "
        f"pack read and compiled) and its polling over the run's wall time, which do not grow with the cases; with "
        f"{own * 1000:.2f} ms a case the coordinator's bound would be {1 / own:,.0f} cases/s instead of "
        f"{1 / coordinator:,.0f}"
    )


def coordinator_work(cases: Path) -> float:
    """CPU seconds a case of what the client does per case before the workers (a scratch SQLite database)."""
    from lexlogic.engine.jobs.batch import discover
    from lexlogic.engine.jobs.batch_store import BatchStore
    from lexlogic.engine.jobs.portfolio_groups import group_items
    from lexlogic.engine.store.cases import CaseStore

    packs = PackLibrary(SHIPPED_RULES)
    packs.pack("rupture_brutale")  # the fixed start, left out
    with tempfile.TemporaryDirectory() as tmp:
        store = CaseStore(f"sqlite:///{Path(tmp) / 'c.db'}")
        t0 = time.process_time()
        items = discover(cases)
        bstore = BatchStore.on(store.engine)
        bstore.open("c", str(cases), items)
        group_items(bstore.items("c"), packs)
        spent = time.process_time() - t0
        store.close()
    return spent / len(items)


def _fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares t = a + b·cases over the measured chunks (a ≥ 0)."""
    ks, ts = [k for k, _ in points], [t for _, t in points]
    mk, mt = statistics.fmean(ks), statistics.fmean(ts)
    var = sum((k - mk) ** 2 for k in ks)
    b = sum((k - mk) * (t - mt) for k, t in points) / var if var else mt / mk
    return max(0.0, mt - b * mk), b


def celery_projection(chunks: list[tuple[str, int, float, float]], coordinator: float) -> None:
    """10,000 and 1,000,000 cases on N workers from the chunks measured on the workers (see the assumptions)."""
    fits = {"CPU": _fit([(k, c) for _, k, _, c in chunks]), "wall": _fit([(k, w) for _, k, w, _ in chunks])}
    cols: list[tuple[str, float, float, float]] = []  # (label, a, b, scale)
    for what, (a, b) in fits.items():
        ratio = [(c if what == "CPU" else w) / (a + b * k) for _, k, w, c in chunks]
        print(
            f"fit of the chunks' {what}: {a * 1000:.1f} ms + {b * 1000:.1f} ms a case; measured/fit median "
            f"{statistics.median(ratio):.2f}, p90 {_q(ratio, 0.9):.2f}"
        )
        cols.append((f"{what} median", a, b, statistics.median(ratio)))
        if what == "CPU":
            cols.append((f"{what} p90", a, b, _q(ratio, 0.9)))
    print(f"coordinator (the client): {coordinator * 1000:.2f} ms CPU a case (its CPU in the run / cases), serial")
    print(
        "assumptions: make_cases.py's portfolio (16 skeletons, period 180) cut in chunks of ≤ 64; every worker "
        "runs chunks back to back, each taking the fit's a + b·cases scaled by the measured/fit median (p90: the "
        "pessimistic column); CPU columns: one free core per worker; wall column: the share of a core the workers "
        "had in this run; the broker and the database keep up; the coordinator works in parallel with the workers "
        "at the per-case cost measured here (so it bounds the rate: wall = max(work / N, cases × coordinator))"
    )
    for total in (10_000, 1_000_000):
        k = chunk_sizes(total)
        print(f"\n{total:,} cases ({len(k):,} chunks)  " + "".join(f"{c[0]:>26}" for c in cols))
        for w in (1, 2, 8, 32, 128):
            cells = []
            for _, a, b, r in cols:
                wall = max((len(k) * a + total * b) * r / w, total * coordinator)
                cells.append(f"{_duration(wall):>10} ({total / wall:7.1f}/s)")
            print(f"  {w:>4} worker{'s' if w > 1 else ' '}          " + "".join(f"{c:>26}" for c in cells))


def chunk_sizes(total: int) -> list[int]:
    """The chunks' sizes for ``total`` cases of make_cases.py's portfolio (its skeleton repeats every 180)."""
    from lexlogic.engine.jobs.portfolio import CHUNK
    from lexlogic.engine.jobs.portfolio_groups import skeleton
    from tests.distributed.make_cases import variation

    pack = PackLibrary(SHIPPED_RULES).pack("rupture_brutale")
    sizes: dict[str, int] = {}
    for i in range(180):
        k = skeleton(variation(i), pack)
        sizes[k] = sizes.get(k, 0) + len(range(i, total, 180))
    return [min(CHUNK, s - j) for s in sizes.values() for j in range(0, s, CHUNK)]


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def report(
    rows: list[tuple[str, float, float]], celery: list[tuple[str, float, float]], n: int, per_case: float
) -> None:
    """The table (medians, the portfolio's ratio to case by case on as many processes) and the projection."""
    print(
        "\n| mode | median wall (s) | median CPU (s) | cases/s | wall ratio vs case by case |\n|---|---:|---:|---:|---:|"
    )
    base = {1: rows[0][1], 2: rows[2][1]}
    for name, wall, cpu in [*rows, *celery]:
        k = 2 if "2 process" in name else 1
        ratio = f"{base[k] / wall:.2f}×" if name.startswith("portfolio") else ""
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {n / wall:.2f} | {ratio} |")
    pf_cpu = rows[1][2] / n
    print(f"\nper-case CPU, sequential: case by case {per_case * 1000:.0f} ms, portfolio {pf_cpu * 1000:.0f} ms")
    print("projection for 10,000 cases (per-case CPU × cases / workers, one core each):")
    for w in (1, 2, 8, 32):
        print(
            f"  {w:>3} workers: case by case {10_000 * per_case / w / 60:7.1f} min, "
            f"portfolio {10_000 * pf_cpu / w / 60:7.1f} min"
        )


def portfolio_only(cases: Path, warm: Path, db: str, n: int, repeat: int, load0: float) -> None:
    """Portfolio mode on 1 and 2 processes (medians of ``repeat``), then the 1,000,000-case projection."""
    for c in (1, 2):
        timed(warm, db, portfolio=True, concurrency=c)
    runs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    CHUNKS.clear()
    for _ in range(repeat):
        for c in (1, 2):
            with timed_chunks() if c == 1 else contextlib.nullcontext():
                runs[c].append(timed(cases, db, portfolio=True, concurrency=c))
    print(f"load average after: {os.getloadavg()[0]:.2f} (before {load0:.2f})")
    print("\n| mode | median wall (s) | median CPU (s) | cases/s |\n|---|---:|---:|---:|")
    for c, v in runs.items():
        wall, cpu = statistics.median(w for w, _ in v), statistics.median(x for _, x in v)
        print(f"| portfolio, {c} process{'es' if c > 1 else ''} | {wall:.2f} | {cpu:.2f} | {n / wall:.2f} |")
    projection(statistics.median(x for _, x in runs[1]), n, repeat)


@contextlib.contextmanager
def each_case_alone(old: bool) -> Iterator[None]:
    """``old``: the portfolio's chunks run without the case axis (``run_group(case_axis=False)``, the path before
    session 7); a spawned pool pickles the partial by its function's name, so both pool sizes run it."""
    import functools

    from lexlogic.engine.jobs import portfolio

    inner = portfolio.run_group
    if old:
        portfolio.run_group = functools.partial(inner, case_axis=False)  # type: ignore[assignment]
    try:
        yield
    finally:
        portfolio.run_group = inner  # type: ignore[assignment]


def axis_ab(cases: Path, warm: Path, db: str, n: int, repeat: int) -> None:
    """Portfolio mode on 1 and 2 processes, old (each case's worlds alone) vs new (the group's worlds on a case
    axis) alternated old/new/new/old ``repeat`` times in this run: medians of wall and CPU, cases/s, load."""
    for c in (1, 2):
        for old in (True, False):
            with each_case_alone(old):
                timed(warm, db, portfolio=True, concurrency=c)
    runs: dict[tuple[int, bool], list[tuple[float, float]]] = {}
    loads: list[float] = [os.getloadavg()[0]]
    for _ in range(repeat):
        for c in (1, 2):
            for old in (True, False, False, True):
                with each_case_alone(old):
                    runs.setdefault((c, old), []).append(timed(cases, db, portfolio=True, concurrency=c))
                loads.append(os.getloadavg()[0])
    print(f"load average during: {min(loads):.2f}–{max(loads):.2f} (each run: {', '.join(f'{x:.2f}' for x in loads)})")
    print(
        "\n| mode | worlds | runs | median wall (s) | median CPU (s) | cases/s | CPU a case (ms) |"
        "\n|---|---|---:|---:|---:|---:|---:|"
    )
    for (c, old), v in sorted(runs.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        wall, cpu = statistics.median(w for w, _ in v), statistics.median(x for _, x in v)
        what = "each case alone (old)" if old else "case axis (new)"
        procs = f"portfolio, {c} process{'es' if c > 1 else ''}"
        print(f"| {procs} | {what} | {len(v)} | {wall:.2f} | {cpu:.2f} | {n / wall:.1f} | {cpu * 1000 / n:.2f} |")


def projection(portfolio_cpu: float, n: int, repeat: int, total: int = 1_000_000) -> None:
    """1,000,000 cases of this portfolio on N workers, from the measured chunks: a chunk's CPU fitted as
    a + b·cases (least squares over every chunk of the in-process portfolio runs), the portfolio's groups at
    that size counted from the cases' skeletons (the skeleton repeats every 180 cases), chunks of 64; the
    coordinator's own CPU per case (reading, grouping, recording each result: the run's CPU minus its chunks')
    is serial. Assumes one free core per worker."""
    from lexlogic.engine.jobs.portfolio_groups import skeleton
    from tests.distributed.make_cases import variation

    ks = [k for k, _ in CHUNKS]
    cs = [c for _, c in CHUNKS]
    mk, mc = statistics.fmean(ks), statistics.fmean(cs)
    var = sum((k - mk) ** 2 for k in ks)
    b = sum((k - mk) * (c - mc) for k, c in zip(ks, cs)) / var if var else mc / mk
    a = max(0.0, mc - b * mk)
    coordinator = max(0.0, portfolio_cpu - sum(cs) / repeat) / n
    pack = PackLibrary(SHIPPED_RULES).pack("rupture_brutale")
    period = 180
    keys = [skeleton(variation(i), pack) for i in range(period)]
    sizes: dict[str, int] = {}
    for i, k in enumerate(keys):  # cases i, i+180, i+360, … below ``total`` share case i's skeleton
        sizes[k] = sizes.get(k, 0) + len(range(i, total, period))
    chunks = sum(-(-s // 64) for s in sizes.values())
    work = chunks * a + total * b
    print(
        f"\nper chunk (fit over {len(CHUNKS)} chunks of 1–{max(ks)} cases): {a * 1000:.1f} ms + {b * 1000:.1f} ms a case;"
        f" coordinator {coordinator * 1000:.1f} ms a case (serial)"
    )
    print(f"projection for {total:,} cases ({len(sizes)} groups, {chunks:,} chunks of ≤ 64), one core per worker:")
    for w in (1, 2, 8, 32, 128):
        wall = max(work / w, total * coordinator)
        print(f"  {w:>3} workers: {wall / 3600:8.2f} h  ({total / wall:8.1f} cases/s)")


if __name__ == "__main__":
    main()
