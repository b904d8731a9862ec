"""Evidence-graph benchmark: ingest 100,000 raw assertions and promote; traversal latency at depth 3.

Targets (issue 9): ≥ 20,000 assertions/s ingested; traversal p50 < 5 ms at depth 3.
Ingestion = JSON-shaped dict → validated RawAssertion → constraint check → append-only journal →
incremental aggregation, through the batch API ``MemoryKG.ingest_many`` (one pydantic TypeAdapter call
over the list, every constraint of every assertion checked, all or nothing). Promotion = thresholds +
grade + tier + log for every canonical relation. Also measured: the SQL journal (SQLite file) for the
same batch, for reference — both ``KGStore.append`` of validated assertions and ``KGStore.ingest_many``
of raw rows. Wall time and the CPU time of this process are both printed: the machine is shared.

    .venv/bin/python benchmarks/kg.py            # 100,000 assertions, 3 runs, medians
    .venv/bin/python benchmarks/kg.py --quick    # 20,000 assertions, 1 run
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexlogic.engine.kg.model import RawAssertion
from lexlogic.engine.kg.store import KGStore, MemoryKG
from lexlogic.engine.kg.traverse import STRICT_ONLY, Graph

KINDS = [
    ("EXPLICIT", None, "APPLIES_TO", "{s} applies to {o}.", ()),
    ("EXPLICIT", None, "REQUIRES", "{s} requires {o}.", ()),
    ("DISCURSIVE", "ALTERNATIVE", "ALTERNATIVE_TO", "Payment may be made by {s} or by {o}.", ("or",)),
    ("DISCURSIVE", "DEFAULT", "APPLIES_TO", "By default, {s} applies to {o}.", ("by default",)),
    ("DISCURSIVE", "EXCEPTION", "REQUIRES", "{s} must include {o}, unless agreed.", ("unless",)),
    ("DISCURSIVE", "ALTERNATIVE", "ALTERNATIVE_TO", "{s} instead of {o}.", ("instead of",)),
]


def make_rows(n: int, n_entities: int, seed: int = 7) -> list[dict]:
    """Assertions over ~n/2.5 distinct keys, so that most keys get repeated support in several sections."""
    rng = random.Random(seed)
    n_keys = max(1, int(n / 2.5))
    keys = [(rng.randrange(n_entities), rng.randrange(n_entities), rng.randrange(len(KINDS))) for _ in range(n_keys)]
    rows = []
    for i in range(n):
        s, o, k = keys[rng.randrange(n_keys)]
        kind, basis, rel, template, markers = KINDS[k]
        subj, obj = f"entity {s}", f"entity {o}"
        text = template.format(s=subj, o=obj)
        doc = f"doc{rng.randrange(500)}"
        rows.append(
            {
                "id": f"a{i:07d}",
                "subject": subj,
                "relation": rel,
                "object": obj,
                "kind": kind,
                "basis": basis,
                "method": "PATTERN",
                "markers": list(markers),
                "bundle": {
                    "spans": [
                        {
                            "doc_id": doc,
                            "section": f"Article {rng.randrange(20)}",
                            "char_start": 0,
                            "char_end": len(text),
                            "text": text,
                        }
                    ]
                },
            }
        )
    return rows


def bench_memory(rows: list[dict]) -> tuple[float, float, float, float, MemoryKG, object]:
    """(wall ingest, wall promote, cpu ingest, cpu promote, kg, result): CPU time is reported too because
    the shared machine's load inflates wall time."""
    kg = MemoryKG()
    t0, c0 = time.perf_counter(), time.process_time()
    kg.ingest_many(rows)
    t1, c1 = time.perf_counter(), time.process_time()
    result = kg.promote()
    t2, c2 = time.perf_counter(), time.process_time()
    return t1 - t0, t2 - t1, c1 - c0, c2 - c1, kg, result


def bench_sql(rows: list[dict]) -> tuple[float, float]:
    """(append of pre-validated assertions, ingest_many of the raw rows) wall seconds, batches of 10,000."""
    assertions = [RawAssertion.model_validate(r) for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        store = KGStore(f"sqlite:///{tmp}/bench.db")
        t0 = time.perf_counter()
        for i in range(0, len(assertions), 10_000):
            store.append("bench", assertions[i : i + 10_000])
        appended = time.perf_counter() - t0
        renamed = [dict(r, id=f"{r['id']}-rows") for r in rows]  # journal ids are unique across cases
        t0 = time.perf_counter()
        for i in range(0, len(renamed), 10_000):
            store.ingest_many("bench-rows", renamed[i : i + 10_000])
        ingested = time.perf_counter() - t0
        store.engine.dispose()
    return appended, ingested


def bench_traversal(graph: Graph, samples: int, seed: int = 11) -> tuple[float, float, float]:
    rng = random.Random(seed)
    starts = rng.sample(sorted(graph.entities()), min(samples, len(graph.entities())))
    times, sizes = [], []
    for entity in starts:
        t0 = time.perf_counter()
        edges = graph.traverse(entity, STRICT_ONLY, max_depth=3)
        times.append(time.perf_counter() - t0)
        sizes.append(len(edges))
    times.sort()
    return statistics.median(times) * 1e3, times[int(len(times) * 0.95)] * 1e3, statistics.median(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int, default=None, help="number of raw assertions")
    parser.add_argument("--entities", type=int, default=None, help="distinct entities (default n/5)")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--no-sql", action="store_true", help="skip the SQLite journal measurement")
    args = parser.parse_args()
    n = args.n or (20_000 if args.quick else 100_000)
    runs = args.runs or (1 if args.quick else 3)
    rows = make_rows(n, args.entities or max(10, n // 5))
    ingest, prom, total, cpu_ingest, cpu_prom = [], [], [], [], []
    kg = result = None
    for _ in range(runs):
        t_ingest, t_promote, c_ingest, c_promote, kg, result = bench_memory(rows)
        ingest.append(n / t_ingest)
        prom.append(t_promote)
        total.append(n / (t_ingest + t_promote))
        cpu_ingest.append(n / c_ingest)
        cpu_prom.append(c_promote)
    tiers = result.by_tier()  # type: ignore[union-attr]
    print(
        f"raw assertions: {n:,}  canonical relations: {len(kg.aggregator):,}  "  # type: ignore[union-attr]
        f"promoted: {len(result.relations):,} (STRICT {tiers['STRICT']:,}, EXTENDED {tiers['EXTENDED']:,})"
    )  # type: ignore[union-attr]
    print(
        f"ingest (validate + check + journal + aggregate): median {statistics.median(ingest):,.0f} assertions/s "
        f"over {runs} run(s)  [target ≥ 20,000/s: {'OK' if statistics.median(ingest) >= 20_000 else 'MISSED'}]"
    )
    print(
        f"  same, per CPU second of this process (load-independent): median "
        f"{statistics.median(cpu_ingest):,.0f} assertions/s"
    )
    print(
        f"promote: median {statistics.median(prom):.2f} s wall, {statistics.median(cpu_prom):.2f} s CPU; "
        f"ingest+promote end to end: median {statistics.median(total):,.0f} assertions/s (wall)"
    )
    try:
        load = os.getloadavg()[0]
        print(f"machine load average (1 min): {load:.1f} on {os.cpu_count()} CPUs")
    except OSError:
        pass
    graph = Graph(result.relations)  # type: ignore[union-attr]
    p50, p95, size = bench_traversal(graph, 2_000 if not args.quick else 500)
    print(
        f"traversal depth 3 (STRICT), {len(graph):,} edges: p50 {p50:.3f} ms, p95 {p95:.3f} ms, "
        f"median edges reached {size:.0f}  [target p50 < 5 ms: {'OK' if p50 < 5 else 'MISSED'}]"
    )
    if not args.no_sql:
        sql_n = min(n, 20_000 if args.quick else 100_000)
        appended, ingested = bench_sql(rows[:sql_n])
        print(
            f"SQL journal (SQLite file, synchronous=FULL, batches of 10,000): append {sql_n / appended:,.0f} "
            f"assertions/s ({sql_n:,} in {appended:.2f} s); ingest_many from rows {sql_n / ingested:,.0f} "
            f"assertions/s ({ingested:.2f} s)"
        )


if __name__ == "__main__":
    main()
