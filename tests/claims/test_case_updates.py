"""Results → prior updates / two worlds on named facts of a pack (its claims.yaml, read by fact_map)."""

import shutil
from pathlib import Path

import pytest

from lexlogic.engine.claims.case_updates import (
    CONTRADICTED_PRIOR,
    VERIFIED_PRIOR,
    load_map,
    match_fact,
    updates_for,
    value_of,
)
from lexlogic.engine.claims.fact_map import map_problems
from lexlogic.engine.claims.models import ClaimEvidence, Stance, Status, VerificationResult
from lexlogic.engine.workbench.check import check_pack
from lexlogic.logic.grounding import Grounding
from lexlogic.logic.pack import load_pack

RULES = Path(__file__).resolve().parents[2] / "rules"
PACKS = ("rupture_brutale", "late_payment")


def ev(text: str, stance: Stance, doc: str = "d1") -> ClaimEvidence:
    return ClaimEvidence(
        source_id=f"{doc}#0",
        document_id=doc,
        content=text,
        nuance="n",
        similarity=0.9,
        stance=stance,
        grounding=Grounding(document_id=doc, char_start=10, char_end=10 + len(text), quote=text),
    )


def res(claim: str, status: Status, main: ClaimEvidence | None, others: list[ClaimEvidence] = ()) -> VerificationResult:
    return VerificationResult(claim=claim, status=status, confidence=0.9, evidence=main, contradictory=list(others))


@pytest.mark.parametrize("name", PACKS)
def test_every_shipped_pack_has_a_clean_map_naming_its_own_facts(name):
    pack = load_pack(RULES / name)
    rules = load_map(pack)
    assert len(rules) >= 10
    assert {r.fact for r in rules} <= set(pack.facts)
    assert map_problems(pack) == []


def test_late_payment_claims_map_to_late_payment_facts():
    rules = load_map(RULES / "late_payment")
    said = {
        "La facture a été payée le 3 mars 2024.": ("payment_date", "2024-03-03"),
        "La facture n'a jamais été payée.": ("paid", False),
        "Le délai de paiement convenu était de 60 jours.": ("agreed_term_days", 60),
        "Une injonction de payer a été signifiée le 3 mars 2024.": ("claim_date", "2024-03-03"),
        "Il reste 12 000 euros impayés.": ("amount_outstanding", 12000.0),
        "Les frais de recouvrement s'élèvent à 800 euros.": ("recovery_costs", 800.0),
        "Le débiteur est en redressement judiciaire.": ("insolvency_proceedings", True),
    }
    for claim, (fact, value) in said.items():
        rule = match_fact(claim, rules)
        assert rule is not None and rule.fact == fact, claim
        assert value_of(claim, rule.take) == value, claim


def test_check_reports_a_misspelled_fact_and_a_wrong_reading_at_their_lines(tmp_path):
    pack_dir = tmp_path / "late_payment"
    shutil.copytree(RULES / "late_payment", pack_dir)
    path = pack_dir / "claims.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  - "))
    lines[first] = "  - {fact: payement_date, when: [[paye]], take: date}"
    lines[first + 1] = "  - {fact: paid, when: [[Payé]], take: amount}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    messages = [f"{p.location()}: {p.message}" for p in check_pack(pack_dir)]
    unknown = [m for m in messages if "unknown fact 'payement_date'" in m]
    assert unknown and unknown[0].startswith(f"{path}:{first + 1}:") and "did you mean 'payment_date'" in unknown[0]
    wrong = [m for m in messages if "take 'amount' cannot fill it" in m]
    assert wrong and wrong[0].startswith(f"{path}:{first + 2}:") and "use: polarity" in wrong[0]
    assert any("prefix 'Payé' is not folded" in m for m in messages)


def test_a_malformed_map_is_a_located_error(tmp_path):
    pack_dir = tmp_path / "late_payment"
    shutil.copytree(RULES / "late_payment", pack_dir)
    (pack_dir / "claims.yaml").write_text("map:\n  - {fact: paid, when: [[paye]], take: maybe}\n", encoding="utf-8")
    (problem,) = map_problems(load_pack(pack_dir))
    assert problem.line == 2 and "take" in problem.message


def test_a_pack_without_map_maps_nothing(tmp_path):
    pack_dir = tmp_path / "late_payment"
    shutil.copytree(RULES / "late_payment", pack_dir)
    (pack_dir / "claims.yaml").unlink()
    assert load_map(pack_dir) == () and map_problems(load_pack(pack_dir)) == []
    assert match_fact("La facture a été payée le 3 mars 2024.", load_map(pack_dir)) is None


def test_matching_is_declarative_and_ordered():
    rules = load_map(RULES / "rupture_brutale")
    assert match_fact("Le contrat prévoit un préavis écrit.", rules).fact == "notice_written"  # no duration
    assert match_fact("Il existait un contrat-cadre entre les parties.", rules).fact == "framework_contract"
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
        ],
        load_map(RULES / "rupture_brutale"),
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
