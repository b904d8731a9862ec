"""A what-if's JSON splices the fields it shares with the previous what-if (proof trees, tables, checks) from
the service's cache (issue 33, 33q). Its bytes must be those of one ``model_dump_json`` of a verdict computed
afresh, whatever came before: a prior-only what-if after another reuses them; an answer (new proofs, new values)
must not read the previous ones, nor a prior-only what-if after it read the answer's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lexlogic.api.context import current
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.symbolic.memo import RunMemo
from lexlogic.engine.verdict.build import VerdictService, build_verdict, compact

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())


def _fresh(packs: PackLibrary, answers: dict[str, Any], priors: dict[str, float], proofs: str) -> bytes:
    """The verdict computed by a new service and a new memo, dumped at once (no splice, no reuse)."""
    svc = VerdictService(packs)
    v = build_verdict(
        svc.read(EXAMPLE), answers, packs=packs, case_id="c", priors=priors, analyser=svc.analyse, memo=RunMemo()
    )
    return (v if proofs == "all" else compact(v)).model_dump_json().encode()


@pytest.mark.parametrize("proofs", ["target", "all"])
def test_each_what_if_has_the_bytes_of_a_fresh_verdict(proofs: str) -> None:
    packs = current().packs
    warm = VerdictService(packs)
    base = json.loads(warm.verdict_json("c", EXAMPLE, {}, {}, proofs=proofs)[0])  # type: ignore[arg-type]
    sliders = [s["name"] for s in base["sliders"] if s["group"] == "priors"]
    asked: list[tuple[dict[str, Any], dict[str, float]]] = [
        ({}, {sliders[0]: 0.3}),
        ({}, {sliders[1]: 0.7}),  # prior-only after prior-only: the shared fields reused
        ({"notice_written": False}, {sliders[0]: 0.3}),  # an answer: other proofs and values
        ({"notice_written": False}, {sliders[1]: 0.2}),
        ({}, {sliders[2]: 0.6}),  # prior-only again, after the answer's
        ({"fault_proven": True}, {}),
    ]
    for answers, priors in asked:
        got = warm.verdict_json("c", EXAMPLE, answers, priors, proofs=proofs)[0]  # type: ignore[arg-type]
        want = _fresh(packs, answers, priors, proofs)
        assert got == want, (answers, priors, proofs)
    assert warm._fields.hits >= 8  # the prior-only what-ifs did splice cached fields


def test_prior_only_what_ifs_share_their_outcomes_without_trees() -> None:
    """``proofs=target`` (the API's default): the proof-less outcomes are copied once per analysis (the service's
    ``compact`` memo), so a prior-only what-if splices their JSON instead of copying and re-encoding them (33z)."""
    packs = current().packs
    warm = VerdictService(packs)
    base = json.loads(warm.verdict_json("c", EXAMPLE, {}, {}, proofs="target")[0])
    sliders = [s["name"] for s in base["sliders"] if s["group"] == "priors"]
    for i, name in enumerate(sliders[:3]):
        got = warm.verdict_json("c", EXAMPLE, {}, {name: 0.25 + 0.1 * i}, proofs="target")[0]
        assert got == _fresh(packs, {}, {name: 0.25 + 0.1 * i}, "target")
    assert len(warm._fields._data["outcomes"]) == 1  # one JSON of the outcomes for the base and the 3 what-ifs
    warm.verdict_json("c", EXAMPLE, {"notice_written": False}, {}, proofs="target")
    assert len(warm._fields._data["outcomes"]) == 2  # an answer: other outcomes, their own JSON
