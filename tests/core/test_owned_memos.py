"""Issue 33 (session 7): what a run memoises belongs to its owner — a pack library, a run, the verdict service —
and is passed in (``memos=``). Two owners never serve each other's results: a second library computes its own
(with module-level caches it found the first one's circuits and computations and computed nothing), and the
verdicts are the same bytes either way."""

from __future__ import annotations

import copy
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import infer
from lexlogic.engine.symbolic import values
from lexlogic.engine.verdict.build import build_verdict
from lexlogic.logic.facts import parse_case
from lexlogic.settings import SHIPPED_RULES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples" / "rupture_brutale" / "facts.json").read_text(encoding="utf-8"))


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How much real work is done: circuits compiled, computations evaluated."""
    done: Counter[str] = Counter()
    compile_, evaluate = infer.Compiled.__init__, values._evaluate

    def compiling(self: Any, *a: Any, **k: Any) -> None:
        done["compiled"] += 1
        compile_(self, *a, **k)

    def evaluating(*a: Any, **k: Any) -> Any:
        done["evaluated"] += 1
        return evaluate(*a, **k)

    monkeypatch.setattr(infer.Compiled, "__init__", compiling)
    monkeypatch.setattr(values, "_evaluate", evaluating)
    return done


def _verdict(packs: PackLibrary, raw: dict[str, Any] = EXAMPLE) -> str:
    case = parse_case(copy.deepcopy(raw), packs.get("rupture_brutale").pack)
    return build_verdict(case, {}, packs=packs).model_dump_json()


def test_two_libraries_do_not_share_what_they_memoise(work: Counter[str]) -> None:
    a, b = PackLibrary(SHIPPED_RULES), PackLibrary(SHIPPED_RULES)
    first = _verdict(a)
    assert _verdict(a) == first  # the same owner again: its memos serve it
    before = dict(work)
    second = _verdict(b)
    assert second == first  # the same bytes from another owner
    # ... which computed its own: nothing of a's was served to b
    assert work["compiled"] > before.get("compiled", 0), work
    assert work["evaluated"] > before.get("evaluated", 0), work


def test_an_owner_asked_again_computes_nothing_new(work: Counter[str]) -> None:
    a = PackLibrary(SHIPPED_RULES)
    _verdict(a)
    before = dict(work)
    _verdict(a)
    assert work["compiled"] == before.get("compiled", 0)  # its circuits are kept: one compile per structure


def test_a_pack_edited_in_one_library_is_not_served_from_the_other(tmp_path: Path) -> None:
    """Two rules folders, one pack edited (its target's label): each library's verdict is its own pack's."""
    for name in ("one", "two"):
        shutil.copytree(SHIPPED_RULES / "rupture_brutale", tmp_path / name / "rupture_brutale")
    manifest = tmp_path / "two" / "rupture_brutale" / "pack.yaml"
    text = manifest.read_text(encoding="utf-8")
    label = "responsabilité (seconde bibliothèque)"
    assert 'target_label: "responsabilité"' in text
    manifest.write_text(text.replace('target_label: "responsabilité"', f'target_label: "{label}"'), encoding="utf-8")
    one, two = PackLibrary(tmp_path / "one"), PackLibrary(tmp_path / "two")
    v1, v2, v1_again = json.loads(_verdict(one)), json.loads(_verdict(two)), json.loads(_verdict(one))
    assert v1 == v1_again and v1["target_label"] == "responsabilité"
    assert v2["target_label"] == label
