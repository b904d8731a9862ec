"""Measure a navigator on a labelled set: "no fallacy" rate on sound texts, right family on fallacious ones.

The family of an analysis is that of its most confident confirmed fallacy. "Strict" family rate counts a
fallacious text as right only if a fallacy was confirmed AND in the labelled family (a missed fallacy
counts as wrong).

Run: .venv/bin/python -m engine.fallacies.evaluate tests/fallacies/data/eval_fr.yaml [--json] [--taxonomy F]
"""

from __future__ import annotations

import argparse
import time

from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.actions import Navigator
from lexlogic.engine.fallacies.labelled import NONE, LabelledArgument, load_labelled
from lexlogic.engine.fallacies.navigation import navigate
from lexlogic.engine.fallacies.taxonomy import Taxonomy, load_taxonomy


class EvalRow(BaseModel):
    label: str
    predicted: str  # family id or "none"
    fallacy: str | None = None
    predicted_fallacy: str | None = None
    confidence: float | None = None
    text: str


class EvalReport(BaseModel):
    n_clean: int
    n_fallacious: int
    clean_no_fallacy_rate: float
    family_rate: float = Field(description="strict: detected and right family, over all fallacious texts")
    detection_rate: float
    family_rate_when_detected: float
    fallacy_rate: float = Field(description="strict, exact leaf (for information)")
    seconds: float
    rows: list[EvalRow]

    def summary(self) -> str:
        return (
            f"clean texts judged 'no fallacy': {self.clean_no_fallacy_rate:.1%} of {self.n_clean}\n"
            f"fallacious texts with the right family: {self.family_rate:.1%} of {self.n_fallacious} "
            f"(detected {self.detection_rate:.1%}; right family when detected "
            f"{self.family_rate_when_detected:.1%}; exact fallacy {self.fallacy_rate:.1%})\n"
            f"time: {self.seconds:.1f} s"
        )


def evaluate(items: list[LabelledArgument], taxonomy: Taxonomy, navigator: Navigator) -> EvalReport:
    t0 = time.perf_counter()
    rows = []
    for item in items:
        result = navigate(item.text, taxonomy, navigator)
        top = result.top
        rows.append(
            EvalRow(
                label=item.label,
                fallacy=item.fallacy,
                text=item.text,
                predicted=top.family_id if top else NONE,
                predicted_fallacy=top.node_id if top else None,
                confidence=top.confidence if top else None,
            )
        )
    clean = [r for r in rows if r.label == NONE]
    bad = [r for r in rows if r.label != NONE]
    detected = [r for r in bad if r.predicted != NONE]
    right = [r for r in bad if r.predicted == r.label]

    def rate(a: list, b: list) -> float:
        return len(a) / len(b) if b else 0.0

    return EvalReport(
        n_clean=len(clean),
        n_fallacious=len(bad),
        clean_no_fallacy_rate=rate([r for r in clean if r.predicted == NONE], clean),
        family_rate=rate(right, bad),
        detection_rate=rate(detected, bad),
        family_rate_when_detected=rate(right, detected),
        fallacy_rate=rate([r for r in bad if r.fallacy and r.predicted_fallacy == r.fallacy], bad),
        seconds=time.perf_counter() - t0,
        rows=rows,
    )


def main(argv: list[str] | None = None) -> int:
    from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator

    parser = argparse.ArgumentParser(prog="python -m engine.fallacies.evaluate")
    parser.add_argument("labelled", help="YAML list of {label, text[, fallacy]}")
    parser.add_argument("--taxonomy", default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="one line per text")
    args = parser.parse_args(argv)
    report = evaluate(load_labelled(args.labelled), load_taxonomy(args.taxonomy), OfflineNavigator())
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    if args.verbose:
        for r in report.rows:
            mark = "ok " if r.predicted == r.label else "ERR"
            print(f"{mark} {r.label:>18} → {r.predicted:<18} {r.predicted_fallacy or '':<24} {r.text[:70]}")
    print(report.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
