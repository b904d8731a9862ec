"""Each status path of the offline judge (candidates built directly: the judge's own logic), then the
same paths end to end through find_evidence on a real embedded memory."""

import pytest

from lexlogic.engine.claims.judge_offline import OfflineJudge
from lexlogic.engine.claims.models import Candidate, Stance, Status
from lexlogic.engine.claims.verify import find_evidence
from tests.claims.candidates import candidate

JUDGE = OfflineJudge()


def cand(text: str, sim: float = 0.9, doc: str = "d") -> Candidate:
    return candidate(text, sim, doc)


LETTER = "Par lettre du 12 mars 2021, la société Beta a notifié à Alpha la rupture avec un préavis de trois mois."


def test_verified_when_every_stated_detail_matches():
    j = JUDGE.judge("Beta a notifié la rupture avec un préavis de trois mois.", [cand(LETTER)])
    assert j.status is Status.VERIFIED and j.stances == [Stance.SUPPORTS]


@pytest.mark.parametrize(
    "claim,why",
    [
        ("Beta a notifié la rupture avec un préavis de six mois.", "durée"),
        ("Par lettre du 15 mars 2021, Beta a notifié la rupture à Alpha.", "date"),
        ("Beta a notifié la rupture à Alpha sans préavis.", "polarité"),
    ],
)
def test_contradicted_on_duration_date_negation(claim, why):
    j = JUDGE.judge(claim, [cand(LETTER)])
    assert j.status is Status.CONTRADICTED, j.nuances
    assert why in j.nuances[0]


def test_ambiguous_when_memories_disagree():
    a = cand("Le chiffre d'affaires réalisé par Alpha avec Beta s'élève à 1 200 000 euros HT en 2020.", doc="a")
    b = cand("Le chiffre d'affaires réalisé par Alpha avec Beta s'élève à 1 150 000 euros HT en 2020.", doc="b")
    j = JUDGE.judge("Le chiffre d'affaires d'Alpha avec Beta s'élève à 1 200 000 euros HT en 2020.", [a, b])
    assert j.status is Status.AMBIGUOUS and j.stances == [Stance.SUPPORTS, Stance.CONTRADICTS]


@pytest.mark.parametrize(
    "claim,memory",
    [
        # similar-looking but a threat is not a rupture (modality)
        ("Beta a rompu la relation avec Alpha.", "Beta a menacé de rompre la relation avec Alpha."),
        # on topic, but the memory does not state the claimed amount
        ("Beta a versé à Alpha une indemnité de 50 000 euros.", "Beta a refusé toute discussion sur une indemnité."),
        # different subject sharing a word
        (
            "Le contrat contient une clause compromissoire.",
            "Le contrat de distribution est conclu entre Alpha et Beta.",
        ),
    ],
)
def test_unknown_when_nothing_settles_the_claim(claim, memory):
    j = JUDGE.judge(claim, [cand(memory)])
    assert j.status is Status.UNKNOWN, j.nuances


def test_low_similarity_is_never_evidence():
    j = JUDGE.judge("Beta a notifié la rupture avec un préavis de trois mois.", [cand(LETTER, sim=0.5)])
    assert j.status is Status.UNKNOWN and j.stances == [Stance.IRRELEVANT]


@pytest.mark.parametrize(
    "dossier,claim,status",
    [
        ("gamma_delta", "Gamma a passé 184 commandes auprès de Delta entre 2015 et 2022.", Status.VERIFIED),
        ("gamma_delta", "Gamma a passé 148 commandes auprès de Delta entre 2015 et 2022.", Status.CONTRADICTED),
        ("epsilon_zeta", "Epsilon réalisait 45 % de son chiffre d'affaires avec Zeta.", Status.AMBIGUOUS),
        ("kappa_lambda", "Kappa a saisi le tribunal de commerce de Lyon le 3 janvier 2022.", Status.UNKNOWN),
    ],
)
def test_find_evidence_status_paths(memories, dossier, claim, status):
    r = find_evidence(memories[dossier], claim, k=3, judge=JUDGE)
    assert r.status is status
    assert r.candidates == 3 and 0.0 < r.confidence <= 1.0
    if status is Status.UNKNOWN:
        assert r.evidence is None
        return
    ev = r.evidence
    assert ev is not None and ev.grounding.document_id == ev.document_id
    doc = next(
        d
        for d in __import__("tests.claims.evaluate", fromlist=["x"]).load_dossiers()[dossier]
        if d.id == ev.document_id
    )
    assert doc.text[ev.grounding.char_start : ev.grounding.char_end] == ev.grounding.quote == ev.content
    if status is Status.AMBIGUOUS:
        assert r.contradictory and all(e.stance is Stance.CONTRADICTS for e in r.contradictory)
        assert {ev.document_id} != {e.document_id for e in r.contradictory}


def test_result_json_has_the_issue_fields(memories):
    r = find_evidence(
        memories["alpha_beta"], "La marge brute réalisée par Alpha sur les ventes à Beta est de 23 %.", judge=JUDGE
    )
    data = r.model_dump(mode="json")
    assert data["status"] == "CONTRADICTED"
    assert {"claim", "status", "confidence", "evidence", "contradictory"} <= set(data)
    assert {"source_id", "content", "nuance"} <= set(data["evidence"])
    assert "32" in data["evidence"]["nuance"]
