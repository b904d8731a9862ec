"""What a new what-if does not redo (issue 33, 33t): a what-if that moves only a model prior keeps the case
object, so its narratives' analyses are read from the verdict service, not split and looked up again (an answer
is another key); and the route reads the head's number once, the what-if computed and kept at that head. The
bytes stay those of a verdict computed afresh (``test_whatif_spliced_bytes``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lexlogic.api.context import current
from lexlogic.engine.verdict.build import VerdictService

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())


class _Counted(VerdictService):
    """The service, counting the narrative analyses it is asked for."""

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.analysed = 0

    def analyse(self, case: Any, answers: dict[str, Any] | None = None) -> dict[str, Any]:
        self.analysed += 1
        return super().analyse(case, answers)


def test_a_prior_only_what_if_reads_the_narratives_kept_and_an_answer_does_not() -> None:
    svc = _Counted(current().packs)
    base = json.loads(svc.verdict_json("c", EXAMPLE, {}, {}, proofs="target")[0])
    sliders = [s["name"] for s in base["sliders"] if s["group"] == "priors"]
    lines = [(w["world"], w["label"], w["summary"]) for w in base["worlds"]]
    first = svc.analysed
    assert first >= 1
    for i, name in enumerate(sliders[:3]):
        moved = json.loads(svc.verdict_json("c", EXAMPLE, {}, {name: 0.2 + 0.1 * i}, proofs="target")[0])
        assert [(w["world"], w["label"], w["summary"]) for w in moved["worlds"]] == lines
    assert svc.analysed == first  # no narrative analysed again for a prior
    svc.verdict_json("c", EXAMPLE, {"notice_written": False}, {sliders[0]: 0.3}, proofs="target")
    assert svc.analysed > first  # an answer is analysed afresh


def test_a_new_what_if_reads_the_head_once(sqlite_api: Any) -> None:
    """The route reads the head's number once (awaited) and computes the what-if at that head: no further read
    of it on the worker thread (three were made there, ~1 ms of a new what-if's CPU on PostgreSQL)."""
    api, c = sqlite_api, sqlite_api.client
    svc = c.app.state.services
    cid = api.create_facts_case()
    base = c.get(f"/v1/cases/{cid}/verdict", headers=api.h()).json()
    name = next(s["name"] for s in base["sliders"] if s["group"] == "priors")
    reads: list[str] = []
    plain = svc.runs.head_seq
    svc.runs.head_seq = lambda run_id: reads.append(run_id) or plain(run_id)
    try:
        r = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.37}}, headers=api.h())
        again = c.post(f"/v1/cases/{cid}/what-if", json={"priors": {name: 0.37}}, headers=api.h())
    finally:
        svc.runs.head_seq = plain
    assert r.status_code == 200 and r.headers["x-cache"] == "miss"
    assert again.status_code == 200 and again.headers["x-cache"] == "hit"  # kept under the head it was asked at
    assert again.content == r.content
    assert reads == []


def test_prior_only_what_ifs_keep_the_outcomes_knowledge(monkeypatch: Any) -> None:
    """How each outcome is known depends on the case, the answers, the analysis and the facts' knowledge, which a
    prior-only what-if all keeps: the table is made once (33z), an answer makes its own; the bytes stay those
    of a fresh verdict (``test_whatif_spliced_bytes``)."""
    from lexlogic.engine.verdict import epistemic

    made: list[int] = []
    plain = epistemic.outcome_knowledge
    monkeypatch.setattr(epistemic, "outcome_knowledge", lambda *a: made.append(1) or plain(*a))
    svc = VerdictService(current().packs)
    base = json.loads(svc.verdict_json("c", EXAMPLE, {}, {}, proofs="target")[0])
    sliders = [s["name"] for s in base["sliders"] if s["group"] == "priors"]
    for i, name in enumerate(sliders[:4]):
        moved = json.loads(svc.verdict_json("c", EXAMPLE, {}, {name: 0.2 + 0.1 * i}, proofs="target")[0])
        assert moved["outcome_knowledge"] == base["outcome_knowledge"]
    assert len(made) == 1
    svc.verdict_json("c", EXAMPLE, {"notice_written": False}, {sliders[0]: 0.3}, proofs="target")
    assert len(made) == 2  # an answer: its own analysis, its own table


def test_prior_only_what_ifs_keep_the_remedy_sentence_and_the_rules_set_aside(monkeypatch: Any) -> None:
    """Both read the pack, the remedy's outcome, the range, the label and the values' rows — all kept by a
    prior-only what-if: worded once (33z); an answer's new analysis words them again, the same way as afresh."""
    from lexlogic.engine.verdict import wording

    calls: list[str] = []
    for name in ("remedy_text", "set_aside_rules"):
        plain = getattr(wording, name)
        monkeypatch.setattr(wording, name, lambda *a, _n=name, _f=plain: calls.append(_n) or _f(*a))
    svc = VerdictService(current().packs)
    base = json.loads(svc.verdict_json("c", EXAMPLE, {}, {}, proofs="target")[0])
    sliders = [s["name"] for s in base["sliders"] if s["group"] == "priors"]
    for i, name in enumerate(sliders[:4]):
        moved = json.loads(svc.verdict_json("c", EXAMPLE, {}, {name: 0.2 + 0.1 * i}, proofs="target")[0])
        assert (moved["remedy_text"], moved["set_aside_rules"]) == (base["remedy_text"], base["set_aside_rules"])
    assert sorted(calls) == ["remedy_text", "set_aside_rules"]
    answered = json.loads(svc.verdict_json("c", EXAMPLE, {"notice_written": False}, {}, proofs="target")[0])
    assert len(calls) == 4
    fresh = json.loads(VerdictService(current().packs).verdict_json("c", EXAMPLE, {"notice_written": False}, {})[0])
    assert (answered["remedy_text"], answered["set_aside_rules"]) == (fresh["remedy_text"], fresh["set_aside_rules"])
