"""Issue 29, point 2: the reader's confidences are calibrated when a reading is made, and a reading enters the
model as given only above the pack's as-given threshold (none is shipped: see reader.yaml's provenance)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.perception.calibration import ReaderCalibration, load
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from lexlogic.engine.verdict.build import build_verdict, read_case
from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import SHIPPED_RULES
from tests.perception.one_text import document
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
TEXT = (
    "Les Ateliers Berthier fournissaient des pièces usinées à la société Volnay Industrie depuis mars 2012. "
    "Par lettre recommandée du 12 janvier 2022, Volnay Industrie a mis fin à la relation avec un préavis de "
    "deux mois."
)


def shipped() -> ReaderCalibration:
    cal = load(SHIPPED_RULES / "rupture_brutale")
    assert cal is not None
    return cal


def test_the_shipped_calibration_says_where_it_comes_from_and_was_fitted_on_no_frozen_set() -> None:
    cal = shipped()
    assert "tests/perception/calib" in cal.fitted_on  # the blind calibration set (session 3)
    assert not any(w in " ".join(cal.fitted_on) for w in ("heldout", "transfer", "frozen"))
    assert all(not (ROOT / s / "FROZEN").exists() for s in cal.fitted_on)
    assert "scripts/calibrate_reader.py" in cal.provenance
    assert cal.as_given_provenance  # how the threshold was chosen, even when none is set


def test_the_map_is_monotone_in_the_raw_score_and_stays_a_probability() -> None:
    cal = shipped()
    for fact, vtype in [("notice_written", "bool"), ("defendant_name", "str"), ("relation_start", "date")]:
        values = [cal.confidence(fact, vtype, raw / 100) for raw in range(40, 101, 5)]
        assert values == sorted(values)
        assert all(0 < v < 1 for v in values)


def test_a_reading_is_calibrated_when_it_is_made_and_keeps_the_readers_score() -> None:
    pack = SHIPPED.pack("rupture_brutale")
    facts = to_case_file(extract([document(TEXT)], pack), "t", pack)["facts"]
    raw = to_case_file(extract([document(TEXT)], pack, calibrate=False), "t", pack)["facts"]
    assert facts.keys() == raw.keys() and facts
    cal = shipped()
    types = {n: s.type.value for n, s in pack.facts.items()}
    for name, fv in facts.items():
        assert fv["raw_confidence"] == raw[name]["confidence"]
        alleged = fv.get("allegation") == "alleged"
        assert fv["confidence"] == cal.confidence(name, types[name], raw[name]["confidence"], alleged)
        assert "as_given" not in fv  # the shipped calibration sets no threshold


def _pack_with_threshold(tmp_path: Path, threshold: float) -> Any:
    root = tmp_path / "rules"
    shutil.copytree(SHIPPED_RULES / "rupture_brutale", root / "rupture_brutale")
    path = root / "rupture_brutale" / "calibration" / "reader.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["as_given_from"] = threshold
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return PackLibrary(root).pack("rupture_brutale")


def test_above_the_threshold_a_reading_enters_as_given_below_it_does_not(tmp_path: Path) -> None:
    pack = _pack_with_threshold(tmp_path, 0.86)
    facts = to_case_file(extract([document(TEXT)], pack), "t", pack)["facts"]
    above = {n for n, fv in facts.items() if fv["confidence"] >= 0.86}
    below = set(facts) - above
    assert above and below  # the text gives both kinds
    assert {n for n, fv in facts.items() if fv.get("as_given")} == above


def test_a_reading_entered_as_given_is_not_weighed_but_still_worded_as_read() -> None:
    """As given: the model takes its value (P as if given) and does not ask it; it stays « lu », never
    « établi ». Below the threshold, the same reading weighs P(value) = c."""
    import json

    case = json.loads((ROOT / "examples" / "rupture_brutale" / "facts.json").read_text(encoding="utf-8"))
    grounding = [{"kind": "document", "document_id": "piece", "page": 1, "char_start": 0, "char_end": 4, "quote": "x"}]
    given = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False).probability.p_target
    value = case["facts"]["fault_serious"]
    value = value["value"] if isinstance(value, dict) else value
    case["facts"]["fault_serious"] = {"value": value, "confidence": 0.6, "grounding": grounding}
    weighed = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    case["facts"]["fault_serious"]["as_given"] = True
    entered = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    assert weighed.probability.p_target != pytest.approx(given, abs=1e-6)
    assert entered.probability.p_target == pytest.approx(given, abs=1e-12)
    assert entered.knowledge["fault_serious"].status.value == "read"
    assert not entered.knowledge["fault_serious"].on_record


def test_a_malformed_calibration_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "calibration").mkdir()
    (tmp_path / "calibration" / "reader.yaml").write_text("version: 1\nraw_points: []\n", encoding="utf-8")
    with pytest.raises(LexlogicError, match=r"reader\.yaml"):
        load(tmp_path)


def test_the_benchmark_ece_matches_a_hand_computation() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import calibration as bench

    rows = [{"confidence": 0.85, "right": r} for r in (1, 1, 1, 0)] + [{"confidence": 0.95, "right": 1}] * 4
    # bin [0.8, 0.9): accuracy 0.75 vs 0.85; bin [0.9, 1.0]: 1.0 vs 0.95; weights 1/2 each
    assert bench.ece(rows) == pytest.approx(0.5 * 0.10 + 0.5 * 0.05)
    assert bench.precise_from(rows) == 0.95
