"""Benchmark (issue 31, point 4): does the pack's range of reasonable notice hold the courts' figures?

For each decision of ``rules/rupture_brutale/calibration/caselaw_notice.csv`` (relation length in years,
notice the court retained in months, split ``fit`` / ``holdout``), builds a case with only that length known
(a relation of N years, total rupture notified on 15/01/2018 — the decisions apply the former L.442-6 I 5°,
so no 18-month ceiling — no written notice) and reads the pack's range [reasonable_notice_low,
reasonable_notice_high]. Prints, per split: how many court figures fall inside the range, and the range's
median width, twice: factors (dependence, investments, exclusivity, private label) UNKNOWN — what a fresh
case gives — and factors ABSENT.

    .venv/bin/python benchmarks/notice_courts.py [--pack rules/rupture_brutale] [--csv FILE]

Before/after: export the older pack (``git archive <commit> rules/rupture_brutale | tar -x -C /tmp/before``)
and pass ``--pack /tmp/before/rules/rupture_brutale`` with the same ``--csv``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from datetime import date
from pathlib import Path

from lexlogic.engine.packs.library import load_folder
from lexlogic.engine.symbolic.analysis import analyse
from lexlogic.logic.calendar import add_months
from lexlogic.logic.facts import parse_case

ROOT = Path(__file__).resolve().parent.parent
NOTIFICATION = date(2018, 1, 15)
FACTORS = ("economic_dependence_proven", "dedicated_investments", "exclusivity", "private_label")


def decisions(path: Path) -> list[tuple[float, float, str]]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return [(float(r["years"]), float(r["months"]), r.get("split") or "fit") for r in csv.DictReader(lines)]


def case_facts(years: float, factors_absent: bool) -> dict[str, object]:
    start = add_months(NOTIFICATION, -round(years * 12))
    facts: dict[str, object] = {
        "claimant_activity": "distribution", "court_specialised": True, "regular_orders": True,
        "orders_count": 100, "rupture_kind": "total", "relation_start": start.isoformat(),
        "notification_date": NOTIFICATION.isoformat(), "notice_written": True, "notice_given_months": 0,
    }  # fmt: skip
    if factors_absent:
        facts |= dict.fromkeys(FACTORS, False)
    return facts


def ranges(pack_dir: Path, rows: list[tuple[float, float, str]], factors_absent: bool) -> list[tuple[float, float]]:
    loaded = load_folder(pack_dir)
    pack, program = loaded.pack, loaded.program
    out = []
    for i, (years, _, _) in enumerate(rows):
        facts = {k: v for k, v in case_facts(years, factors_absent).items() if k in pack.facts}
        values = analyse(
            pack, program, parse_case({"pack": pack.name, "case_id": f"d{i}", "facts": facts}, pack)
        ).values
        lo, hi = values["reasonable_notice_low"], values["reasonable_notice_high"]
        out.append((float(lo.value), float(hi.value)) if lo.known and hi.known else (float("nan"), float("nan")))
    return out


def report(label: str, rows: list[tuple[float, float, str]], rs: list[tuple[float, float]]) -> None:
    for split in ("fit", "holdout", None):
        pairs = [(r, m) for (y, m, s), r in zip(rows, rs) if split is None or s == split]
        inside = sum(1 for (lo, hi), m in pairs if lo <= m <= hi)
        widths = [hi - lo for (lo, hi), _ in pairs]
        name = split or "all"
        print(f"{label} [{name}]: {inside}/{len(pairs)} court figures inside the range, median width "
              f"{statistics.median(widths):.1f} months")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", default=str(ROOT / "rules" / "rupture_brutale"))
    ap.add_argument("--csv", default=str(ROOT / "rules" / "rupture_brutale" / "calibration" / "caselaw_notice.csv"))
    a = ap.parse_args()
    rows = decisions(Path(a.csv))
    for absent in (False, True):
        rs = ranges(Path(a.pack), rows, absent)
        report(f"factors {'absent' if absent else 'unknown'}", rows, rs)
        if not absent:
            for (y, m, s), (lo, hi) in zip(rows, rs):
                print(
                    f"    {y:>4g} y → court {m:>4g} m, range [{lo:g}, {hi:g}] {'in' if lo <= m <= hi else 'OUT'} ({s})"
                )


if __name__ == "__main__":
    main()
