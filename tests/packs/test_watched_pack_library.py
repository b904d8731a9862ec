"""A server's pack library (``watch=True``) re-reads a pack whose files changed, looking at them at most every
``watch_every`` seconds (issue 33: the look walked the pack's folder on every ``get``, ~6 times a verdict, 12 % of a
what-if's CPU in the API)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.settings import SHIPPED_RULES


def _edit(folder: Path) -> None:
    """A pack file's modification time moved forward (what an edit does to the stamp)."""
    f = next(p for p in sorted(folder.rglob("*.yaml")))
    t = f.stat().st_mtime + 10
    os.utime(f, (t, t))


def test_an_edited_pack_is_read_again_once_the_interval_has_passed(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(SHIPPED_RULES / "late_payment", rules / "late_payment")
    eager = PackLibrary(rules, "late_payment", watch=True, watch_every=0.0)
    first = eager.get()
    assert eager.get() is first  # nothing changed: the loaded pack is kept
    _edit(rules / "late_payment")
    assert eager.get() is not first  # looked at once: read again

    lazy = PackLibrary(rules, "late_payment", watch=True, watch_every=3600.0)
    kept = lazy.get()
    _edit(rules / "late_payment")
    assert lazy.get() is kept  # within the interval: not looked at, kept
    lazy._looked.clear()  # the interval has passed
    assert lazy.get() is not kept
