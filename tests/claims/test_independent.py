"""Issue 19 evaluation guards.

* DEV sets (tests/claims/data/dev/, what the judge was tuned on): regression guards at their measured values.
* FROZEN independent set (tests/claims/data/independent/, never tuned on): FLOORS at the figures measured
  in the final run of notes/issue-19.md, so a regression fails CI. They are not the issue's targets
  (80 % accuracy, AMBIGUOUS recall 60 %, recall@10 0.95), which are not all met: see the note.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lexlogic.engine.claims.judge_reading import ReadingJudge
from lexlogic.engine.claims.verify import verify_all
from tests.claims import independent as ind

DEV = Path(__file__).parent / "data" / "dev"

# dev guards: (file, minimum accuracy) FLOORS — measured 42/48, 20/25, 23/26 and dev_indep 59/72 (second session, round 3)
DEV_FLOORS = [
    ("claims.yaml", 0.87),
    ("claims2.yaml", 0.78),
    ("claims3.yaml", 0.84),
    ("../dev_indep/claims.yaml", 59 / 72 - 1e-9),
]
# dev evidence recall@10 FLOORS at the values measured in round 2 (0.946, 0.950, 1.000, 0.929, 0.918)
DEV_RECALL_FLOORS = [
    ("claims.yaml", 0.946),
    ("claims2.yaml", 0.95),
    ("claims3.yaml", 1.0),
    ("claims4.yaml", 0.928),
    ("../dev_indep/claims.yaml", 0.918),
]
DEV_INDEP = DEV.parent / "dev_indep"

# FROZEN floors, measured in the final run of the second session (notes/issue-19.md, "claims"); they are
# FLOORS against regression, not the targets; raise them when the figures improve
FROZEN = {
    "accuracy": 40 / 64 - 1e-9,  # measured 40/64 = 62.5 % (first session 51.6 %; target 80 %: not met)
    "dangerous_max": 0,  # measured 0 (first session 1; target 0: met)
    "ambiguous_recall": 8 / 16 - 1e-9,  # measured 50.0 % (first session 37.5 %; target 60 %: not met)
    "evidence_recall_at_10": 0.87,  # measured 0.872 in round 2 (0.819 before, first session 0.771; target 0.95)
}


@pytest.fixture(scope="module")
def pipe(shipped):  # type: ignore[no-untyped-def]
    judge = ReadingJudge()

    def verify(claims: list[str]) -> list[str]:
        return [r.judged.value for r in verify_all(shipped, claims, judge=judge)]

    def retrieve(claim: str, n: int) -> list[str]:
        return [c.memory.text for c in shipped.search(claim, n)]

    def account(text: str) -> list[tuple[str, str, str]]:
        from lexlogic.engine.claims.batch import account_submission

        return [(e.sentence, ind.judged(e), e.reason) for e in account_submission(shipped, text, judge=judge).sentences]

    return ind.Pipeline(verify=verify, retrieve=retrieve, account=account)


@pytest.mark.parametrize("name,floor", DEV_RECALL_FLOORS)
def test_dev_sets_evidence_recall_floor(shipped, name, floor):
    items = ind.load_claims(DEV / name)
    recalls = []
    for it in items:
        quotes = [e["quote"] for e in it.get("evidence") or []]
        if quotes:
            texts = [c.memory.text for c in shipped.search(it["claim"], 10)]
            recalls.append(sum(ind.covered(q, texts) for q in quotes) / len(quotes))
    assert sum(recalls) / len(recalls) >= floor - 1e-3


@pytest.mark.parametrize("name,floor", DEV_FLOORS)
def test_dev_sets_regression_guard(pipe, name, floor):
    rep = ind.score_claims(pipe, ind.load_claims(DEV / name))
    print(f"\n[dev {name}] " + ind.summary(rep))
    assert rep["dangerous"] == 0, "an UNKNOWN or CONTRADICTED claim was judged VERIFIED"
    assert rep["accuracy"] >= floor


def test_frozen_independent_claims_floors(pipe):
    """FROZEN set: floors at the final run's measured values (not targets, not tuned on)."""
    items = ind.load_claims()
    assert len(items) == 64
    rep = ind.score_claims(pipe, items)
    print("\n[frozen independent] " + ind.summary(rep))
    assert rep["accuracy"] >= FROZEN["accuracy"]
    assert rep["dangerous"] <= FROZEN["dangerous_max"]
    assert rep["ambiguous_recall"] >= FROZEN["ambiguous_recall"]
    assert rep["evidence_recall_at_10"] >= FROZEN["evidence_recall_at_10"]


def test_frozen_submission_every_sentence_accounted_for(pipe):
    rep = ind.score_submission(pipe)
    print(f"\n[frozen submission] {rep['accounted']}/{rep['sentences']} accounted")
    assert rep["accounted"] == rep["sentences"] == 27 and rep["dropped"] == 0
    assert rep["non_factual_right"] == rep["non_factual"]  # each set aside WITH its reason


def test_dev_indep_submission_every_sentence_accounted_for(pipe):
    """The independent writer's development submission (33 sentences, per-sentence gold): nothing dropped,
    every non-factual sentence set aside with a reason; per-sentence accuracy guarded at its measured value."""
    import yaml

    gold = yaml.safe_load((DEV_INDEP / "submission_gold.yaml").read_text(encoding="utf-8"))
    rep = ind.score_submission(pipe, (DEV_INDEP / "submission.md").read_text(encoding="utf-8"), gold)
    right = rep["factual_right"] + rep["non_factual_right"]
    print(f"\n[dev_indep submission] {rep['accounted']}/{rep['sentences']} accounted, {right} right")
    assert rep["accounted"] == rep["sentences"] == 33 and rep["dropped"] == 0
    assert rep["non_factual_right"] == rep["non_factual"] == 11
    assert right >= 24  # measured 24/33 (13/22 factual + 11/11 set aside)
