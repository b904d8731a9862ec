"""Offline judge on the labelled French evaluation set: accuracy and confusion matrix.

    .venv/bin/python tests/claims/evaluate.py [--k 3] [--show-errors]

Data: ``data/dossiers.json`` (five small dossiers, documents as plain text) and ``data/eval_fr.jsonl``
(claim, dossier, gold status, kind of hard negative).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lexlogic.engine.claims.judge_offline import OfflineJudge
from lexlogic.engine.claims.memory import EvidenceMemory
from lexlogic.engine.claims.models import Status, VerificationResult
from lexlogic.engine.claims.verify import find_evidence
from lexlogic.engine.documents.model import Document, DocumentKind

DATA = Path(__file__).parent / "data"
ORDER = [Status.VERIFIED, Status.CONTRADICTED, Status.AMBIGUOUS, Status.UNKNOWN]


def load_dossiers() -> dict[str, list[Document]]:
    raw = json.loads((DATA / "dossiers.json").read_text(encoding="utf-8"))
    return {
        name: [Document(id=d["id"], kind=DocumentKind(d["kind"]), text=d["text"]) for d in docs]
        for name, docs in raw.items()
    }


def load_pairs(name: str = "eval_fr.jsonl") -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def run(k: int = 3, name: str = "eval_fr.jsonl", memories: dict | None = None) -> list[tuple[dict, VerificationResult]]:
    pairs = load_pairs(name)
    if memories is None:
        used = {p["dossier"] for p in pairs}
        memories = {n: EvidenceMemory.build(docs) for n, docs in load_dossiers().items() if n in used}
    judge = OfflineJudge()
    return [(p, find_evidence(memories[p["dossier"]], p["claim"], k=k, judge=judge)) for p in pairs]


def confusion(results: list[tuple[dict, VerificationResult]]) -> Counter:
    return Counter((Status(p["label"]), r.judged) for p, r in results)


def report(results: list[tuple[dict, VerificationResult]]) -> str:
    cm = confusion(results)
    correct = sum(v for (g, p), v in cm.items() if g == p)
    lines = [
        f"accuracy {correct}/{len(results)} = {correct / len(results):.1%}",
        "gold \\ judged " + " ".join(f"{s.value[:12]:>13}" for s in ORDER),
    ]
    for g in ORDER:
        lines.append(f"{g.value:<14}" + " ".join(f"{cm[(g, p)]:>13}" for p in ORDER))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--show-errors", action="store_true")
    ap.add_argument("--set", default="eval_fr.jsonl", help="eval_fr.jsonl (calibration) or holdout_fr.jsonl")
    args = ap.parse_args()
    results = run(args.k, args.set)
    print(report(results))
    if args.show_errors:
        for p, r in results:
            if r.judged.value != p["label"]:
                print(f"\n{p['id']} gold={p['label']} judged={r.judged.value} ({p['hard']}): {p['claim']}")
                for e in r.readings:
                    print(f"   [{e.stance.value} {e.similarity:.3f}] {e.source_id}: {e.content!r} — {e.nuance}")


if __name__ == "__main__":
    main()
