"""Cross-validated calibration of the memory navigator on DEVELOPMENT data (never the frozen set).

Every development text is also a memory row (``engine/fallacies/data/dev_memory_fr.yaml``, and the earlier
sets in ``labelled_memory_fr.yaml``), so each is scored with its own fold held out of the memory
(``FallacyMemory.scores(exclude=…)``). The thresholds (τ, β, m) are then cross-validated too: for each fold
they are fitted on the other folds' texts and applied to this one. The figures printed per part are those
out-of-fold predictions; ``fit_all`` fits once on everything (what ships).

    .venv/bin/python -m tests.fallacies.cv [--folds 5]
"""

from __future__ import annotations

import argparse
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from lexlogic.engine.fallacies.detectors import detect
from lexlogic.engine.fallacies.memory import builtin_memory
from lexlogic.engine.fallacies.navigators.knn import KnnThresholds
from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy
from tests.fallacies.independent import FAMILY_NODES

DATA = Path(__file__).parent / "data"
MS = (1, 2, 3)
BETAS = tuple(round(b, 3) for b in np.arange(0.0, 0.161, 0.01))
TAUS = tuple(round(t, 4) for t in np.arange(-0.06, 0.10, 0.0025))
THETAS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01)  # 1.01: the linear head off
# sound texts kept clean: ≥ 95 % over all the parts' sound texts (122) and ≥ 80 % on each part (a 12-text
# part moves by 8 % per text, so a 90 % floor per part let one text decide the thresholds)
CLEAN_POOLED = 0.95
CLEAN_PART = 0.80


def group_of(leaf: str) -> str:
    """The independent writers' family label whose subtree holds ``leaf`` (else the taxonomy family)."""
    tax = builtin_taxonomy()
    up = {a.id for a in tax.ancestors(leaf)} | {leaf}
    for label, nodes in FAMILY_NODES.items():
        if up & nodes:
            return label
    return tax.family(leaf).id


@dataclass
class Item:
    text: str
    gold: str | None  # family label, None = sound
    part: str
    fold: int = 0
    per_m: dict[int, tuple[dict[str, float], float]] = field(default_factory=dict)
    dets: dict[str, float] = field(default_factory=dict)
    p: float = 0.0  # P(fallacious) from the linear head trained without this text's fold


def load_items() -> list[Item]:
    items: list[Item] = []
    for sub in ("dev", "dev_indep"):
        folder = DATA / sub
        if not folder.is_dir() or (folder / "FROZEN").exists():
            continue
        for src in sorted(folder.glob("*.yaml")):
            for d in yaml.safe_load(src.read_text(encoding="utf-8")) or []:
                bad = d.get("fallacious", d["family"] != "none")
                items.append(Item(" ".join(d["text"].split()), d["family"] if bad else None, f"{sub}/{src.name}"))
    for name in ("eval_fr.yaml", "holdout2_fr.yaml"):
        for d in yaml.safe_load((DATA / name).read_text(encoding="utf-8")):
            gold = None if d["label"] == "none" else group_of(d.get("fallacy") or d["label"])
            items.append(Item(" ".join(d["text"].split()), gold, "earlier (eval_fr + holdout2_fr)"))
    return items


def assign_folds(items: list[Item], k: int) -> None:
    """Deterministic stratified folds: within each (part, gold) stratum, by hash order, round robin."""
    strata: dict[tuple[str, str | None], list[Item]] = {}
    for it in items:
        strata.setdefault((it.part, it.gold), []).append(it)
    offset = 0
    for key in sorted(strata, key=str):
        group = sorted(strata[key], key=lambda it: hashlib.sha1(it.text.encode()).hexdigest())
        for i, it in enumerate(group):
            it.fold = (i + offset) % k
        offset += len(group)


def folds_by_part(items: list[Item]) -> int:
    """One fold per part (leave one writer's set out): the nearest estimate of a new writer."""
    parts = sorted({it.part for it in items})
    for it in items:
        it.fold = parts.index(it.part)
    return len(parts)


def precompute(items: list[Item], k: int) -> None:
    """Scores of every text with its whole fold held out of the memory (and of the linear head)."""
    from lexlogic.bridges.embeddings import embed_queries

    mem = builtin_memory()
    row_of: dict[str, list[int]] = {}
    for i, r in enumerate(mem.rows):
        row_of.setdefault(r.text, []).append(i)
    held = {
        f: np.array(sorted(i for it in items if it.fold == f for i in row_of.get(it.text, [])), dtype=np.int64)
        for f in range(k)
    }
    heads = {f: mem.fit_head(exclude=held[f]) for f in range(k)}
    vecs = embed_queries([it.text for it in items])
    for it, q in zip(items, vecs):
        it.per_m = {m: mem.scores(q, m, exclude=held[it.fold])[:2] for m in MS}
        it.dets = {d.node: d.strength for d in detect(it.text)}
        it.p = float(heads[it.fold].probability(q))


def predict(it: Item, tau: float, beta: float, m: int, theta: float = 1.01) -> str | None:
    scores, sound = it.per_m[m]
    comb = {leaf: v + beta * it.dets.get(leaf, 0.0) for leaf, v in scores.items()}
    leaf = max(comb, key=lambda x: comb[x])
    return leaf if comb[leaf] - sound >= tau or it.p >= theta else None


def figures(items: list[Item], preds: list[str | None]) -> tuple[float, float, float]:
    sound = [p for it, p in zip(items, preds) if it.gold is None]
    bad = [(it, p) for it, p in zip(items, preds) if it.gold is not None]
    clean = sum(p is None for p in sound) / max(len(sound), 1)
    det = sum(p is not None for _, p in bad) / max(len(bad), 1)
    right = sum(p is not None and group_of(p) == it.gold for it, p in bad) / max(len(bad), 1)
    return clean, det, right


def fit(items: list[Item], thetas: tuple[float, ...] = THETAS) -> tuple[float, int, float, float, float]:
    """(objective, m, β, τ, θ): sound texts kept clean (``CLEAN_POOLED``, ``CLEAN_PART``), maximise Σ parts
    (family + detected / 2);
    ties → the median of the tied grid points. Vectorised per (m, β)."""
    parts = sorted({it.part for it in items})
    part_idx = np.array([parts.index(it.part) for it in items])
    sound = np.array([it.gold is None for it in items])
    p = np.array([it.p for it in items])
    n_sound = np.array([max(int((sound & (part_idx == j)).sum()), 1) for j in range(len(parts))])
    n_bad = np.array([max(int((~sound & (part_idx == j)).sum()), 1) for j in range(len(parts))])
    results = []
    for m in MS:
        for beta in BETAS:
            margin = np.empty(len(items))
            right_leaf = np.zeros(len(items), dtype=bool)
            for i, it in enumerate(items):
                scores, ref = it.per_m[m]
                comb = {leaf: v + beta * it.dets.get(leaf, 0.0) for leaf, v in scores.items()}
                leaf = max(comb, key=lambda x: comb[x])
                margin[i] = comb[leaf] - ref
                right_leaf[i] = it.gold is not None and group_of(leaf) == it.gold
            for theta in thetas:
                by_p = p >= theta
                for tau in TAUS:
                    fired = (margin >= tau) | by_p
                    kept = np.bincount(part_idx, weights=sound & ~fired, minlength=len(parts))
                    if (kept / n_sound).min() < CLEAN_PART or kept.sum() < CLEAN_POOLED * sound.sum():
                        continue
                    det = np.bincount(part_idx, weights=~sound & fired, minlength=len(parts)) / n_bad
                    right = np.bincount(part_idx, weights=fired & right_leaf, minlength=len(parts)) / n_bad
                    results.append((round(float((right + det / 2).sum()), 6), m, beta, tau, theta))
    top = max(r[0] for r in results)
    tied = sorted(r for r in results if r[0] == top)
    return tied[len(tied) // 2]


def cross_validate(items: list[Item], k: int, thetas: tuple[float, ...] = THETAS) -> list[str | None]:
    preds: list[str | None] = [None] * len(items)
    for f in range(k):
        _, m, beta, tau, theta = fit([it for it in items if it.fold != f], thetas)
        for i, it in enumerate(items):
            if it.fold == f:
                preds[i] = predict(it, tau, beta, m, theta)
    return preds


def report(items: list[Item], preds: list[str | None], title: str) -> None:
    print(title)
    for p in sorted({it.part for it in items}):
        sub = [(it, pr) for it, pr in zip(items, preds) if it.part == p]
        c, d, r = figures([s[0] for s in sub], [s[1] for s in sub])
        ns = sum(it.gold is None for it, _ in sub)
        nb = len(sub) - ns
        print(
            f"  {p:<34} clean {c:6.1%} ({round(c * ns)}/{ns})  detected {d:6.1%} ({round(d * nb)}/{nb})  "
            f"family {r:6.1%} ({round(r * nb)}/{nb})"
        )


def per_family(items: list[Item], preds: list[str | None], part_prefix: str = "") -> None:
    det: Counter[str] = Counter()
    right: Counter[str] = Counter()
    n: Counter[str] = Counter()
    for it, p in zip(items, preds):
        if it.gold is None or not it.part.startswith(part_prefix):
            continue
        n[it.gold] += 1
        det[it.gold] += p is not None
        right[it.gold] += p is not None and group_of(p) == it.gold
    for fam in sorted(n):
        print(f"    {fam:<22} detected {det[fam]}/{n[fam]}  family {right[fam]}/{n[fam]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--errors", default="", help="print out-of-fold errors of the parts starting with this")
    ap.add_argument("--by-part", action="store_true", help="folds = the parts (leave one writer's set out)")
    ap.add_argument("--no-detectors", action="store_true", help="the memory alone (β has no effect)")
    ap.add_argument("--no-head", action="store_true", help="without the linear head (θ off)")
    ap.add_argument("--write", action="store_true", help="write engine/fallacies/data/knn_thresholds.json")
    args = ap.parse_args()
    items = load_items()
    k = folds_by_part(items) if args.by_part else args.folds
    if not args.by_part:
        assign_folds(items, k)
    precompute(items, k)
    if args.no_detectors:
        for it in items:
            it.dets = {}
    thetas = (1.01,) if args.no_head else THETAS
    preds = cross_validate(items, k, thetas)
    how = "leave-one-part-out" if args.by_part else f"{k}-fold"
    report(items, preds, f"{how} cross-validation (memory, head and thresholds out of fold):")
    per_family(items, preds)
    obj, m, beta, tau, theta = fit(items, thetas)
    print(f"fitted on everything: m={m} β={beta} τ={tau} θ={theta} (objective {obj})")
    fitted = [predict(it, tau, beta, m, theta) for it in items]
    report(items, fitted, "  with these thresholds (memory and head still out of fold):")
    if args.errors:
        for it, pr in zip(items, preds):
            wrong = (pr is None) != (it.gold is None) or (it.gold and pr and group_of(pr) != it.gold)
            if it.part.startswith(args.errors) and wrong:
                print(f"ERR {it.gold or 'none':>20} -> {pr or '-':<24} p={it.p:.2f} {it.text[:100]}")
    if args.write:
        parts = sorted({it.part for it in items})
        figs = {}
        for part in parts:
            sub = [(it, pr) for it, pr in zip(items, preds) if it.part == part]
            c, d, r = figures([x[0] for x in sub], [x[1] for x in sub])
            figs.update(
                {f"{part}:cv_clean": round(c, 4), f"{part}:cv_detected": round(d, 4), f"{part}:cv_family": round(r, 4)}
            )
        KnnThresholds(
            tau=tau,
            beta=beta,
            m=m,
            theta=theta,
            calibrated_on=f"tests/fallacies/cv.py ({how}): " + ", ".join(parts),
            figures=figs,
        ).save()
        print("written engine/fallacies/data/knn_thresholds.json")


if __name__ == "__main__":
    main()
