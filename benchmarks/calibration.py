"""Are the reader's confidences probabilities? Expected calibration error and precision by confidence band
(issue 29, point 2), on the perception sets.

Every fact the offline reader emits on a text is one reading: its confidence (after the pack's calibration,
``rules/<pack>/calibration.yaml``, when there is one; ``--raw`` for the reader's own score) against whether
it is right, scored as ``benchmarks/perception.py`` scores (right value, an allegation never taken as a fact;
a reading of a fact newer than a frozen set, or an allegation of a fact the gold says is not asserted, is not
scored). Printed per set:

- ECE: Σ_b (n_b / n) · |accuracy_b − mean confidence_b| over 10 equal-width bins of confidence;
- precision by confidence band;
- the readings that enter the model as given (``as_given``: calibrated confidence at or above the pack's
  threshold) and their precision — the issue's target is ≥ 0.97;
- the lowest confidence t from which the readings at or above t have precision ≥ 0.97 on this set (the rule
  that chooses the threshold on the transfer set).

    .venv/bin/python benchmarks/calibration.py [DIR ...] [--raw] [--json] [--pack NAME]

Sets: tests/perception/calib (blind, the calibration is fitted there: ``scripts/calibrate_reader.py``), dev and
dev_indep (the reader was tuned on them), tests/perception/heldout and transfer (frozen: only scored);
late_payment: tests/perception/late_payment/calib (fitting) and frozen (only scored), with ``--pack late_payment``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import perception as perc  # the scoring of benchmarks/perception.py, shared

BANDS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99, 1.0001]
TARGET = 0.97


def use_pack(name: str) -> None:
    perc.use_pack(name)


def readings(directory: Path, raw: bool = False) -> list[dict[str, Any]]:
    """(fact, value type, confidence, right, as_given) for every scored reading of the set's texts."""
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name(perc.PACK)
    types = {name: spec.type.value for name, spec in pack.facts.items()}
    out: list[dict[str, Any]] = []
    for item in perc.load_set(directory):
        facts = read_raw(item) if raw else perc.extract_offline(item)
        if item.get("_vocabulary"):
            facts = {k: v for k, v in facts.items() if k in item["_vocabulary"]}
        rows = {r["fact"]: r for r in perc.score_item(item, facts, types)["rows"]}
        for name, fv in facts.items():
            row = rows.get(name)
            if row is None:  # an allegation of a fact the gold says is not asserted: not scored
                continue
            out.append(
                {
                    "text": item["id"],
                    "fact": name,
                    "type": types.get(name, "str"),
                    "confidence": float(fv.get("confidence", 1.0)),
                    "right": bool(row["tp"]),
                    "as_given": bool(fv.get("as_given")),
                    "alternatives": len(fv.get("alternatives") or []),
                    "alleged": perc.is_alleged(fv),
                    "spans": len(fv.get("grounding") or []),
                    "kind": str(item.get("kind")),
                    "author": str(item.get("author_party")),
                }
            )
    return out


def read_raw(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The reader's own scores, without the pack's calibration."""
    from lexlogic.engine.perception.model import to_case_file
    from lexlogic.engine.perception.offline import extract

    pack = perc._pack_obj()
    return to_case_file(extract([perc.to_document(item)], pack, calibrate=False), str(item["id"]), pack)["facts"]


def ece(rows: list[dict[str, Any]], bins: int = 10) -> float:
    n = len(rows)
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        cell = [r for r in rows if lo <= r["confidence"] < hi or (b == bins - 1 and r["confidence"] == 1.0)]
        if cell:
            acc = sum(r["right"] for r in cell) / len(cell)
            conf = sum(r["confidence"] for r in cell) / len(cell)
            total += len(cell) / n * abs(acc - conf)
    return total


def bands(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for lo, hi in zip(BANDS, BANDS[1:]):
        cell = [r for r in rows if lo <= r["confidence"] < hi]
        right = sum(r["right"] for r in cell)
        out.append(
            {
                "band": f"[{lo:.2f}, {min(hi, 1.0):.2f}{']' if hi > 1 else ')'}",
                "n": len(cell),
                "right": right,
                "precision": right / len(cell) if cell else None,
                "mean_confidence": sum(r["confidence"] for r in cell) / len(cell) if cell else None,
            }
        )
    return out


def precise_from(rows: list[dict[str, Any]], target: float = TARGET) -> float | None:
    """The lowest confidence t (among those read) such that the readings at or above t have precision ≥ target."""
    for t in sorted({r["confidence"] for r in rows}):
        above = [r for r in rows if r["confidence"] >= t]
        if above and sum(r["right"] for r in above) / len(above) >= target:
            return t
    return None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    given = [r for r in rows if r["as_given"]]
    return {
        "readings": len(rows),
        "right": sum(r["right"] for r in rows),
        "mean_confidence": round(sum(r["confidence"] for r in rows) / max(len(rows), 1), 4),
        "ece": round(ece(rows), 4),
        "bands": bands(rows),
        "as_given": len(given),
        "as_given_right": sum(r["right"] for r in given),
        "as_given_precision": round(sum(r["right"] for r in given) / len(given), 4) if given else None,
        "precise_from": precise_from(rows),
        "wrong_as_given": [f"{r['text']}: {r['fact']} ({r['confidence']:.3f})" for r in given if not r["right"]],
    }


def show(name: str, s: dict[str, Any]) -> None:
    acc = s["right"] / max(s["readings"], 1)
    print(
        f"== {name}: {s['readings']} readings, accuracy {acc:.3f}, mean confidence {s['mean_confidence']:.3f}, "
        f"ECE {s['ece']:.3f}"
    )
    print(f"   {'band':16} {'n':>4} {'right':>5} {'precision':>9} {'mean conf':>9}")
    for b in s["bands"]:
        if b["n"]:
            print(f"   {b['band']:16} {b['n']:4} {b['right']:5} {b['precision']:9.3f} {b['mean_confidence']:9.3f}")
    gp = "—" if s["as_given_precision"] is None else f"{s['as_given_precision']:.3f}"
    print(f"   entered as given: {s['as_given']} readings, {s['as_given_right']} right, precision {gp}")
    for w in s["wrong_as_given"]:
        print(f"     wrong and entered as given: {w}")
    t = s["precise_from"]
    print(f"   readings at or above confidence {t if t is None else round(t, 4)} have precision ≥ {TARGET}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path, default=[perc.HELDOUT, ROOT / "tests" / "perception" / "transfer"])
    ap.add_argument("--raw", action="store_true", help="the reader's own scores, without the pack's calibration")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--pack", default=perc.PACK, help="the pack whose reader is scored (its sets)")
    args = ap.parse_args()
    use_pack(args.pack)
    results = {str(d): summary(readings(d, args.raw)) for d in args.dirs}
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"confidences: {'raw (reader)' if args.raw else 'as the reader gives them (calibrated when the pack is)'}")
    for d, s in results.items():
        show(Path(d).name, s)


if __name__ == "__main__":
    main()
