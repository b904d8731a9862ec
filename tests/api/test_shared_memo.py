"""The verdict service keeps one symbolic memo per pack version across requests (issue 33: a what-if that
moves a prior reuses the case's analysis). A verdict from a warm service must be byte for byte the one a
fresh service computes."""

from __future__ import annotations

import json
from pathlib import Path

from lexlogic.api.context import current
from lexlogic.engine.verdict.build import VerdictService

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())


def test_a_warm_service_gives_the_fresh_services_bytes() -> None:
    packs = current().packs
    warm = VerdictService(packs)
    first = json.loads(warm.verdict_json("c", EXAMPLE, {}, {})[0])
    sliders = [s["name"] for s in first["sliders"] if s["group"] == "priors"][:3]
    asked = [({}, {name: 0.3}) for name in sliders] + [({"notice_written": True}, {}), ({}, {})]
    for answers, priors in asked:  # each computed by the warm service after the others
        warm.verdict_json("c", EXAMPLE, answers, priors)
    assert warm.memo(next(iter(warm._memos))).counts["analyse"] < len(asked) + 1  # analyses were reused
    for answers, priors in asked:
        fresh = VerdictService(packs).verdict_json("c", EXAMPLE, answers, priors)[0]
        assert warm.verdict_json("c", EXAMPLE, answers, priors)[0] == fresh, (answers, priors)
