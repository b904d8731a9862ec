"""Variations of ``examples/rupture_brutale/facts.json``: a portfolio for batch tests and benchmarks.

Deterministic (case ``i`` is always the same): the notice given, the relation's start, the fault, the
dependence and the rupture kind vary; every fifth case leaves facts out so that the analysis asks for them.
Usage: ``python tests/distributed/make_cases.py OUT_DIR [N]``.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text(encoding="utf-8"))


def variation(i: int) -> dict:
    case = copy.deepcopy(EXAMPLE)
    f = case["facts"]
    case["case_id"] = f"portfolio-{i:04d}"
    f["claimant_name"] = f"Fournisseur {i:04d} SAS"
    f["notice_given_months"] = [0, 1, 3, 6, 9, 12, 18][i % 7]
    f["relation_start"] = f"{2004 + (i * 3) % 19}-{1 + i % 12:02d}-04"
    f["fault_alleged"] = i % 3 == 0
    f["fault_proven"] = i % 6 == 0
    f["fault_serious"] = i % 12 == 0
    f["economic_dependence_proven"] = i % 4 == 1
    f["rupture_kind"] = "partial_volume" if i % 9 == 4 else "total"
    f["annual_gross_margin"] = {"2021": 100_000 + 7_000 * i, "2022": 110_000 + 6_500 * i, "2023": 95_000 + 8_000 * i}
    if i % 5 == 2:  # left out: the analysis needs them
        for name in ("notice_written", "fault_tolerated", "regular_orders"):
            f.pop(name, None)
    return case


def write_cases(out: Path, n: int = 40) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        p = out / f"case-{i:04d}.json"
        p.write_text(json.dumps(variation(i), ensure_ascii=False, indent=1), encoding="utf-8")
        paths.append(p)
    return paths


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "portfolio")
    print(f"{len(write_cases(target, int(sys.argv[2]) if len(sys.argv) > 2 else 40))} cases in {target}")
