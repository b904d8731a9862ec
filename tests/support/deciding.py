"""One way for tests to decide a raw case file: the pack by name, the case parsed from a copy (the raw
dict is reused across calls), then the probabilistic decision with the given answers and what-ifs."""

from __future__ import annotations

import copy
from typing import Any

from lexlogic.engine.verdict.decide import CaseVerdict, decide
from lexlogic.logic.facts import parse_case
from tests.support.packs import SHIPPED, pack_by_name


def decide_case(
    raw: dict[str, Any],
    answers: dict[str, Any] | None = None,
    whatif: dict[str, Any] | None = None,
    *,
    pack_name: str = "rupture_brutale",
    **options: Any,
) -> CaseVerdict:
    """``decide`` on ``raw`` (a case file as JSON) with the named pack; ``options`` go to ``decide`` (``memos``:
    the shipped library's unless given — the tests' decisions share one owner, as a driver's runs do)."""
    options.setdefault("memos", SHIPPED.memos)
    pack, program = pack_by_name(pack_name)
    return decide(pack, program, parse_case(copy.deepcopy(raw), pack), answers, whatif, **options)
