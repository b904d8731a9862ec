"""Scorer for the FROZEN independent claim sets (tests/claims/data/independent/, never edited here).

Three measures, on the shipped dossier ``examples/rupture_brutale/dossier/``:

* 4-class accuracy of the verdicts, the confusion matrix, dangerous errors (gold UNKNOWN or CONTRADICTED
  judged VERIFIED) and AMBIGUOUS recall;
* evidence recall@10: for every gold evidence quote, is it inside one of the 10 passages retrieved for
  the claim (token containment >= 0.8, so OCR noise and whitespace do not count)? Averaged per claim
  (the fraction of its quotes found), over the claims that have evidence;
* the submission: every sentence of ``submission.md`` must be accounted for in the output (a verdict,
  or "not a factual claim" with a reason); factual sentences scored against their gold status.

The pipeline under test is given as a :class:`Pipeline` (verify, retrieve, account), so the same scorer
measured the first blind run (issue 10's code) and measures the current one.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"
INDEPENDENT = Path(__file__).parent / "data" / "independent"
STATUSES = ["VERIFIED", "CONTRADICTED", "AMBIGUOUS", "UNKNOWN"]


@dataclass
class Pipeline:
    """What the scorer needs from an implementation."""

    verify: Callable[[list[str]], list[str]]  # claims -> statuses
    retrieve: Callable[[str, int], list[str]]  # claim, k -> passage texts, best first
    account: Callable[[str], list[tuple[str, str, str]]]  # submission text -> (sentence, status|NOT_A_CLAIM, reason)


def _tokens(text: str) -> list[str]:
    t = unicodedata.normalize("NFKC", text).lower().replace("’", "'")
    return re.findall(r"\w+", t)


def covered(quote: str, passages: list[str], threshold: float = 0.8) -> bool:
    q = _tokens(quote)
    if not q:
        return True
    qs = Counter(q)
    for p in passages:
        ps = Counter(_tokens(p))
        hit = sum(min(n, ps[w]) for w, n in qs.items())
        if hit / len(q) >= threshold:
            return True
    return False


def load_claims(path: Path | None = None) -> list[dict]:
    return yaml.safe_load((path or INDEPENDENT / "claims.yaml").read_text(encoding="utf-8"))


def score_claims(pipe: Pipeline, items: list[dict], k_recall: int = 10) -> dict:
    t0 = time.perf_counter()
    statuses = pipe.verify([it["claim"] for it in items])
    seconds = time.perf_counter() - t0
    cm: Counter = Counter()
    rows = []
    recalls = []
    for it, got in zip(items, statuses):
        gold = it["status"]
        cm[(gold, got)] += 1
        quotes = [e["quote"] for e in it.get("evidence") or []]
        rec = None
        if quotes:
            passages = pipe.retrieve(it["claim"], k_recall)
            rec = sum(covered(q, passages) for q in quotes) / len(quotes)
            recalls.append(rec)
        rows.append({"id": it["id"], "gold": gold, "judged": got, "recall": rec, "claim": it["claim"]})
    n = len(items)
    correct = sum(v for (g, p), v in cm.items() if g == p)
    per = {s: (cm[(s, s)], sum(v for (g, _), v in cm.items() if g == s)) for s in STATUSES}
    return {
        "n": n,
        "accuracy": correct / n if n else 0.0,
        "correct": correct,
        "dangerous": sum(cm[(g, "VERIFIED")] for g in ("UNKNOWN", "CONTRADICTED")),
        "recall_per_status": {s: (a / b if b else 0.0) for s, (a, b) in per.items()},
        "ambiguous_recall": per["AMBIGUOUS"][0] / per["AMBIGUOUS"][1] if per["AMBIGUOUS"][1] else 0.0,
        "evidence_recall_at_10": sum(recalls) / len(recalls) if recalls else 0.0,
        "evidence_any_at_10": sum(r > 0 for r in recalls) / len(recalls) if recalls else 0.0,
        "confusion": {f"{g}->{p}": v for (g, p), v in sorted(cm.items())},
        "seconds": seconds,
        "rows": rows,
    }


def _norm_sentence(s: str) -> str:
    return " ".join(_tokens(s))


def score_submission(pipe: Pipeline, text: str | None = None, gold: list[dict] | None = None) -> dict:
    text = text if text is not None else (INDEPENDENT / "submission.md").read_text(encoding="utf-8")
    gold = gold if gold is not None else yaml.safe_load((INDEPENDENT / "submission_gold.yaml").read_text("utf-8"))
    out = pipe.account(text)
    by_sentence: dict[str, tuple[str, str]] = {}
    for sentence, status, reason in out:
        by_sentence.setdefault(_norm_sentence(sentence), (status, reason))

    def find(sentence: str) -> tuple[str, str] | None:
        key = _norm_sentence(sentence)
        if key in by_sentence:
            return by_sentence[key]
        for k, v in by_sentence.items():  # an output that trimmed a connector or a heading marker
            if k and (k in key or key in k) and min(len(k), len(key)) >= 0.7 * max(len(k), len(key)):
                return v
        return None

    accounted = factual_right = factual_n = non_factual_right = non_factual_n = 0
    rows = []
    for g in gold:
        got = find(g["sentence"])
        accounted += got is not None
        status = got[0] if got else "DROPPED"
        if g.get("factual", g.get("status") != "NOT_A_CLAIM"):  # dev_indep's gold says NOT_A_CLAIM instead
            factual_n += 1
            factual_right += status == g["status"]
        else:
            non_factual_n += 1
            non_factual_right += status == "NOT_A_CLAIM" and bool(got and got[1])
        rows.append({"n": g["n"], "gold": g.get("status", "NOT_A_CLAIM"), "got": status})
    return {
        "sentences": len(gold),
        "accounted": accounted,
        "factual": factual_n,
        "factual_right": factual_right,
        "non_factual": non_factual_n,
        "non_factual_right": non_factual_right,
        "dropped": len(gold) - accounted,
        "rows": rows,
    }


def summary(claims: dict, sub: dict | None = None) -> str:
    r = claims["recall_per_status"]
    lines = [
        f"claims: accuracy {claims['correct']}/{claims['n']} = {claims['accuracy']:.1%}; dangerous "
        f"(UNKNOWN/CONTRADICTED judged VERIFIED) {claims['dangerous']}; AMBIGUOUS recall {r['AMBIGUOUS']:.1%}; "
        f"recall V {r['VERIFIED']:.0%} C {r['CONTRADICTED']:.0%} U {r['UNKNOWN']:.0%}",
        f"evidence recall@10 {claims['evidence_recall_at_10']:.3f} (claims with >= 1 gold quote found: "
        f"{claims['evidence_any_at_10']:.3f}); {claims['n'] / max(claims['seconds'], 1e-9):.1f} claims/s end to end",
        "confusion (gold->judged): " + ", ".join(f"{k} {v}" for k, v in claims["confusion"].items()),
    ]
    if sub:
        lines.append(
            f"submission: {sub['accounted']}/{sub['sentences']} sentences accounted for ({sub['dropped']} dropped); "
            f"factual right {sub['factual_right']}/{sub['factual']}; "
            f"non-factual declared with a reason {sub['non_factual_right']}/{sub['non_factual']}"
        )
    return "\n".join(lines)


def judged(sentence) -> str:  # type: ignore[no-untyped-def]
    """A submission sentence's status as the judge decided it (before the issue-29 precision gate)."""
    return sentence.result.judged.value if sentence.result is not None else str(sentence.status)


def legacy_pipeline(k: int = 3) -> Pipeline:
    """Issue 10's implementation (chunk memory, lexical judge, k = 3): what the first blind run measured."""
    from lexlogic.engine.claims.extract import extract_claims_offline
    from lexlogic.engine.claims.judge_offline import OfflineJudge
    from lexlogic.engine.claims.memory import EvidenceMemory
    from lexlogic.engine.claims.verify import verify_all
    from lexlogic.engine.documents.ingest import ingest_dossier

    memory = EvidenceMemory.build(ingest_dossier(DOSSIER))
    judge = OfflineJudge()

    def verify(claims: list[str]) -> list[str]:
        return [r.judged.value for r in verify_all(memory, claims, k=k, judge=judge)]

    def retrieve(claim: str, n: int) -> list[str]:
        return [c.memory.text for c in memory.search(claim, n)]

    def account(text: str) -> list[tuple[str, str, str]]:
        claims = extract_claims_offline(text)
        return [(c, r.judged.value, "") for c, r in zip(claims, verify_all(memory, claims, k=k, judge=judge))]

    return Pipeline(verify=verify, retrieve=retrieve, account=account)


def current_pipeline(k: int | None = None) -> Pipeline:
    """The current implementation, as ``lexlogic verify DOSSIER`` runs it offline (hybrid memory, reading judge)."""
    from lexlogic.engine.claims.batch import account_submission
    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.claims.verify import DEFAULT_K, ReadingJudge, verify_all
    from lexlogic.engine.documents.ingest import ingest_dossier

    kk = k or DEFAULT_K
    memory = HybridMemory.build(ingest_dossier(DOSSIER))
    judge = ReadingJudge()

    def verify(claims: list[str]) -> list[str]:
        return [r.judged.value for r in verify_all(memory, claims, k=kk, judge=judge)]

    def retrieve(claim: str, n: int) -> list[str]:
        return [c.memory.text if c.memory.grounding.note == "table" else c.memory.text for c in memory.search(claim, n)]

    def account(text: str) -> list[tuple[str, str, str]]:
        return [
            (e.sentence, judged(e), e.reason) for e in account_submission(memory, text, k=kk, judge=judge).sentences
        ]

    return Pipeline(verify=verify, retrieve=retrieve, account=account)


def main() -> None:
    import argparse
    import json

    ap = argparse.ArgumentParser(description="score the frozen independent claim sets")
    ap.add_argument("--k", type=int, default=None)
    ap.add_argument("--legacy", action="store_true", help="issue 10's code (the first blind run)")
    ap.add_argument("--set", default=None, help="another claims YAML with the same schema (e.g. the dev set)")
    ap.add_argument("--submission", default=None, help="a folder with submission.md + submission_gold.yaml (dev)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rows", action="store_true", help="print per-claim rows (errors on the FROZEN set)")
    args = ap.parse_args()
    pipe = legacy_pipeline(args.k or 3) if args.legacy else current_pipeline(args.k)
    c = score_claims(pipe, load_claims(Path(args.set) if args.set else None))
    s = score_submission(pipe) if not args.set and not args.submission else None
    if args.submission:
        folder = Path(args.submission)
        s = score_submission(
            pipe,
            (folder / "submission.md").read_text(encoding="utf-8"),
            yaml.safe_load((folder / "submission_gold.yaml").read_text(encoding="utf-8")),
        )
    if args.json:
        print(json.dumps({"claims": c, "submission": s}, ensure_ascii=False, indent=2))
        return
    print(summary(c, s))
    if args.rows:
        for row in c["rows"]:
            mark = "ok " if row["gold"] == row["judged"] else "ERR"
            print(f"{mark} {row['id']} {row['gold']:>12} -> {row['judged']:<12} r@10={row['recall']} {row['claim']}")
        for row in (s or {}).get("rows", []) if args.submission else []:
            mark = "ok " if row["gold"] == row["got"] else "ERR"
            print(f"{mark} sentence {row['n']:>2} {row['gold']:>12} -> {row['got']}")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT))
    main()
