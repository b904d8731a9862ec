"""The labelled French evaluation set: accuracy and confusion matrix of the offline judge."""

import json
from collections import Counter

from lexlogic.engine.claims.models import Status
from tests.claims.evaluate import DATA, confusion, load_pairs, report, run


def test_dataset_is_large_balanced_and_has_hard_negatives():
    pairs = load_pairs()
    assert len(pairs) >= 60
    counts = Counter(p["label"] for p in pairs)
    assert set(counts) == {s.value for s in Status} and min(counts.values()) >= 15
    hard = Counter(p["hard"] for p in pairs)
    for kind in ("date", "amount", "negation", "disagreement", "modality"):
        assert hard[kind] >= 2, kind
    dossiers = json.loads((DATA / "dossiers.json").read_text(encoding="utf-8"))
    assert all(p["dossier"] in dossiers for p in pairs)


import pytest


@pytest.mark.parametrize("name", ["eval_fr.jsonl", "holdout_fr.jsonl"])
def test_offline_judge_accuracy_and_no_unknown_judged_verified(capsys, memories, name):
    """eval_fr: the calibration set; holdout_fr: written after the thresholds were set (see notes)."""
    results = run(k=3, name=name, memories=memories)
    text = report(results)
    with capsys.disabled():
        print(f"\n[{name}]\n" + text)
    cm = confusion(results)
    accuracy = sum(v for (g, p), v in cm.items() if g == p) / len(results)
    assert cm[(Status.UNKNOWN, Status.VERIFIED)] == 0, "an UNKNOWN claim was judged VERIFIED"
    assert accuracy >= 0.85, text
