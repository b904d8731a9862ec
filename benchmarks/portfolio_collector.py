"""A portfolio chunk's CPU with and without rare full collections (``portfolio_groups.rare_full_collections``).

Why (issue 33, session 6, helper 33o): full collections of the cyclic collector walked the process's long-lived
structures at ~12 % of a chunk's CPU. This runs N cases of ``tests/distributed/make_cases.py`` in chunks of 64 by
skeleton (``run_group`` per chunk, as a pool's process does) in fresh processes, old/new/new/old: « old » is
``run_group`` without ``rare_full_collections`` (the only difference), « new » the code as it is. Each prints its
CPU a case, the collector's own time (``gc.callbacks``), its collections per generation, its max RSS and the load;
the result lines of old and new are compared byte for byte.
Usage: ``.venv/bin/python benchmarks/portfolio_collector.py [N=400] [CASES_DIR=/tmp/collector_cases]``.
"""

from __future__ import annotations

import collections
import contextlib
import filecmp
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))
sys.path.append(str(ROOT / "benchmarks"))

from portfolio_inprocess import chunks_of

from lexlogic.engine.jobs import portfolio_groups as groups
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.settings import SHIPPED_RULES
from tests.distributed.make_cases import write_cases


def one(mode: str, n: int, cases: Path, out: Path) -> None:
    """One run in this process: ``mode`` old (no ``rare_full_collections``) or new."""
    if mode == "old":
        groups.rare_full_collections = contextlib.nullcontext  # type: ignore[assignment]
    spent = [0.0, 0.0]
    counts: collections.Counter[int] = collections.Counter()

    def timer(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            spent[1] = time.process_time()
        else:
            spent[0] += time.process_time() - spent[1]
            counts[info["generation"]] += 1

    gc.callbacks.append(timer)
    packs = PackLibrary(SHIPPED_RULES)
    chunks = chunks_of(cases, packs)
    load0 = os.getloadavg()[0]
    c0 = time.process_time()
    lines = [line for c in chunks for line in groups.run_group(str(SHIPPED_RULES), c, False)]
    cpu = time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    gens = " / ".join(str(counts[g]) for g in range(3))
    print(
        f"{mode}: CPU {cpu * 1000 / n:.2f} ms a case, of it the collector {spent[0] * 1000 / n:.2f} ms "
        f"(collections gen 0/1/2: {gens}); max RSS {rss:.0f} MB; load {load0:.2f} -> {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    text = "\n".join(json.dumps(x, sort_keys=True) for x in sorted(lines, key=lambda x: x["key"]))
    out.write_text(text + "\n", encoding="utf-8")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("old", "new"):
        one(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    cases = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/collector_cases")
    if len(list(cases.glob("*.json"))) != n:
        write_cases(cases, n)
    with tempfile.TemporaryDirectory() as tmp:
        outs = {m: Path(tmp) / f"{m}.jsonl" for m in ("old", "new")}
        for mode in ("old", "new", "new", "old"):
            cmd = [sys.executable, __file__, mode, str(n), str(cases), str(outs[mode])]
            subprocess.run(cmd, check=True)
        same = filecmp.cmp(outs["old"], outs["new"], shallow=False)
        print(f"{n} cases: result lines old and new {'identical' if same else 'DIFFERENT'}")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
