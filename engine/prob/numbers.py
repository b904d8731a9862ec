"""Numbers as distributions (placeholder while being written)."""

from __future__ import annotations

from typing import Any


def finish_verdict(pack: Any, case: Any, model: Any, verdict: Any, answers: Any, dynamic: Any, seed: int = 0) -> Any:
    verdict.soft_factors = {**model.folded, **verdict.soft_factors}
    return verdict
