"""The offline navigator (real embeddings), its calibration provenance, and the measured evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from lexlogic.engine.fallacies import embedding_index
from lexlogic.engine.fallacies.evaluate import evaluate
from lexlogic.engine.fallacies.labelled import CALIBRATION_SET, file_sha256, load_labelled
from lexlogic.engine.fallacies.navigation import StepStatus, navigate
from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator
from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy
from lexlogic.engine.fallacies.thresholds import load_thresholds
from lexlogic.settings import Settings
from tests.fallacies.conftest import EVAL_SET, HOLDOUT2_SET

# Measured with the current thresholds.json (cue weight β and τ fitted on the calibration set only;
# notes/issue-11.md, "Update: offline navigator accuracy"). Embeddings and cues are deterministic.
# Original evaluation set: clean 22/22 = 1.00, right family 21/22 = 0.955 (before the update: 0.909 and
# 0.545). Its texts had been seen before the cue lexicon was written, so it is not blind: see HOLDOUT2.
MIN_CLEAN_RATE = 0.95
MIN_FAMILY_RATE = 0.95
# Second held-out set, written before any change and never used to tune: clean 23/24 = 0.958, right
# family 24/24 = 1.00 (before: 0.917 and 0.542). Caveat: the same engineer wrote it and the cue lexicon,
# so phrasing is shared (the 1.00 is optimistic for third-party texts); floors: the measured levels
# with one text of slack for the family (23/24 = 0.958 ≥ 0.95).
MIN_HOLDOUT2_CLEAN_RATE = 0.90
MIN_HOLDOUT2_FAMILY_RATE = 0.95


@pytest.fixture(scope="module")
def report():  # type: ignore[no-untyped-def]
    return evaluate(load_labelled(EVAL_SET), builtin_taxonomy(), OfflineNavigator())


def test_eval_set_shape() -> None:
    items = load_labelled(EVAL_SET)
    clean = [i for i in items if i.label == "none"]
    assert len(items) >= 40 and len(clean) == len(items) - len(clean)
    families = {c.id for c in builtin_taxonomy().children("sophisme")}
    assert {i.label for i in items if i.label != "none"} <= families
    calibration = {i.text for i in load_labelled(CALIBRATION_SET)}
    assert not calibration & {i.text for i in items}  # held out


def test_offline_meets_measured_thresholds(report) -> None:  # type: ignore[no-untyped-def]
    print("\n" + report.summary())
    assert report.n_clean >= 20 and report.n_fallacious >= 20
    assert report.clean_no_fallacy_rate >= MIN_CLEAN_RATE
    assert report.family_rate >= MIN_FAMILY_RATE


@pytest.fixture(scope="module")
def holdout2_report():  # type: ignore[no-untyped-def]
    return evaluate(load_labelled(HOLDOUT2_SET), builtin_taxonomy(), OfflineNavigator())


def test_holdout2_set_shape() -> None:
    items = load_labelled(HOLDOUT2_SET)
    tax = builtin_taxonomy()
    clean = [i for i in items if i.label == "none"]
    assert len(items) >= 40 and len(clean) == len(items) - len(clean)
    for i in items:
        if i.label != "none":
            assert i.fallacy and tax.family(i.fallacy).id == i.label
    seen = {i.text for i in load_labelled(CALIBRATION_SET)} | {i.text for i in load_labelled(EVAL_SET)}
    assert not seen & {i.text for i in items}  # held out from both


def test_offline_on_second_holdout(holdout2_report) -> None:  # type: ignore[no-untyped-def]
    print("\n" + holdout2_report.summary())
    assert holdout2_report.n_clean >= 20 and holdout2_report.n_fallacious >= 20
    assert holdout2_report.clean_no_fallacy_rate >= MIN_HOLDOUT2_CLEAN_RATE
    assert holdout2_report.family_rate >= MIN_HOLDOUT2_FAMILY_RATE


def test_thresholds_were_fitted_on_the_current_calibration_set() -> None:
    th = load_thresholds()
    assert th.calibration_sha256 == file_sha256(CALIBRATION_SET), "re-run python -m engine.fallacies.calibrate"
    assert th.figures["clean_no_fallacy_rate"] >= 0.9 and "calibration set" in th.method
    assert 0 < th.cue_weight <= 0.10  # fitted on the grid; 0 would mean the cues do not help


def test_clean_argument_concludes_at_the_root() -> None:
    result = navigate(
        "Le bail commercial a été signé le 2 janvier 2020 pour neuf ans ; il expire donc le 1er janvier 2029.",
        builtin_taxonomy(),
        OfflineNavigator(),
    )
    assert result.outcome == "no_fallacy" and result.stopped_by == "conclude_no_fallacy"
    assert len(result.trace) == 1 and result.trace[0].status is StepStatus.CONCLUDED
    assert "seuil calibré" in (result.reason or "")


def test_clear_fallacy_is_confirmed_with_path_and_justification() -> None:
    tax = builtin_taxonomy()
    result = navigate(
        "Soit vous signez cet avenant, soit vous perdez votre emploi : il n'y a aucune autre possibilité.",
        tax,
        OfflineNavigator(),
    )
    assert result.outcome == "fallacies"
    top = result.top
    assert top is not None and top.family_id == "raisonnement" and top.node_id == "faux_dilemme"
    assert 0.5 <= top.confidence <= 1 and "cos" in top.justification
    assert [s.depth for s in result.trace][:2] == [0, 1]


def test_embedding_cache_is_keyed_by_content(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LEXLOGIC_HOME", str(tmp_path))
    cache = Settings().fallacies_cache  # under LEXLOGIC_HOME when it is set
    first = embedding_index.embed_cached(["Appel à la tradition.", "Faux dilemme."], cache=cache)
    files = list((tmp_path / "cache" / "fallacies").glob("*.npy"))
    assert len(files) == 1 and np.allclose(np.load(files[0]), first)
    np.save(files[0], np.zeros_like(first))  # a cache hit returns what is stored (proves it is read)
    assert not embedding_index.embed_cached(["Appel à la tradition.", "Faux dilemme."], cache=cache).any()
    embedding_index.embed_cached(["Appel à la tradition."], cache=cache)  # other content → other key
    assert len(list((tmp_path / "cache" / "fallacies").glob("*.npy"))) == 2
