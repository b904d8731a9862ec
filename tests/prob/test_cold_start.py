"""The exact path is numpy only (torch and Pyro are imported for sampling and Pyro inference alone), and
its reverse pass over the einsum steps is the gradient the torch autograd used to give."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lexlogic.engine.prob import analyse, contract
from tests.prob.gen import Spec

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"

PROBE = """
import contextlib, io, json, sys
{body}
print(json.dumps({{m: m in sys.modules for m in ("torch", "pyro", "hypothesis", "spacy", "sqlalchemy", "fastapi")}}))
"""


def _modules(body: str) -> dict[str, bool]:
    r = subprocess.run(
        [sys.executable, "-c", PROBE.format(body=body)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_analyze_facts_imports_neither_torch_nor_what_it_does_not_use() -> None:
    body = (
        "from lexlogic.api.cli import app\n"
        f"sys.argv = ['lexlogic', 'analyze', {str(FACTS)!r}, '--no-input', '--format', 'json']\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        app()\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
        "assert json.loads(out.getvalue())['probability']['method'] == 'exact'\n"
    )
    assert _modules(body) == dict.fromkeys(("torch", "pyro", "hypothesis", "spacy", "sqlalchemy", "fastapi"), False)


PROGRAM = (
    "from tests.prob.gen import Spec\n"
    "spec = Spec(probs=[0.3, 0.6], cats=[[0.2, 0.5, 0.3]], levels=[0, 1],\n"
    "            rules=[(0, ['f0'], ['f1']), (0, ['c0(1)'], []), (1, ['f1'], ['d0'])], constraints=['d1'])\n"
    "from lexlogic.engine.prob import analyse\n"
)


@pytest.mark.parametrize(
    ("method", "pyro"),
    [("exact", False), ("enumerate", False), ("sampling", True), ("pyro", True)],
)
def test_pyro_is_imported_by_the_sampling_paths_only(method: str, pyro: bool) -> None:
    got = _modules(PROGRAM + f"v = analyse(spec.asp(), method={method!r}, samples=4096)\n")
    assert got["pyro"] is pyro and got["torch"] is pyro


def test_sampling_and_pyro_still_agree_with_the_numpy_exact_path() -> None:
    spec = Spec(
        probs=[0.3, 0.6],
        cats=[[0.2, 0.5, 0.3]],
        levels=[0, 1],
        rules=[(0, ["f0"], ["f1"]), (0, ["c0(1)"], []), (1, ["f1"], ["d0"])],
        constraints=["d1"],
    )
    exact = analyse(spec.asp())
    assert exact.evaluator == "contraction"
    for method in ("sampling", "pyro"):
        v = analyse(spec.asp(), method=method, samples=1 << 15, seed=3)  # type: ignore[arg-type]
        assert abs(v.p_target - exact.p_target) <= max(0.01, 3 * v.error), (method, v.p_target, exact.p_target)


def _by_output(eq: str, tensors: list[np.ndarray], j: int) -> np.ndarray:
    """∂(full contraction)/∂(operand j), by definition: the contraction of the others onto j's indices
    (an index of j's alone is summed out in j only, so the derivative is constant along it)."""
    lhs = eq.split("->")[0].split(",")
    others = [k for k in range(len(lhs)) if k != j]
    avail = set("".join(lhs[k] for k in others))
    keep = "".join(ch for ch in lhs[j] if ch in avail)
    g = np.einsum(",".join(lhs[k] for k in others) + "->" + keep, *(tensors[k] for k in others))
    shape = tensors[j].shape
    return np.broadcast_to(g.reshape([d if ch in avail else 1 for ch, d in zip(lhs[j], shape)]), shape)


@pytest.mark.parametrize("seed", range(8))
def test_reverse_pass_equals_the_derivative_of_the_contraction(seed: int) -> None:
    rng = np.random.default_rng(seed)
    letters = "abcdefgh"
    dims = {ch: int(rng.integers(2, 4)) for ch in letters}
    terms = []
    for _ in range(int(rng.integers(3, 9))):  # factors over 1–3 variables, unary ones too (priors)
        k = int(rng.integers(1, 4))
        terms.append("".join(sorted(rng.choice(list(letters[:6]), size=k, replace=False))))
    terms.append("g")  # an index summed within one operand only
    eq = ",".join(terms) + "->"
    tensors = [rng.random(tuple(dims[ch] for ch in t)) + 0.1 for t in terms]
    steps = contract._planned(eq, [t.shape for t in tensors])
    vals, tape, root = contract._forward(steps, tensors)
    assert float(vals[root]) == pytest.approx(float(np.einsum(eq, *tensors)), rel=1e-12)
    grads = contract._backward(vals, tape, root, set(range(len(tensors))))
    for j in range(len(tensors)):
        np.testing.assert_allclose(grads[j], _by_output(eq, tensors, j), rtol=1e-12, atol=1e-14)


def test_a_component_past_52_nodes_contracts() -> None:
    """numpy's einsum names indices with 52 letters only: a wide component (an OR of 60 facts, chained
    factors) is renamed step by step. P(t) = 1 − Π(1 − p_i), and every fact implies t."""
    from lexlogic.engine.prob import BoolVar, ProbProgram

    ps = [0.01 + 0.003 * i for i in range(60)]
    prog = ProbProgram(
        program="\n".join(f"t :- f{i}." for i in range(60)),
        variables=[BoolVar(name=f"f{i}", atom=f"f{i}", prior=p) for i, p in enumerate(ps)],
        target="t",
    )
    v = analyse(prog)
    assert v.evaluator == "contraction"
    assert v.p_target == pytest.approx(1 - float(np.prod([1 - p for p in ps])), abs=1e-12)
    for i in (0, 37, 59):
        assert v.p_variables[f"f{i}"]["oui"] == pytest.approx(ps[i], abs=1e-12)
