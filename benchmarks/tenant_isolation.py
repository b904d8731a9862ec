"""Benchmark: what issue 34's tenant isolation costs — a sandbox worker recycled when the tenant changes, and
an upload read once per content.

1. Sandbox: the median round trip of a one-line rule when every call is the SAME tenant (warm workers) vs
   when tenants ALTERNATE (each call meets a worker that served another tenant: recycled, a fresh one
   started). The peer is the same pool in the same run; the ratio is what a tenant change costs.
2. Ingestion: the median `ingest_isolated` of each file of the example dossier, read by the limited child
   (cold) vs found in the tenant's cache (the same bytes again: an upload then its run, or a re-upload).

    .venv/bin/python benchmarks/tenant_isolation.py [--calls 20]

Prints the load average beside the figures: on a shared machine they are indicative only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from lexlogic.engine.documents.isolated import ingest_isolated
from lexlogic.sandbox.pool import Limits, SandboxPool

RULE = "def rule(facts):\n    return {'ok': facts.get('x', 0) + 1}\n"
DOSSIER = Path(__file__).resolve().parents[1] / "examples/rupture_brutale/dossier"


def _ms(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def sandbox(calls: int) -> None:
    with SandboxPool(size=2, limits=Limits()) as pool:
        pool.run(RULE, {"x": 0}, scope="a")  # warm
        same = [_ms(lambda i=i: pool.run(RULE, {"x": i}, scope="a")) for i in range(calls)]
        alt = [_ms(lambda i=i: pool.run(RULE, {"x": i}, scope="ab"[i % 2] + str(i))) for i in range(calls)]
        same_med, alt_med = statistics.median(same), statistics.median(alt)
        print(
            f"sandbox, one-line rule, {calls} calls: same tenant median {same_med:.1f} ms; a new tenant each call "
            f"median {alt_med:.1f} ms (ratio {alt_med / same_med:.1f}x); recycled for a tenant: {pool.recycled_for_tenant}"
        )


def ingestion() -> None:
    cold, warm = [], []
    with tempfile.TemporaryDirectory() as cache:
        for path in sorted(DOSSIER.iterdir()):
            cold.append(_ms(lambda path=path: ingest_isolated(path, cache=Path(cache))))
            warm.append(_ms(lambda path=path: ingest_isolated(path, cache=Path(cache))))
    print(
        f"ingestion, {len(cold)} files of the example dossier: read by the child median {statistics.median(cold):.0f} ms "
        f"(max {max(cold):.0f}); the same bytes again, from the tenant's cache, median {statistics.median(warm):.2f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    sandbox(args.calls)
    ingestion()
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
