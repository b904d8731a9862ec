"""Results → prior updates / two worlds on named facts of rules/rupture_brutale/facts.yaml."""

from pathlib import Path

import yaml

from lexlogic.engine.claims.case_updates import (
    CONTRADICTED_PRIOR,
    VERIFIED_PRIOR,
    load_map,
    match_fact,
    updates_for,
    value_of,
)
from lexlogic.engine.claims.models import Evidence, Stance, Status, VerificationResult
from lexlogic.logic.grounding import Grounding

FACTS = yaml.safe_load(Path("rules/rupture_brutale/facts.yaml").read_text(encoding="utf-8"))["facts"]


def ev(text: str, stance: Stance, doc: str = "d1") -> Evidence:
    return Evidence(
        source_id=f"{doc}#0",
        document_id=doc,
        content=text,
        nuance="n",
        similarity=0.9,
        stance=stance,
        grounding=Grounding(document_id=doc, char_start=10, char_end=10 + len(text), quote=text),
    )


def res(claim: str, status: Status, main: Evidence | None, others: list[Evidence] = ()) -> VerificationResult:
    return VerificationResult(claim=claim, status=status, confidence=0.9, evidence=main, contradictory=list(others))


def test_every_mapped_fact_exists_in_the_pack():
    for rule in load_map():
        assert rule.fact in FACTS, rule.fact


def test_matching_is_declarative_and_ordered():
    rules = load_map()
    assert match_fact("Le contrat prévoit un préavis de six mois.", rules).fact == "contractual_notice_months"
    assert match_fact("Beta a accordé un préavis de trois mois.", rules).fact == "notice_given_months"
    assert match_fact("Alpha n'a reçu aucune mise en demeure.", rules).fact == "formal_notice_sent"
    assert match_fact("Il pleuvait ce jour-là.", rules) is None
    assert value_of("Alpha n'a reçu aucune mise en demeure.", "polarity") is False
    assert value_of("notifiée le 12 mars 2021", "date") == "2021-03-12"
    assert value_of("un chiffre d'affaires de 1 200 000 euros HT en 2020", "amount_by_year") == {"2020": 1_200_000.0}


def test_verified_raises_contradicted_lowers_or_splits_ambiguous_splits():
    letter = ev("Beta a notifié la rupture avec un préavis de trois mois.", Stance.SUPPORTS)
    out = updates_for(
        [
            res("Beta a accordé un préavis de trois mois.", Status.VERIFIED, letter),
            res(
                "Beta a adressé une mise en demeure à Alpha.",
                Status.CONTRADICTED,
                ev("Alpha n'a reçu aucune mise en demeure de Beta.", Stance.CONTRADICTS),
            ),
            res(
                "Beta a accordé un préavis de six mois.",
                Status.CONTRADICTED,
                ev("Beta a notifié la rupture avec un préavis de trois mois.", Stance.CONTRADICTS),
            ),
            res(
                "Le chiffre d'affaires était de 1 200 000 euros HT en 2020.",
                Status.AMBIGUOUS,
                ev("chiffre d'affaires de 1 200 000 euros HT en 2020", Stance.SUPPORTS, "a"),
                [ev("chiffre d'affaires de 1 150 000 euros HT en 2020", Stance.CONTRADICTS, "b")],
            ),
            res("Il pleuvait.", Status.UNKNOWN, None),
            res("Une phrase vérifiée sans fait connu du pack.", Status.VERIFIED, letter),
        ]
    )
    raised, lowered = out.priors
    assert (raised.fact, raised.value, raised.probability) == ("notice_given_months", 3.0, VERIFIED_PRIOR)
    assert raised.grounding[0].quote == letter.content
    assert (lowered.fact, lowered.value, lowered.probability) == ("formal_notice_sent", True, CONTRADICTED_PRIOR)
    split, disputed = out.ambiguities
    assert split.fact == "notice_given_months" and (split.world_a.value, split.world_b.value) == (6.0, 3.0)
    assert split.world_b.grounding and not split.world_a.grounding
    assert disputed.fact == "annual_turnover"
    assert disputed.world_a.value == {"2020": 1_200_000.0} and disputed.world_b.value == {"2020": 1_150_000.0}
    assert {g.document_id for w in (disputed.world_a, disputed.world_b) for g in w.grounding} == {"a", "b"}
    assert out.unmapped == ["Une phrase vérifiée sans fait connu du pack."]
