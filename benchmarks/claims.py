"""Claim verification benchmark: verifications/s on a 10,000-chunk dossier, HNSW vs exact, recall@3.

    .venv/bin/python benchmarks/claims.py            # 10,000 chunks (first run embeds them: minutes)
    .venv/bin/python benchmarks/claims.py --quick    # 2,000 chunks
    .venv/bin/python benchmarks/claims.py --embed-only
    .venv/bin/python benchmarks/claims.py --independent   # the frozen independent sets (accuracy, recall@10)
    .venv/bin/python benchmarks/claims.py --decisions tests/claims/data/transfer/claims.yaml ...
        # precision of the judge's VERIFIED/CONTRADICTED by confidence band, before and after the issue-29 gate

Chunk texts are synthetic French dossier sentences (deterministic); their passage vectors are cached in
``$LEXLOGIC_HOME/bench/`` (default ``.lexlogic/bench/``) keyed by the texts' hash, so reruns are fast.
Figures are medians over repeats (the machine is shared).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from lexlogic.engine.text.numbers import MONTH_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PARTIES = [
    "Alpha",
    "Beta",
    "Gamma Distribution",
    "Delta Industries",
    "Epsilon",
    "Zeta Logistique",
    "Eta Conseil",
    "Theta Emballages",
    "Iota Transports",
    "Kappa Foods",
    "Lambda Textile",
    "Mu Bois",
]
MONTHS = list(MONTH_NAMES)
NUMS = ["un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze"]
TEMPLATES = [
    "Par lettre recommandée du {d}, la société {p} a notifié à {q} la rupture de la relation commerciale avec un préavis de {n} mois.",
    "La société {p} a adressé à {q} une mise en demeure le {d} pour des retards de livraison répétés.",
    "Le chiffre d'affaires réalisé par {p} avec {q} s'élève à {a} euros HT pour l'exercice {y}.",
    "Article {i} – Durée. Le contrat conclu entre {p} et {q} est conclu pour une durée de {n} ans à compter du {d}.",
    "Article {i} – Résiliation. Chaque partie peut résilier le contrat moyennant un préavis écrit de {n} mois.",
    "Le {d}, {p} a informé {q} par courriel qu'elle lançait un appel d'offres pour l'ensemble de ses besoins.",
    "Les commandes passées par {p} auprès de {q} ont baissé de {r} % entre {y} et {z}.",
    "Facture n° {i} du {d} : {a} euros TTC dus par {q} à {p}, payable à trente jours.",
    "La société {q} n'a jamais reçu de mise en demeure de la part de {p} avant le {d}.",
    "{p} et {q} entretiennent des relations d'affaires suivies depuis {y}, sans contrat-cadre écrit.",
    "Compte rendu de réunion du {d} : {p} a indiqué à {q} envisager une réduction de {r} % des volumes.",
    "La marge brute réalisée par {p} sur les ventes à {q} était de {a} euros en {y}.",
]


def synthetic_chunks(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _i in range(n):
        p, q = rnd.sample(PARTIES, 2)
        y = rnd.randint(2005, 2023)
        out.append(
            rnd.choice(TEMPLATES).format(
                p=p,
                q=q,
                d=f"{rnd.randint(1, 28)} {rnd.choice(MONTHS)} {y}",
                n=rnd.choice(NUMS),
                a=f"{rnd.randint(10, 990)} {rnd.randint(0, 999):03d}",
                y=y,
                z=y + rnd.randint(1, 3),
                r=rnd.randint(5, 80),
                i=rnd.randint(1, 40),
            )
        )
    return out


def cache_dir() -> Path:
    d = Path(os.environ.get("LEXLOGIC_HOME", ".lexlogic")) / "bench"
    d.mkdir(parents=True, exist_ok=True)
    return d


def cached_passage_vectors(texts: list[str], batch: int = 64) -> np.ndarray:
    """Passage vectors for ``texts``, computed once and cached (partial progress is kept)."""
    from lexlogic.bridges.embeddings import embed_passages

    key = hashlib.sha256("\x1f".join(texts).encode()).hexdigest()[:16]
    final = cache_dir() / f"claims_{len(texts)}_{key}.npy"
    if final.exists():
        return np.load(final)
    partial = cache_dir() / f"claims_{len(texts)}_{key}.partial.npy"
    done = np.load(partial) if partial.exists() else np.zeros((0, 384), dtype=np.float32)
    t0 = time.perf_counter()
    for start in range(len(done), len(texts), batch):
        vecs = embed_passages(texts[start : start + batch])
        done = np.vstack([done, vecs])
        if (start // batch) % 10 == 0:
            np.save(partial, done)
            rate = (len(done)) / max(time.perf_counter() - t0, 1e-9)
            print(f"  embedded {len(done)}/{len(texts)} ({rate:.1f} passages/s)", flush=True)
    np.save(final, done)
    if partial.exists():
        partial.unlink()
    return done


def synthetic_claims(texts: list[str], n: int, seed: int = 11) -> list[str]:
    """Claims drawn from the chunks: half copied with a changed number (hard negatives), half as is."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        t = rnd.choice(texts)
        if i % 2:
            t = t.replace(" mois", " semaines", 1) if " mois" in t else t.replace("euros", "euros HT", 1)
        out.append(t.split(". ")[-1] if t.startswith("Article") else t)
    return out


def cached_query_vectors(claims: list[str]) -> np.ndarray:
    from lexlogic.bridges.embeddings import embed_queries

    key = hashlib.sha256("\x1f".join(claims).encode()).hexdigest()[:16]
    path = cache_dir() / f"claims_queries_{len(claims)}_{key}.npy"
    if path.exists():
        return np.load(path)
    vecs = np.vstack([embed_queries(claims[i : i + 32]) for i in range(0, len(claims), 32)])
    np.save(path, vecs)
    return vecs


def _median_time(fn, repeats: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_hybrid(texts: list[str], vectors: np.ndarray, n_claims: int) -> None:
    """Issue 19's path: sentence passages, BM25 + e5 fused by RRF, k = 10, the reading judge."""
    from lexlogic.bridges.vector_index import VectorIndex
    from lexlogic.engine.claims.judge_reading import ReadingJudge
    from lexlogic.engine.claims.models import Memory
    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.claims.verify import DEFAULT_K, find_evidence
    from lexlogic.logic.grounding import Grounding

    claims = synthetic_claims(texts, n_claims)
    qvecs = cached_query_vectors(claims)
    memories = [
        Memory(
            id=f"bench#{i}",
            document_id=f"doc{i // 20}",
            text=t,
            grounding=Grounding(document_id=f"doc{i // 20}", char_start=0, char_end=len(t), quote=t),
        )
        for i, t in enumerate(texts)
    ]
    judge = ReadingJudge()
    for backend in ("auto", "exact"):
        t0 = time.perf_counter()
        index = VectorIndex(vectors, backend=backend, threads=2)
        mem = HybridMemory(memories, vectors, index=index)
        build = time.perf_counter() - t0
        mem.prime(claims, qvecs)
        rates = []
        statuses = []
        for _ in range(4):
            t0 = time.perf_counter()
            statuses = [find_evidence(mem, c, k=DEFAULT_K, judge=judge).status for c in claims]
            rates.append(len(claims) / (time.perf_counter() - t0))
        counts = {st.value: statuses.count(st) for st in set(statuses)}
        print(
            f"hybrid verifications/s on {len(texts)} passages ({index.backend}; BM25 + e5 + RRF, k={DEFAULT_K}, "
            f"reading judge; claim vectors precomputed): first pass {rates[0]:.0f}, warm median "
            f"{statistics.median(rates[1:]):.0f} (target >= 100); build {build:.1f} s; statuses {counts}"
        )


def run(texts: list[str], vectors: np.ndarray, n_claims: int) -> None:
    from lexlogic.bridges.vector_index import EXACT_BELOW, VectorIndex
    from lexlogic.engine.claims.judge_offline import OfflineJudge
    from lexlogic.engine.claims.memory import EvidenceMemory
    from lexlogic.engine.claims.models import Memory
    from lexlogic.engine.claims.verify import find_evidence
    from lexlogic.logic.grounding import Grounding

    claims = synthetic_claims(texts, n_claims)
    t0 = time.perf_counter()
    qvecs = cached_query_vectors(claims)
    print(
        f"dossier: {len(texts)} chunks; {len(claims)} claims (query vectors ready in "
        f"{time.perf_counter() - t0:.1f} s, cached)"
    )

    # 1. exact vs HNSW latency by size, one query at a time (how claims are verified) and in a batch
    print("\ntop-3 latency per query, median (ms)      size  exact-1  hnsw-1  exact-batch  hnsw-batch  hnsw build (s)")
    crossover = None
    q = qvecs[:100]
    for size in [s for s in (250, 500, 1000, 2000, 5000, 10_000, 20_000) if s <= len(vectors)]:
        sub = vectors[:size]
        exact = VectorIndex(sub, backend="exact")
        tb = time.perf_counter()
        hnsw = VectorIndex(sub, backend="hnsw", threads=2)
        build = time.perf_counter() - tb
        te = _median_time(lambda: [exact.search(v[None, :], 3) for v in q]) / len(q) * 1000
        th = _median_time(lambda: [hnsw.search(v[None, :], 3) for v in q]) / len(q) * 1000
        tbe = _median_time(lambda: exact.search(q, 3)) / len(q) * 1000
        tbh = _median_time(lambda: hnsw.search(q, 3)) / len(q) * 1000
        if crossover is None and th < te:
            crossover = size
        print(f"{'':40}{size:>6} {te:8.3f} {th:7.3f} {tbe:12.3f} {tbh:11.3f} {build:12.2f}")
    print(
        f"HNSW faster than exact (single query) from: {crossover or 'never in the sizes measured'}; "
        f"'auto' uses exact below {EXACT_BELOW}"
    )

    # 2. recall@3 of HNSW against exact on the full dossier
    exact = VectorIndex(vectors, backend="exact")
    hnsw = VectorIndex(vectors, backend="hnsw", threads=2)
    ids_e, _ = exact.search(qvecs, 3)
    ids_h, _ = hnsw.search(qvecs, 3)
    recall = float(np.mean([len(set(a) & set(b)) / 3 for a, b in zip(ids_e, ids_h)]))
    print(
        f"\nrecall@3 HNSW vs exact on {len(vectors)} vectors, {len(qvecs)} queries: {recall:.4f} "
        f"(target >= 0.99; M={hnsw.m}, ef_construction={hnsw.ef_construction}, ef={hnsw.ef_search})"
    )

    # 3. verifications per second: find_evidence (search + offline judge), claim vectors precomputed
    memories = [
        Memory(
            id=f"bench#{i}",
            document_id=f"doc{i // 20}",
            text=t,
            grounding=Grounding(document_id=f"doc{i // 20}", char_start=0, char_end=len(t), quote=t),
        )
        for i, t in enumerate(texts)
    ]
    judge = OfflineJudge()
    from lexlogic.engine.claims import facets as fx

    for backend, index in (("exact", exact), ("hnsw", hnsw)):
        mem = EvidenceMemory(memories, vectors, index=index)
        mem.prime(claims, qvecs)
        for cache in (fx._read, fx.sentences, fx.stem, fx.fold):
            cache.cache_clear()  # first pass: every memory read for the first time
        rates = []
        for _ in range(4):
            t0 = time.perf_counter()
            statuses = [find_evidence(mem, c, k=3, judge=judge).status for c in claims]
            rates.append(len(claims) / (time.perf_counter() - t0))
        counts = {s.value: statuses.count(s) for s in set(statuses)}
        print(
            f"verifications/s ({backend}, claim vectors precomputed): cold {rates[0]:.0f}, "
            f"warm median {statistics.median(rates[1:]):.0f} (target >= 100)  statuses {counts}"
        )
    # judge alone, and the claim embedding that a cold claim adds
    mem = EvidenceMemory(memories, vectors, index=exact)
    cands = [mem.search(c, 3, vector=v) for c, v in zip(claims, qvecs)]
    tj = _median_time(lambda: [judge.judge(c, cs) for c, cs in zip(claims, cands)], 3) / len(claims)
    from lexlogic.bridges.embeddings import embed_query

    te = _median_time(lambda: [embed_query(c) for c in claims[:20]], 3) / 20
    print(
        f"offline judge alone: {tj * 1000:.2f} ms/claim; embedding a new claim (e5 query:): "
        f"{te * 1000:.1f} ms/claim -> end-to-end cold claims ~{1 / (te + tj):.0f}/s on this machine"
    )


DECISION_BANDS = [0.0, 0.80, 0.84, 0.86, 0.8714, 0.88, 0.90, 1.0001]


def decisions(paths: list[Path]) -> None:
    """Issue 29: VERIFIED/CONTRADICTED only at or above the confidence (similarity of the deciding passage)
    from which the judge's decisions are right ≥ 97 % of the time on the transfer set. Prints, per claims
    file, the judge's own decisions by confidence band, the lowest confidence from which they reach 0.97, and
    the statuses given after the shipped gate (engine/claims/data/decision.yaml)."""
    import yaml

    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.claims.threshold import shipped
    from lexlogic.engine.claims.verify import DEFAULT_K, ReadingJudge, verify_all
    from lexlogic.engine.documents.ingest import ingest_dossier

    root = Path(__file__).resolve().parents[1]
    memory = HybridMemory.build(ingest_dossier(root / "examples" / "rupture_brutale" / "dossier"))
    threshold = shipped().decide_from
    print(f"gate: VERIFIED/CONTRADICTED only from confidence {threshold} (engine/claims/data/decision.yaml)")
    for path in paths:
        items = yaml.safe_load(path.read_text(encoding="utf-8"))
        results = verify_all(memory, [it["claim"] for it in items], k=DEFAULT_K, judge=ReadingJudge())
        rows = [
            (r.decision_confidence, (r.proposed or r.status).value, r.status.value, it["status"])
            for it, r in zip(items, results)
        ]
        judged = [(c, j == g) for c, j, _, g in rows if j in ("VERIFIED", "CONTRADICTED")]
        given = [(c, s == g) for c, _, s, g in rows if s in ("VERIFIED", "CONTRADICTED")]
        print(f"== {path}: {len(rows)} claims; the judge decides {len(judged)}, right {sum(r for _, r in judged)}")
        for lo, hi in zip(DECISION_BANDS, DECISION_BANDS[1:]):
            cell = [r for c, r in judged if lo <= c < hi]
            if cell:
                print(
                    f"   confidence [{lo:.4f}, {min(hi, 1):.4f}): {len(cell):3} decisions, precision {sum(cell) / len(cell):.3f}"
                )
        above = sorted({c for c, _ in judged})
        t = next((x for x in above if (a := [r for c, r in judged if c >= x]) and sum(a) / len(a) >= 0.97), None)
        wrong_above = max((c for c, r in judged if not r and (t is None or c < t)), default=None)
        print(f"   decisions at or above {t} have precision >= 0.97 (highest wrong one below: {wrong_above})")
        gp = f"{sum(r for _, r in given) / len(given):.3f}" if given else "—"
        print(
            f"   after the gate: {len(given)} VERIFIED/CONTRADICTED given, precision {gp}; accuracy of all statuses "
            f"{sum(s == g for _, _, s, g in rows) / len(rows):.3f} (judge's own {sum(j == g for _, j, _, g in rows) / len(rows):.3f})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2,000 chunks instead of 10,000")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--claims", type=int, default=300)
    ap.add_argument("--embed-only", action="store_true")
    ap.add_argument("--hybrid-only", action="store_true", help="only the issue 19 path (hybrid memory, reading judge)")
    ap.add_argument(
        "--independent", action="store_true", help="score the frozen independent sets (tests/claims/independent.py)"
    )
    ap.add_argument("--decisions", nargs="+", type=Path, default=None, help="claims YAML files (issue 29 gate)")
    args = ap.parse_args()
    if args.decisions:
        decisions(args.decisions)
        return
    if args.independent:
        from tests.claims import independent

        pipe = independent.current_pipeline()
        print(
            independent.summary(
                independent.score_claims(pipe, independent.load_claims()), independent.score_submission(pipe)
            )
        )
        return
    n = args.n or (2000 if args.quick else 10_000)
    full = synthetic_chunks(max(n, 10_000))  # the same generator stream: a prefix is a smaller dossier
    key = hashlib.sha256("\x1f".join(full).encode()).hexdigest()[:16]
    full_cache = cache_dir() / f"claims_{len(full)}_{key}.npy"
    texts = full[:n]
    vectors = np.load(full_cache)[:n] if full_cache.exists() else cached_passage_vectors(texts)
    if args.embed_only:
        print(f"cached {vectors.shape}")
        return
    if not args.hybrid_only:
        run(texts, vectors, args.claims)
    run_hybrid(texts, vectors, args.claims)


if __name__ == "__main__":
    main()
