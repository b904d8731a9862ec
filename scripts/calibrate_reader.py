"""Fit the offline reader's calibration of a pack on perception sets the reader was never evaluated on
(issue 29, point 2) and write the pack's calibration file (pack.yaml ``files.calibration``, default
``calibration/reader.yaml``).

Model (see ``engine/perception/calibration.py``): an isotonic (PAV) map of the reader's raw score over all
readings pooled; then log-odds shifts for the fact's value type, for a reading marked as a party's
allegation, and for the fact itself, each shrunk toward its parent by a pseudo-count m (the type's or the
fact's frequency is (right + m·parent)/(n + m)). m is chosen by 5-fold cross-validation grouped by text
(log loss) on the fitting sets. A frozen set (a FROZEN file in it, or named heldout / transfer / frozen) is
refused: it is never read here.

``--sets`` takes set folders (a path, or a name under tests/perception). ``--choose-extra SET``: the rule
that decides, on the first set alone, whether another set joins the fit — grouped cross-validation over the
first set's texts, each held-out fold scored by a map fitted on the other folds with and without the extra
set; the extra set joins only if it lowers that held-out log loss (it can only help if its readings are
right as often as the first set's, which a set the reader was tuned on is not).

    .venv/bin/python scripts/calibrate_reader.py [--pack rupture_brutale] [--sets calib] [--choose-extra dev_indep]
        [--write] [--as-given-from T --why TEXT]
"""

from __future__ import annotations

import argparse
import math
import sys
from datetime import date
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import calibration as bench  # noqa: E402  (benchmarks/calibration.py: the readings and their scoring)

from lexlogic.engine.perception.calibration import FILE, ReaderCalibration, logit, sigmoid  # noqa: E402

SETS = ROOT / "tests" / "perception"
FROZEN_NAMES = {"heldout", "transfer", "frozen"}
LEVEL_PRIOR = 10.0
GRID = [2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0]


def pav(rows: list[dict[str, Any]]) -> list[list[float]]:
    """Isotonic regression of right on raw score (pool adjacent violators) over the distinct scores, each
    score's count padded with LEVEL_PRIOR readings at the pooled frequency (a score seen 4 times, all right,
    is not a certainty)."""
    levels: dict[float, list[int]] = {}
    for r in rows:
        levels.setdefault(r["raw"], []).append(int(r["right"]))
    pooled = sum(r["right"] for r in rows) / len(rows)
    blocks = [[x, sum(v) + LEVEL_PRIOR * pooled, len(v) + LEVEL_PRIOR] for x, v in sorted(levels.items())]
    merged: list[list[Any]] = []
    for b in blocks:
        merged.append([[b[0]], b[1], b[2]])
        while len(merged) > 1 and merged[-2][1] / merged[-2][2] > merged[-1][1] / merged[-1][2]:
            xs, r, n = merged.pop()
            merged[-1] = [merged[-1][0] + xs, merged[-1][1] + r, merged[-1][2] + n]
    return [[round(sum(xs) / len(xs), 4), round(r / n, 4)] for xs, r, n in merged]


def _shift(zs: list[float], right: int, m: float) -> float:
    """The log-odds shift δ that brings the mean of σ(z + δ) to the shrunk frequency (right + m·parent)/(n + m)."""
    parent = sum(sigmoid(z) for z in zs) / len(zs)
    target = (right + m * parent) / (len(zs) + m)
    lo, hi = -8.0, 8.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if sum(sigmoid(z + mid) for z in zs) / len(zs) < target:
            lo = mid
        else:
            hi = mid
    return round((lo + hi) / 2, 4)


def _grouped_shifts(rows: list[dict[str, Any]], z: dict[int, float], key: str, m: float) -> dict[str, float]:
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(str(r[key]), []).append(i)
    return {k: _shift([z[i] for i in ix], sum(rows[i]["right"] for i in ix), m) for k, ix in sorted(groups.items())}


def fit(rows: list[dict[str, Any]], m: float) -> dict[str, Any]:
    points = pav(rows)
    cal = ReaderCalibration(version=0, provenance="", fitted_on=[], pseudo_count=m, raw_points=points)
    z = {i: logit(cal.base(r["raw"])) for i, r in enumerate(rows)}
    by_type = _grouped_shifts(rows, z, "type", m)
    z = {i: z[i] + by_type[r["type"]] for i, r in enumerate(rows)}
    alleged_ix = [i for i, r in enumerate(rows) if r["alleged"]]
    alleged = _shift([z[i] for i in alleged_ix], sum(rows[i]["right"] for i in alleged_ix), m) if alleged_ix else 0.0
    z = {i: z[i] + (alleged if r["alleged"] else 0.0) for i, r in enumerate(rows)}
    by_fact = _grouped_shifts(rows, z, "fact", m)
    return {"raw_points": points, "by_type": by_type, "alleged": alleged, "by_fact": by_fact, "pseudo_count": m}


def predict(params: dict[str, Any], r: dict[str, Any]) -> float:
    cal = ReaderCalibration(version=0, provenance="", fitted_on=[], **params)
    return cal.confidence(r["fact"], r["type"], r["raw"], r["alleged"])


def log_loss(params: dict[str, Any], rows: list[dict[str, Any]]) -> float:
    total = 0.0
    for r in rows:
        p = predict(params, r)
        total -= math.log(p if r["right"] else 1 - p)
    return total / max(len(rows), 1)


def cross_validate(rows: list[dict[str, Any]], folds: int = 5) -> dict[float, float]:
    fold_of = folds_of(rows, folds)
    out = {}
    for m in GRID:
        loss = 0.0
        for k in range(folds):
            train = [r for r in rows if fold_of[r["text"]] != k]
            test = [r for r in rows if fold_of[r["text"]] == k]
            loss += log_loss(fit(train, m), test) * len(test)
        out[m] = loss / len(rows)
    return out


def set_dir(name: str) -> Path:
    """A set folder: a path as given, else a name under tests/perception. Refuses a frozen set."""
    path = Path(name) if Path(name).is_dir() else SETS / name
    if not path.is_dir():
        raise SystemExit(f"{name}: no such perception set (a folder, or a name under tests/perception)")
    if path.name in FROZEN_NAMES or any(path.glob("FROZEN*")):
        raise SystemExit(f"{path}: a frozen set is never fitted on")
    return path


def label(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def load_rows(sets: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in sets:
        path = set_dir(name)
        for r in bench.readings(path, raw=True):
            rows.append({**r, "raw": r["confidence"], "text": f"{label(path)}/{r['text']}"})
    return rows


def folds_of(rows: list[dict[str, Any]], folds: int = 5) -> dict[str, int]:
    texts = sorted({r["text"] for r in rows})
    return {t: i % folds for i, t in enumerate(texts)}


def extra_helps(rows: list[dict[str, Any]], extra: list[dict[str, Any]], m: float, folds: int = 5) -> dict[str, float]:
    """Held-out log loss and ECE on the first set's folds, fitted with and without the extra set (the rule of
    ``--choose-extra``: it looks at the first set only)."""
    fold_of = folds_of(rows, folds)
    out = {"alone": 0.0, "with_extra": 0.0}
    scored: dict[str, list[dict[str, Any]]] = {"alone": [], "with_extra": []}
    for k in range(folds):
        train = [r for r in rows if fold_of[r["text"]] != k]
        test = [r for r in rows if fold_of[r["text"]] == k]
        for key, fitted_on in (("alone", train), ("with_extra", train + extra)):
            params = fit(fitted_on, m)
            out[key] += log_loss(params, test) * len(test)
            scored[key] += [{"confidence": predict(params, r), "right": r["right"]} for r in test]
    return {
        "log_loss_alone": out["alone"] / len(rows),
        "log_loss_with_extra": out["with_extra"] / len(rows),
        "ece_alone": bench.ece(scored["alone"]),
        "ece_with_extra": bench.ece(scored["with_extra"]),
    }


def ece_of(params: dict[str, Any], rows: list[dict[str, Any]]) -> float:
    return bench.ece([{"confidence": predict(params, r), "right": r["right"]} for r in rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pack", default="rupture_brutale", help="the pack whose reader is calibrated")
    ap.add_argument("--sets", nargs="+", default=["calib"], help="set folders (or names under tests/perception)")
    ap.add_argument("--choose-extra", default=None, help="a set that joins the fit only if the rule says so")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--as-given-from", type=float, default=None)
    ap.add_argument("--why", default="", help="how the as-given threshold was chosen (provenance)")
    args = ap.parse_args()
    bench.use_pack(args.pack)
    by_set = {s: load_rows([s]) for s in args.sets}
    rows = [r for s in args.sets for r in by_set[s]]
    cv = cross_validate(rows)
    m = min(cv, key=lambda k: cv[k])
    print("grouped 5-fold CV log loss by pseudo-count:", {k: round(v, 4) for k, v in cv.items()}, "→ m =", m)
    for a in args.sets:  # leave one set out: does a calibration fitted on one writer's texts hold on another's?
        for b in args.sets:
            if a != b:
                print(f"fitted on {a}, ECE on {b}: {ece_of(fit(by_set[a], m), by_set[b]):.3f}")
    sets = list(args.sets)
    if args.choose_extra:
        extra = load_rows([args.choose_extra])
        verdict = extra_helps(rows, extra, m)
        joins = verdict["log_loss_with_extra"] < verdict["log_loss_alone"]
        print(
            f"rule --choose-extra {args.choose_extra} (held-out folds of {'+'.join(args.sets)}): "
            + ", ".join(f"{k} {v:.4f}" for k, v in verdict.items())
            + f" → {'joins' if joins else 'left out'}"
        )
        if joins:
            rows, sets = rows + extra, sets + [args.choose_extra]
    params = fit(rows, m)
    print(f"fitted on {'+'.join(sets)} ({len(rows)} readings): ECE in-sample {ece_of(params, rows):.3f}")
    print(yaml.safe_dump(params, allow_unicode=True, sort_keys=False))
    if args.write:
        write(params, args, sets, len(rows))


def write(params: dict[str, Any], args: argparse.Namespace, sets: list[str], n: int) -> None:
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name(args.pack)
    path = pack.root / (pack.manifest.files.calibration or FILE)
    old = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    fitted_on = [label(set_dir(s)) for s in sets]
    doc = {
        "version": int((old or {}).get("version", 0)) + 1,
        "reader": "offline",
        "provenance": (
            f"scripts/calibrate_reader.py --pack {args.pack} on {date.today().isoformat()}: {n} readings of the "
            f"offline reader on {', '.join(fitted_on)} (no frozen set), scored as benchmarks/perception.py scores; "
            f"isotonic map of the raw score (each score padded with {LEVEL_PRIOR:g} readings at the pooled "
            "frequency), then log-odds shifts per value type, allegation and fact, shrunk toward their parent by "
            "the pseudo-count chosen by grouped 5-fold cross-validation (log loss)"
            + (f"; --choose-extra {args.choose_extra}" if args.choose_extra else "")
        ),
        "fitted_on": fitted_on,
        **params,
        "as_given_from": args.as_given_from,
        "as_given_provenance": args.why,
    }
    ReaderCalibration.model_validate(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=110), encoding="utf-8")
    print("written", label(path))


if __name__ == "__main__":
    main()
