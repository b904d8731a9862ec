"""A pack's weights are read with the pack, kept with it in the pack cache, and a broken weights file is
still reported where it always was: at the verdict, naming the file (issue 33: a cold command reads no YAML)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lexlogic.engine.packs.library import load_folder
from lexlogic.engine.prob.case_model import weights_of
from lexlogic.logic.pack import files_read, load_pack
from lexlogic.logic.weights import WeightsError, load_weights

ROOT = Path(__file__).resolve().parents[2]


def test_a_pack_carries_the_weights_its_file_gives() -> None:
    pack = load_pack(ROOT / "rules" / "rupture_brutale")
    assert pack.manifest.files.weights is not None
    path = pack.root / pack.manifest.files.weights
    assert pack.weights == load_weights(path)
    assert weights_of(pack) is pack.weights
    assert path in files_read(pack)  # the pack cache checks its sum before serving an entry
    none = load_pack(ROOT / "rules" / "late_payment")  # a pack that declares no weights
    assert none.manifest.files.weights is None and none.weights is None and weights_of(none) is None


def test_edited_weights_are_never_served_from_an_older_entry(tmp_path: Path) -> None:
    root = tmp_path / "rupture_brutale"
    shutil.copytree(ROOT / "rules" / "rupture_brutale", root)
    cache = tmp_path / "cache"
    before = load_folder(root, cache).pack.weights
    assert before is not None and before.soft_rules
    weights = root / "weights.yaml"
    first = before.soft_rules[0]
    text = weights.read_text(encoding="utf-8")
    assert text.count(f"id: {first.id}") == 1
    weights.write_text(text.replace(f"id: {first.id}", f"id: {first.id}_edited"), encoding="utf-8")
    after = load_folder(root, cache).pack.weights
    assert after is not None and after.soft_rules[0].id == f"{first.id}_edited"
    assert after == load_weights(weights)


def test_weights_that_do_not_read_are_reported_at_the_verdict_as_before(tmp_path: Path) -> None:
    root = tmp_path / "rupture_brutale"
    shutil.copytree(ROOT / "rules" / "rupture_brutale", root)
    (root / "weights.yaml").write_text("priors: [unclosed\n", encoding="utf-8")
    pack = load_pack(root)  # the pack itself still loads
    assert pack.weights is None
    with pytest.raises(WeightsError, match="weights.yaml:.*invalid YAML"):
        weights_of(pack)
