"""A portfolio group runs with rare full collections of the cyclic collector, and gives the collector back as it
found it (``portfolio_groups.rare_full_collections``; why: the note of issue 33, session 6, helper 33o).

The speed is measured in ``benchmarks/case_axis.py`` and ``/tmp``-style A/B runs, not here; this checks the
mechanism on a real case: while the group's cases run, the third threshold is at least
``FULL_COLLECTION_EVERY`` (the young thresholds untouched); after the group — also when a case fails — the
thresholds are the caller's.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.jobs import portfolio_groups as groups
from lexlogic.settings import SHIPPED_RULES
from tests.distributed.make_cases import write_cases


@pytest.fixture
def caller_thresholds() -> Iterator[tuple[int, int, int]]:
    """Thresholds unlike the defaults, so a restore to the defaults would not pass for a restore to these."""
    before = gc.get_threshold()
    gc.set_threshold(701, 11, 12)
    try:
        yield gc.get_threshold()
    finally:
        gc.set_threshold(*before)


def test_a_group_runs_with_rare_full_collections_and_restores_the_collector(
    tmp_path: Path, caller_thresholds: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = write_cases(tmp_path / "cases", 2)
    seen: list[tuple[int, int, int]] = []
    real = groups.run_case

    def spy(*a: Any, **k: Any) -> dict[str, Any]:
        seen.append(gc.get_threshold())
        if len(seen) == 2:
            raise RuntimeError("a case that fails")  # the group goes on; the collector is still given back
        return real(*a, **k)

    monkeypatch.setattr(groups, "run_case", spy)
    items = [(p.stem, str(p), f"run-{p.stem}") for p in paths]
    lines = groups.run_group(str(SHIPPED_RULES), items, False)
    assert [x["status"] for x in lines][1] == "error" and lines[0]["status"] != "error"
    assert seen == [(701, 11, groups.FULL_COLLECTION_EVERY)] * 2
    assert gc.get_threshold() == caller_thresholds
