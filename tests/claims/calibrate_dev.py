"""Joint calibration on the DEV sets only: tests/claims/data/dev/claims.yaml + the project's eval_fr/holdout_fr."""

import itertools
import sys
from collections import Counter

import yaml

from lexlogic.engine.claims.judge_reading import ReadingJudge, ReadingThresholds
from lexlogic.engine.claims.retrieval import HybridMemory
from lexlogic.engine.claims.verify import verify_all
from lexlogic.engine.documents.ingest import ingest_dossier
from tests.claims.evaluate import load_dossiers, load_pairs

sets = []
bisc = HybridMemory.build(ingest_dossier("examples/rupture_brutale/dossier"))
sets.append(
    ("dev", [(bisc, it["claim"], it["status"]) for it in yaml.safe_load(open("tests/claims/data/dev/claims.yaml"))])
)
sets.append(
    ("dev2", [(bisc, it["claim"], it["status"]) for it in yaml.safe_load(open("tests/claims/data/dev/claims2.yaml"))])
)
ds = load_dossiers()
mems = {n: HybridMemory.build(d) for n, d in ds.items()}
for name in ("eval_fr.jsonl", "holdout_fr.jsonl"):
    sets.append((name, [(mems[p["dossier"]], p["claim"], p["label"]) for p in load_pairs(name)]))


def run(th):
    j = ReadingJudge(th)
    out = {}
    for name, items in sets:
        cm = Counter()
        for mem, c, g in items:
            cm[(g, verify_all(mem, [c], k=10, judge=j)[0].status.value)] += 1
        out[name] = (
            sum(v for (g, p), v in cm.items() if g == p),
            len(items),
            cm[("UNKNOWN", "VERIFIED")] + cm[("CONTRADICTED", "VERIFIED")],
        )
    return out


grid = {}
for arg in sys.argv[1:]:
    k, vals = arg.split("=")
    grid[k] = [float(v) for v in vals.split(",")]
keys = list(grid)
for combo in itertools.product(*[grid[k] for k in keys]) if keys else [()]:
    th = ReadingThresholds(**dict(zip(keys, combo)))
    res = run(th)
    tot = sum(r[0] for r in res.values())
    n = sum(r[1] for r in res.values())
    dang = sum(r[2] for r in res.values())
    print(
        dict(zip(keys, combo)),
        f"total {tot}/{n} dangerous {dang}",
        {k: v[:1] + v[2:] for k, v in res.items()},
        flush=True,
    )
