"""The portfolio's group evaluation alone, in this process: CPU ms a case, and the result lines to compare.

Why (issue 33): ``benchmarks/batch.py`` measures the whole batch (PostgreSQL, the coordinator, spawned pools), whose
wall and CPU on this shared 2-core machine move with the load more than a change does. This runs only what a
chunk runs — N cases of ``tests/distributed/make_cases.py`` grouped by skeleton, chunks of 64,
``portfolio_groups.run_group`` per chunk — and prints the CPU per case with the load, then writes the result lines
(sorted by key, one JSON a line) so that two versions' outputs can be compared byte for byte (``cmp``). Run the old
code from an exported tree on ``PYTHONPATH`` and the new one, alternated, and read the ratio.
Usage: ``.venv/bin/python benchmarks/portfolio_inprocess.py N OUT.jsonl CASES_DIR`` (CASES_DIR written if needed).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # appended: an exported tree on PYTHONPATH wins

from lexlogic.engine.jobs import portfolio_groups as groups
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.settings import SHIPPED_RULES
from tests.distributed.make_cases import write_cases


def chunks_of(cases: Path, packs: PackLibrary) -> list[list[tuple[str, str, str]]]:
    """The cases by skeleton, largest group first, cut in chunks of 64 (as ``portfolio.cut``)."""
    by: dict[str, list[tuple[str, str, str]]] = {}
    for p in sorted(cases.glob("*.json")):
        raw = json.loads(p.read_text(encoding="utf-8"))
        key = groups.skeleton(raw, packs.pack(raw.get("pack")))
        by.setdefault(key, []).append((p.stem, str(p), f"run-{p.stem}"))
    ordered = sorted(by.values(), key=lambda g: -len(g))
    return [g[i : i + 64] for g in ordered for i in range(0, len(g), 64)]


def main() -> None:
    n, out, cases = int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    if len(list(cases.glob("*.json"))) != n:
        write_cases(cases, n)
    packs = PackLibrary(SHIPPED_RULES)
    chunks = chunks_of(cases, packs)
    load0 = os.getloadavg()[0]
    c0, t0 = time.process_time(), time.perf_counter()
    lines = [line for c in chunks for line in groups.run_group(str(SHIPPED_RULES), c, False)]
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    print(
        f"{n} cases, {len(chunks)} chunks ({groups.__file__}): CPU {cpu * 1000 / n:.1f} ms a case, "
        f"wall {wall:.1f} s = {n / wall:.1f} cases/s; load {load0:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    text = "\n".join(json.dumps(x, sort_keys=True) for x in sorted(lines, key=lambda x: x["key"]))
    out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
