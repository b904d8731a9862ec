"""Issue 19, round 4: the judge reads predicate-argument frames (``engine/claims/frames.py``), not wordings.

Claims written for these tests. Unit tests read the frames of sentences written here; the end-to-end tests
run ``find_evidence`` on the shipped dossier. The two paraphrase claims were judged VERIFIED (a dangerous
error) and UNKNOWN before frames; the « never VERIFIED » claims guard the frame support against being too
loose (the circumstance one was VERIFIED by it at a lower coverage floor before the circumstance check)."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims import frames as fr
from lexlogic.engine.claims.verify import DEFAULT_K, ReadingJudge, find_evidence

WHO = fr.Parties({"alpha": "alpha", "beta": "beta", "fournisseur": "beta", "julien": "alpha"})
MAIL = "from: julien dupont <j.dupont@alpha.fr>\nto: marie roux <m.roux@beta.fr>\n"


def _status(shipped, claim: str) -> str:  # type: ignore[no-untyped-def]
    return find_evidence(shipped, claim, k=DEFAULT_K, judge=ReadingJudge()).judged.value


# --- frames of one sentence ------------------------------------------------------------------------------
def test_a_verb_and_its_nominalisation_are_one_predicate_class():
    verb = {f.cls for f in fr.frames("Alpha a résilié le contrat le 3 mai.")}
    noun = {f.cls for f in fr.frames("La résiliation du contrat par Alpha est intervenue le 3 mai.")}
    light = {f.cls for f in fr.frames("Alpha a mis fin au contrat le 3 mai.")}
    assert "end" in verb and "end" in noun and "end" in light


def test_the_agent_is_read_from_the_parse_active_passive_and_cleft():
    assert WHO.resolve(fr.frames("Beta a notifié la rupture à Alpha.")[0].agent) == "beta"
    passive = [f for f in fr.frames("La rupture a été notifiée par Beta à Alpha.") if f.cls == "notify"]
    assert WHO.resolve(passive[0].agent) == "beta"
    cleft = [f for f in fr.frames("C'est Beta qui a notifié la rupture à Alpha.") if f.cls == "notify"]
    assert WHO.resolve(cleft[0].agent) == "beta"


def test_an_e_mail_s_we_is_its_sender_and_a_defined_term_is_its_party():
    (f,) = [f for f in fr.frames("Nous vous informons de la rupture de nos relations.") if f.cls == "notify"]
    assert WHO.resolve(f.agent, MAIL) == "alpha" and WHO.resolve(f.recipient, MAIL) == "beta"
    docs = {"c": "entre la societe alpha conseil, sas, ci-apres denommee « le prestataire », et beta"}
    who = fr.parties(frozenset({"Alpha", "Beta"}), {**docs, "n": "alpha " * 3 + "beta " * 3})
    assert who.resolve("prestataire") == "alpha"


def test_same_act_by_another_party_contradicts():
    why = fr.clash("Beta a résilié le contrat.", "Alpha a résilié le contrat le 3 mai.", "", WHO)
    assert "alpha" in why
    assert fr.clash("Alpha a résilié le contrat.", "La résiliation du contrat par Alpha.", "", WHO) == ""


def test_antonym_and_one_sided_negation_contradict_an_aligned_frame():
    assert fr.clash("Alpha a refusé la proposition.", "Alpha accepte la proposition de Beta.", "", WHO)
    assert fr.clash("Alpha a augmenté ses tarifs.", "Alpha a baissé ses tarifs en 2022.", "", WHO)
    assert fr.clash("Alpha n'a pas résilié le contrat.", "Alpha a résilié le contrat.", "", WHO)
    assert not fr.clash("Alpha a augmenté ses tarifs.", "Alpha a augmenté ses tarifs en 2022.", "", WHO)


def test_support_needs_every_frame_every_verb_classed_and_every_circumstance_named():
    passage = "Nous vous informons de notre décision de mettre fin à nos relations commerciales."
    assert fr.supports("Alpha a notifié à Beta la rupture des relations commerciales.", passage, MAIL, WHO)
    assert not fr.supports("Beta a notifié à Alpha la rupture des relations.", passage, MAIL, WHO)  # agent
    assert not fr.supports("Alpha a négocié la rupture des relations.", passage, MAIL, WHO)  # unclassed verb
    assert not fr.supports("Alpha a notifié la rupture par voie d'huissier.", passage, MAIL, WHO)  # circumstance


def test_interpretive_predicates_are_read_from_the_lemma():
    assert fr.interpretive("Le courriel du 3 mai constituait un préavis de rupture.")
    assert fr.interpretive("Alpha a toléré les retards de Beta.")
    assert not fr.interpretive("Alpha a notifié la rupture à Beta.")


# --- the judge on the shipped dossier ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "claim,status",
    [
        # the supplier did not propose the price cut: the distributor's buyer did (« notre proposition »)
        ("La biscuiterie a proposé à Distrimarché une baisse de 6 % de ses tarifs.", "CONTRADICTED"),
        # « nous vous informons de notre décision de mettre fin à nos relations »: notify + end, nominalised
        ("Distrimarché a annoncé au fournisseur sa décision de cesser leurs relations commerciales.", "VERIFIED"),
    ],
)
def test_frames_decide_paraphrases(shipped, claim, status):
    assert _status(shipped, claim) == status


@pytest.mark.parametrize(
    "claim",
    [
        "La biscuiterie a consenti au déréférencement de ses produits.",  # the e-mails say nothing of consent
        "Le courriel du 1er février 2024 constituait un préavis de rupture.",  # what a piece was worth
        "Distrimarché a notifié la rupture par voie d'huissier.",  # a circumstance no piece names
        "La biscuiterie a décidé de déréférencer les produits de Distrimarché.",  # the parties swapped
    ],
)
def test_frames_never_verify_what_the_pieces_do_not_state(shipped, claim):
    assert _status(shipped, claim) != "VERIFIED"


# --- a dossier written for the test: who acted, said by one piece or by two that disagree ------------------
def _mini(with_attestation: bool):  # type: ignore[no-untyped-def]
    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.documents.model import Document, DocumentKind

    docs = [
        Document(
            id="lettre",
            kind=DocumentKind.LETTER,
            text="Lettre de la société Orion à la société Vega.\n\nLa société Orion a résilié le contrat de "
            "maintenance le 3 mai 2022. Orion regrette cette issue.",
        ),
        Document(
            id="note",
            kind=DocumentKind.OTHER,
            text="Note. Orion et Vega sont en litige. Orion livre Vega depuis 2015. Vega paie Orion chaque mois.",
        ),
    ]
    if with_attestation:
        docs.append(
            Document(
                id="attestation",
                kind=DocumentKind.OTHER,
                text="Attestation de la société Vega.\n\nLa société Vega a résilié le contrat de maintenance le "
                "3 mai 2022. Vega confirme ce fait.",
            )
        )
    return HybridMemory.build(docs)


def test_the_act_given_to_another_party_contradicts_and_two_pieces_that_disagree_are_ambiguous():
    one, two = _mini(False), _mini(True)
    claim = "Vega a résilié le contrat de maintenance."
    assert find_evidence(one, claim, k=DEFAULT_K, judge=ReadingJudge()).judged.value == "CONTRADICTED"
    assert find_evidence(two, claim, k=DEFAULT_K, judge=ReadingJudge()).judged.value == "AMBIGUOUS"
    said = "La société Orion a mis fin au contrat de maintenance."  # « a mis fin » / « a résilié »
    assert find_evidence(two, said, k=DEFAULT_K, judge=ReadingJudge()).judged.value == "AMBIGUOUS"
