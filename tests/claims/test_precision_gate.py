"""Issue 29, point 2: the claims judge says VERIFIED or CONTRADICTED only at or above the confidence from which
its decisions were right ≥ 97 % of the time on the transfer set; below, UNKNOWN with its passages and the
judge's decision kept as a proposal."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.models import Candidate, Judgement, Memory, Stance, Status
from lexlogic.engine.claims.threshold import gate, shipped
from lexlogic.engine.claims.verify import result_of
from lexlogic.logic.grounding import Grounding


def candidate(similarity: float, text: str = "Le préavis accordé est de trois mois.") -> Candidate:
    g = Grounding(document_id="piece", char_start=0, char_end=len(text))
    return Candidate(memory=Memory(id="m0", document_id="piece", text=text, grounding=g), similarity=similarity)


def judgement(status: Status, stance: Stance) -> Judgement:
    return Judgement(status=status, stances=[stance], nuances=["même durée"])


def test_the_shipped_threshold_says_how_it_was_chosen() -> None:
    t = shipped()
    assert 0.5 < t.decide_from < 1.0
    assert "transfer" in t.provenance and "0.97" in t.provenance.replace("97 %", "0.97")


@pytest.mark.parametrize(
    ("status", "stance"), [(Status.VERIFIED, Stance.SUPPORTS), (Status.CONTRADICTED, Stance.CONTRADICTS)]
)
def test_below_the_threshold_a_decision_is_withheld_with_its_passage(status: Status, stance: Stance) -> None:
    r = result_of("Le préavis était de trois mois.", [candidate(0.80)], judgement(status, stance), "offline", 0.85)
    assert r.status is Status.UNKNOWN
    assert r.proposed is status and r.judged is status
    assert r.evidence is not None and r.evidence.content.startswith("Le préavis")  # the passage stays
    assert r.decision_confidence == pytest.approx(0.80)


@pytest.mark.parametrize(
    ("status", "stance"), [(Status.VERIFIED, Stance.SUPPORTS), (Status.CONTRADICTED, Stance.CONTRADICTS)]
)
def test_at_or_above_the_threshold_the_decision_is_given(status: Status, stance: Stance) -> None:
    r = result_of("Le préavis était de trois mois.", [candidate(0.85)], judgement(status, stance), "offline", 0.85)
    assert r.status is status and r.proposed is None


def test_ambiguous_and_unknown_are_never_gated() -> None:
    assert gate(Status.AMBIGUOUS, 0.1, 0.9) == (Status.AMBIGUOUS, None)
    assert gate(Status.UNKNOWN, 0.1, 0.9) == (Status.UNKNOWN, None)


def test_the_default_is_the_shipped_threshold() -> None:
    t = shipped().decide_from
    below = result_of("c", [candidate(t - 0.001)], judgement(Status.VERIFIED, Stance.SUPPORTS), "offline")
    above = result_of("c", [candidate(t + 0.001)], judgement(Status.VERIFIED, Stance.SUPPORTS), "offline")
    assert (below.status, above.status) == (Status.UNKNOWN, Status.VERIFIED)


def test_the_cli_says_a_withheld_decision_and_shows_its_passage() -> None:
    from lexlogic.api.cli_claims import _render

    r = result_of(
        "Le préavis était de trois mois.",
        [candidate(0.80)],
        judgement(Status.VERIFIED, Stance.SUPPORTS),
        "offline",
        0.85,
    )
    text = _render(r)
    assert text.startswith("UNKNOWN")
    assert "non tranché" in text and "VERIFIED" in text and "0.800" in text
    assert "pièce : piece" in text and "Le préavis accordé est de trois mois." in text
