"""Issue 33, session 8: the CPU of a NEW prior-only what-if in-process (``VerdictService.verdict_json``, the API's
path minus HTTP), old and new IN THE SAME RUN: rounds alternated old/new/new/old, each side an exported tree on
PYTHONPATH, each round its own process (a fresh service warmed by the case's verdict, then N priors never asked).
Prints the median CPU ms a what-if per round, the medians and ratio, and whether the bodies (sha256 over all of
them) are identical old vs new. ``owned_memos.py``'s what-if, without its portfolio and batch parts.
Run: .venv/bin/python benchmarks/whatif_cpu.py [--old REF] [--new REF] [--rounds 4] [--whatifs 60]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from owned_memos import WHATIF, export, run  # the same export, subprocess and what-if code (this folder on sys.path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main")
    ap.add_argument("--new", default="HEAD")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--whatifs", type=int, default=60)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lexlogic-whatif-cpu-"))
    sides = {"old": export(a.old, tmp / "old"), "new": export(a.new, tmp / "new")}
    print(f"old {a.old}, new {a.new}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    ms: dict[str, list[float]] = {"old": [], "new": []}
    shas: dict[str, set[str]] = {"old": set(), "new": set()}
    for r in range(a.rounds):
        who = "old" if r % 4 in (0, 3) else "new"
        src = sides[who][0]
        w = json.loads(run(sides[who], ["-c", WHATIF, str(a.whatifs), "0", str(a.rounds), str(src)]))
        ms[who].append(w["ms"])
        shas[who].add(w["sha"])
        print(
            f"round {r + 1} {who}: {w['ms']:.2f} ms CPU a new what-if (median of {a.whatifs}); "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    mo, mn = statistics.median(ms["old"]), statistics.median(ms["new"])
    print(f"ms CPU a new what-if: old {mo:.2f}, new {mn:.2f}, new/old {mn / mo:.3f}")
    print(f"what-if bodies identical old vs new: {shas['old'] == shas['new'] and len(shas['old']) == 1}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
