"""The case axis (issue 33, build item 3) draws every case's worlds exactly as the case alone draws them.

``prob.case_axis`` draws the sampled worlds of many cases of one structure together; ``jobs.portfolio_axis``
parks each case of a group where it asks for them and resumes it with its slice. Checked: the digits, mask,
observed atoms and generator state of each case equal the per-case draw (``infer.sample_digits`` then the
circuit, what ``sampled_worlds.sampled`` computes), including priors 0 and 1 and a categorical root; and whole
verdicts (every number's distribution, the questions) of real cases of one skeleton are equal with and
without the axis, the axis having drawn for them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lexlogic.engine.case.evaluation import CaseEvaluator
from lexlogic.engine.jobs.portfolio_axis import CaseAxisRun
from lexlogic.engine.jobs.portfolio_groups import skeleton
from lexlogic.engine.prob import BoolVar, CategoricalVar, Option, ProbProgram, case_axis, infer
from lexlogic.logic.facts import parse_case
from lexlogic.logic.memos import Memos
from tests.distributed.make_cases import write_cases
from tests.support.packs import SHIPPED

N, SEED = 1 << 12, 0


def _program(p: list[float], c: list[float]) -> ProbProgram:
    """One structure (four yes/no roots, one three-way root, a constraint); priors ``p`` and ``c``."""
    rules = "d0 :- f0, not f1.\nd0 :- c(2), f2.\nd1 :- f3, c(0).\n:- f1, f2, c(1).\n"
    variables: list[BoolVar | CategoricalVar] = [BoolVar(name=f"f{i}", atom=f"f{i}", prior=q) for i, q in enumerate(p)]
    variables.append(CategoricalVar(name="c", options=[Option(atom=f"c({j})", prob=q) for j, q in enumerate(c)]))
    return ProbProgram(program=rules, variables=variables, target="d0", queries=["d1"])


def _alone(prog: ProbProgram) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """What the case draws alone (``sampled_worlds.sampled``'s computation)."""
    rng = np.random.default_rng(SEED)
    digits, _, _ = infer.sample_digits(prog, infer.prior_vectors(prog.variables), N, rng)
    mask, obs = infer.compiled(prog).evaluate(digits)
    return digits, mask, obs, rng.bit_generator.state


@pytest.mark.parametrize("together", [1 << 20, 2 * N])  # one block; blocks of two cases (``case_axis.TOGETHER``)
def test_each_case_gets_the_worlds_it_draws_alone(together: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(case_axis, "TOGETHER", together)
    progs = [
        _program([0.3, 0.5, 0.9, 0.1], [0.2, 0.3, 0.5]),
        _program([0.0, 1.0, 0.5, 0.5], [1.0, 0.0, 0.0]),  # priors 0 and 1 exactly
        _program([0.7, 0.05, 0.4, 0.6], [0.1, 0.1, 0.8]),
        _program([0.3, 0.5, 0.9, 0.11], [0.5, 0.25, 0.25]),
    ]
    memos = Memos()  # one owner: one compiled circuit per structure
    c = infer.compiled(progs[0], memos)
    assert all(infer.compiled(p, memos) is c for p in progs)  # one structure
    priors = [infer.prior_vectors(p.variables) for p in progs]
    together = list(case_axis.sampled_on_axis(progs[0], c, priors, N, SEED))
    for prog, w in zip(progs, together, strict=True):
        digits, mask, obs, state = _alone(prog)
        assert np.array_equal(w.digits, digits) and w.digits.dtype == digits.dtype
        assert np.array_equal(w.mask, mask) and np.array_equal(w.obs, obs)
        assert w.state == state
    assert not np.array_equal(together[0].digits, together[2].digits)  # the cases' worlds do differ


@pytest.fixture(scope="module")
def one_skeleton(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Cases of ``make_cases.py`` that share one skeleton (the portfolio's group key), the largest group."""
    d = tmp_path_factory.mktemp("axis") / "cases"
    write_cases(d, 60)
    by: dict[str, list[Path]] = {}
    for f in sorted(d.glob("*.json")):
        raw = json.loads(f.read_text(encoding="utf-8"))
        by.setdefault(skeleton(raw, SHIPPED.pack(raw.get("pack"))), []).append(f)
    return max(by.values(), key=len)[:10]


def _verdicts(files: list[Path], axis: CaseAxisRun | None) -> list[dict]:
    packs = SHIPPED
    evaluator = CaseEvaluator(packs, draw_worlds=axis.worlds if axis is not None else None)

    def verdict(f: Path) -> dict:
        raw = json.loads(f.read_text(encoding="utf-8"))
        case = parse_case(raw, packs.pack(raw.get("pack")), f.stem)
        return evaluator.evaluate(case, {}).model_dump(mode="json")

    tasks = [lambda f=f: verdict(f) for f in files]  # type: ignore[misc]
    return axis.run(tasks) if axis is not None else [t() for t in tasks]


def test_whole_verdicts_are_the_same_with_the_case_axis(one_skeleton: list[Path]) -> None:
    assert len(one_skeleton) >= 3
    alone = _verdicts(one_skeleton, None)
    axis = CaseAxisRun()
    together = _verdicts(one_skeleton, axis)
    assert axis.batches >= 1  # the worlds were drawn on the axis, not case by case
    # the numbers' distributions are compared, not empty lists
    assert sum(bool(v["probability"]["distributions"]) for v in alone) >= 3
    for a, b in zip(alone, together, strict=True):
        assert a == b
