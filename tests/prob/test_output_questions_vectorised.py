"""The damages questions' information table computed for all facts' rows at once (issue 33) gives the very
floats the row-by-row loop gave: random tables (zero rows, one positive entry, up to ten bins, skewed weights),
and the real example's tables of a verdict and of what-ifs (every ``_output_questions`` call of them replayed
through the loop it replaced, the questions compared exactly)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.prob import numbers
from lexlogic.engine.prob.model import ScoredQuestion
from lexlogic.engine.verdict.build import VerdictService
from lexlogic.settings import SHIPPED_RULES

ROOT = Path(__file__).resolve().parents[2]


def _loop(tables: list[np.ndarray], total: float) -> list[float]:
    """The row-by-row loop of ``_output_questions`` before (the reference)."""
    return [sum(float(row.sum()) / total * numbers._entropy(row) for row in t if row.sum() > 0) for t in tables]


def _tables(seed: int) -> tuple[list[np.ndarray], float]:
    rng = np.random.default_rng(seed)
    nb = int(rng.integers(1, 11))
    tables = []
    for _ in range(int(rng.integers(1, 12))):
        t = rng.random((int(rng.integers(1, 6)), nb)) * rng.choice([1e-6, 1.0, 1e4])
        t[rng.random(t.shape) < rng.random()] = 0.0  # zeros anywhere, whole rows too
        tables.append(t)
    return tables, float(sum(t.sum() for t in tables)) or 1.0


@pytest.mark.parametrize("seed", range(200))
def test_the_same_floats_as_the_row_by_row_loop(seed: int) -> None:
    tables, total = _tables(seed)
    got = numbers._conditional_entropies(tables, total)
    assert [float(x).hex() for x in got] == [float(x).hex() for x in _loop(tables, total)]


def test_the_real_questions_are_those_of_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    real = numbers._output_questions

    def spy(pack: Any, x: np.ndarray, w: np.ndarray, cells: dict[str, np.ndarray], kept: Any = None, **kw: Any):  # type: ignore[no-untyped-def]
        calls.append((pack, x, w, cells))
        return real(pack, x, w, cells, kept, **kw)

    monkeypatch.setattr(numbers, "_output_questions", spy)
    raw = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text(encoding="utf-8"))
    svc = VerdictService(PackLibrary(SHIPPED_RULES))
    base = json.loads(svc.verdict_json("c1", raw, {}, {}, proofs="target")[0])
    sliders = [s["name"] for s in base.get("sliders") or [] if s.get("group") == "priors"]
    for i, name in enumerate(sliders):
        svc.verdict_json("c1", raw, {}, {name: round(0.1 + 0.08 * i, 3)}, proofs="target")
    assert calls and any(len(c[3]) > 1 for c in calls)
    for pack, x, w, cells in calls:
        assert _questions(real(pack, x, w, cells)) == _questions(_reference(pack, x, w, cells))


def _questions(qs: list[ScoredQuestion]) -> list[tuple[str, str, str]]:
    return [(q.variable, q.eig.hex(), q.utility.hex()) for q in qs]


def _reference(pack: Any, x: np.ndarray, w: np.ndarray, cells: dict[str, np.ndarray]) -> list[ScoredQuestion]:
    """``_output_questions`` as it was (its loop), for the same inputs."""
    ok = (w > 0) & ~np.isnan(x)
    bins, nb = numbers._deciles(x, ok)
    h = numbers._entropy(np.bincount(bins[ok], weights=w[ok], minlength=nb))
    out = []
    total = float(w[ok].sum())
    for fact, cell in cells.items():
        spec = pack.facts.get(fact)
        if spec is None or not spec.question or spec.appreciation:
            continue
        c = cell[ok]
        table = np.bincount(c * nb + bins[ok], weights=w[ok], minlength=(int(c.max()) + 1) * nb).reshape(-1, nb)
        eig = max(0.0, h - _loop([table], total)[0])
        if eig >= numbers.MIN_EIG:
            out.append(
                ScoredQuestion(variable=fact, question=spec.question, eig=eig, cost=spec.cost, utility=eig / spec.cost)
            )
    out.sort(key=lambda q: (-q.utility, q.variable))
    return out
