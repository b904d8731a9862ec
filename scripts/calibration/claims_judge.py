"""Joint calibration of the reading judge on the DEVELOPMENT sets only (never on ``data/independent/``).

    .venv/bin/python scripts/calibration/claims_judge.py [name=v1,v2 ...]   # grid over ReadingThresholds fields

Sets: ``tests/claims/data/dev/claims*.yaml`` and ``tests/claims/data/dev_indep/claims.yaml`` (the shipped dossier) and the project's
``eval_fr.jsonl`` / ``holdout_fr.jsonl`` (six other dossiers). Prints per set: right answers and dangerous
errors (UNKNOWN or CONTRADICTED judged VERIFIED); thresholds are chosen with zero dangerous errors first.
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: the tests' scorers and data

import yaml

from lexlogic.engine.claims.judge_reading import ReadingJudge, ReadingThresholds
from lexlogic.engine.claims.retrieval import HybridMemory
from lexlogic.engine.claims.verify import verify_all
from lexlogic.engine.documents.ingest import ingest_dossier
from tests.claims.evaluate import load_dossiers, load_pairs
from tests.claims.independent import DOSSIER

DEV = Path(__file__).resolve().parents[2] / "tests" / "claims" / "data" / "dev"


def dev_sets() -> list[tuple[str, list[tuple[HybridMemory, str, str]]]]:
    shipped = HybridMemory.build(ingest_dossier(DOSSIER))
    out = []
    for name in ("claims.yaml", "claims2.yaml", "claims3.yaml", "claims4.yaml"):
        items = yaml.safe_load((DEV / name).read_text(encoding="utf-8"))
        out.append((name, [(shipped, it["claim"], it["status"]) for it in items]))
    indep = DEV.parent / "dev_indep" / "claims.yaml"  # written by an independent writer (issue 19, 2nd session)
    if indep.exists():
        items = yaml.safe_load(indep.read_text(encoding="utf-8"))
        out.append(("dev_indep", [(shipped, it["claim"], it["status"]) for it in items]))
    mems = {n: HybridMemory.build(d) for n, d in load_dossiers().items()}
    for name in ("eval_fr.jsonl", "holdout_fr.jsonl"):
        out.append((name, [(mems[p["dossier"]], p["claim"], p["label"]) for p in load_pairs(name)]))
    return out


def run(sets: list, th: ReadingThresholds) -> dict[str, tuple[int, int, int]]:
    judge = ReadingJudge(th)
    out = {}
    for name, items in sets:
        cm: Counter = Counter()
        for mem, claim, gold in items:
            cm[(gold, verify_all(mem, [claim], k=10, judge=judge)[0].status.value)] += 1
        right = sum(v for (g, p), v in cm.items() if g == p)
        out[name] = (right, len(items), cm[("UNKNOWN", "VERIFIED")] + cm[("CONTRADICTED", "VERIFIED")])
    return out


def main(argv: list[str]) -> None:
    grid = {k: [float(v) for v in vals.split(",")] for k, vals in (a.split("=") for a in argv)}
    keys = list(grid)
    sets = dev_sets()
    for combo in itertools.product(*[grid[k] for k in keys]):
        res = run(sets, ReadingThresholds(**dict(zip(keys, combo))))
        tot, n, dang = (sum(r[i] for r in res.values()) for i in range(3))
        per = {k: f"{v[0]}/{v[1]} ({v[2]} dangerous)" for k, v in res.items()}
        print(dict(zip(keys, combo)), f"total {tot}/{n}, dangerous {dang}", per, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
