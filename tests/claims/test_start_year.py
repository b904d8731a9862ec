"""A claim that a relation began in a year, read against a piece that dates an agreement's start (issue 29):
« prend effet le », « entré en vigueur le », « conclu à compter du » state a start; the year is compared at
year precision; a piece that only names a dated contract, or a price « à compter du », states no start; and
the precision gate still withholds a decision whose passage is below its threshold. Words and dates here are
not the example dossier's (« a débuté en 2013 » / « prend effet le 4 mars 2013 »)."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.judge_reading import ReadingJudge
from lexlogic.engine.claims.models import Candidate, Status
from lexlogic.engine.claims.quantities import agrees, quantities
from lexlogic.engine.claims.verify import result_of
from tests.claims.candidates import candidate

JUDGE = ReadingJudge()


def cand(text: str, sim: float = 0.85, doc: str = "contrat") -> Candidate:
    return candidate(text, sim, doc)


IN_FORCE = "Article 3 – Le contrat de distribution est entré en vigueur le 1er septembre 2016 pour trois ans."
FROM_DATE = "La convention de partenariat est conclue à compter du 12 janvier 2019, pour une durée indéterminée."
TAKES_EFFECT = "Le présent accord d'approvisionnement prend effet le 30 juin 2008."


def test_a_bare_year_dates_a_start_at_year_precision() -> None:
    (q,) = [q for q in quantities("Les relations d'affaires ont commencé en 2016.") if q.kind == "date"]
    assert q.precision == "year"
    assert agrees(q, quantities(IN_FORCE)[0].value, "date")
    (later,) = [q for q in quantities("Les relations d'affaires ont commencé en 2017.") if q.kind == "date"]
    assert not agrees(later, quantities(IN_FORCE)[0].value, "date")


def test_a_year_that_is_not_a_start_is_no_date() -> None:
    """« en 2021, quarante commandes »: the year a figure is about; « début 2024, … »: a time, not a start."""
    assert not [q for q in quantities("En 2021, le distributeur a passé quarante commandes.") if q.kind == "date"]
    assert not [q for q in quantities("Début 2024, le fabricant comptait sur la poursuite.") if q.kind == "date"]


@pytest.mark.parametrize(
    "claim,passage",
    [
        ("Les relations d'affaires entre les parties ont commencé en 2016.", IN_FORCE),
        ("Le partenariat a démarré en 2019.", FROM_DATE),
        ("La relation commerciale entre les sociétés a débuté en 2008.", TAKES_EFFECT),
    ],
)
def test_an_agreement_s_start_supports_the_relation_s_start_year(claim: str, passage: str) -> None:
    assert JUDGE.judge(claim, [cand(passage)]).status is Status.VERIFIED


@pytest.mark.parametrize(
    "claim,passage",
    [
        ("Les relations d'affaires entre les parties ont commencé en 2014.", IN_FORCE),
        ("Le partenariat a démarré en 2020.", FROM_DATE),
    ],
)
def test_another_start_year_contradicts(claim: str, passage: str) -> None:
    j = JUDGE.judge(claim, [cand(passage)])
    assert j.status is Status.CONTRADICTED
    assert any(year in " ".join(j.nuances) for year in ("2016", "2019"))


@pytest.mark.parametrize(
    "passage",
    [
        "Par lettre du 2 mai 2022, le fabricant a résilié le contrat de distribution du 1er septembre 2016.",
        "Les nouveaux tarifs s'appliquent à compter du 1er septembre 2016.",
    ],
)
def test_a_dated_piece_or_a_price_states_no_start(passage: str) -> None:
    j = JUDGE.judge("Les relations d'affaires entre les parties ont commencé en 2016.", [cand(passage)])
    assert j.status is not Status.VERIFIED


def test_the_gate_still_withholds_a_start_below_its_threshold() -> None:
    claim = "Les relations d'affaires entre les parties ont commencé en 2016."
    cands = [cand(IN_FORCE, sim=0.85)]
    r = result_of(claim, cands, JUDGE.judge(claim, cands), JUDGE.name, decide_from=0.87)
    assert r.status is Status.UNKNOWN and r.proposed is Status.VERIFIED
    assert r.evidence is not None and "1er septembre 2016" in r.evidence.content
    high = [cand(IN_FORCE, sim=0.9)]
    assert result_of(claim, high, JUDGE.judge(claim, high), JUDGE.name, decide_from=0.87).status is Status.VERIFIED


def test_the_example_dossier_s_start_is_read_and_gated(shipped) -> None:  # type: ignore[no-untyped-def]
    """The case of the issue: the judge now reads the framework contract's start; the gate decides whether
    it may say so (its threshold is data: engine/claims/data/decision.yaml)."""
    from lexlogic.engine.claims.threshold import shipped as threshold
    from lexlogic.engine.claims.verify import find_evidence

    r = find_evidence(shipped, "La relation commerciale a débuté en 2013")
    assert r.judged is Status.VERIFIED and r.evidence is not None and "2013" in r.evidence.content
    assert (r.status is Status.VERIFIED) == (r.decision_confidence >= threshold().decide_from)
