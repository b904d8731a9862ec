"""Issue 19: hybrid retrieval, the reading judge, derived facts, and batch accounting, on the shipped dossier."""

from __future__ import annotations

import numpy as np
import pytest

from lexlogic.bridges.text_index import TextIndex, reciprocal_rank_fusion
from lexlogic.engine.claims.batch import account_submission, classify, split_submission
from lexlogic.engine.claims.judge_reading import ReadingJudge
from lexlogic.engine.claims.models import Status
from lexlogic.engine.claims.normalise import normalise
from lexlogic.engine.claims.quantities import quantities
from lexlogic.engine.claims.verify import find_evidence
from lexlogic.engine.text.terms import search_terms


def test_normalise_numbers_and_dates_on_both_sides():
    assert normalise("trois cent quatre-vingt mille euros") == "380000 euros"
    assert normalise("380 000 € HT") == "380000 € HT"
    assert normalise("vingt-huit pour cent") == "28 %"
    assert normalise("Date: Fri, 15 Mar 2024 11:20:00 +0100") == "Date: 15 mars 2024 à 11h20"
    assert normalise("le premier avril 2024") == "le 1er avril 2024"
    assert normalise("2023;51;1610000.00;450800.00") == "2023;51;1610000;450800"


def test_quantities_have_a_kind_and_a_role():
    q = {(x.kind, x.role) for x in quantities("douze commandes ont été livrées avec plus de cinq jours de retard")}
    assert ("count", "late_orders") in q and ("duration", "lateness") in q
    (notice,) = [x for x in quantities("moyennant un préavis de deux mois") if x.kind == "duration"]
    assert notice.role == "notice" and round(notice.value) == 61
    (rel,) = quantities("les parties travaillaient ensemble depuis plus de onze ans")
    assert rel.role == "relation" and rel.cmp == ">"
    (total,) = quantities("Le cumul des commandes passées en 2021 et 2022 s'élève à cent quatre.")
    assert (total.kind, total.role, total.value) == ("count", "orders", 104.0)


def test_bm25_tokens_and_rrf():
    assert search_terms("Les commandes livrées, 380000 € HT") == ("command", "livre", "380000", "ht")
    idx = TextIndex(["préavis de deux mois", "commandes livrées en retard", "marge brute 2013"], search_terms)
    ids, _ = idx.search("retards de livraison des commandes", 3)
    assert list(ids)[0] == 1
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60)
    assert [d for d, _ in fused][:2] == [1, 3]


def test_passages_are_sentences_with_neighbours(shipped):
    ids = {m.id: m for m in shipped.memories}
    table = [m for m in shipped.memories if m.grounding.note == "table"]
    assert len(table) == 1 and "2024;24;702000.00;196560.00" in table[0].text
    scan = [m for m in shipped.memories if m.text.startswith("douze commandes")]
    assert scan and scan[0].document_id == "07-mise-en-demeure-scan" and "retards" in scan[0].context
    assert any(m.heading.startswith("Article 4") for m in ids.values())


@pytest.mark.parametrize(
    "claim,quote",
    [
        ("Douze commandes ont été livrées avec plus de cinq jours de retard.", "douze commandes ont été livrées"),
        ("La cliente a investi 380 000 € HT en 2019.", "investi 380 000"),
        ("trois cent quatre-vingt mille euros investis dans une ligne dédiée", "investi 380 000"),
    ],
)
def test_hybrid_retrieval_finds_what_three_chunks_missed(shipped, claim, quote):
    texts = [c.memory.text for c in shipped.search(claim, 10)]
    assert any(quote in " ".join(t.split()) for t in texts), texts


def test_derived_facts(shipped):
    f = shipped.facts
    (rel,) = quantities("travaillaient ensemble depuis plus de onze ans au déréférencement")
    d = f.duration(rel, "travaillaient ensemble depuis plus de onze ans au déréférencement")
    assert d is not None and int(d.value) == 4029  # 4/03/2013 -> 15/03/2024
    (total,) = quantities("au total 572 commandes")
    assert f.table_value(total, "au total 572 commandes").value == 572
    claim = "la marge brute moyenne des 3 derniers exercices complets avoisine 430 000 euros"
    (avg,) = [q for q in quantities(claim) if q.kind == "amount"]
    assert round(f.table_value(avg, claim).value) == 430267  # 2024 is partial: 2021-2023
    assert f.replies and f.replies[0][0] < 1  # the reply came the next morning


@pytest.mark.parametrize(
    "claim,status",
    [
        # the examples: a lateness is not a notice; the contract's initial term is not the relation
        ("Douze commandes ont été livrées avec plus de cinq jours de retard.", Status.VERIFIED),
        ("Les parties travaillaient ensemble depuis plus de onze ans lors du déréférencement.", Status.VERIFIED),
        ("La Biscuiterie a donné son accord au déréférencement.", Status.AMBIGUOUS),
        ("Distrimarché a accordé un préavis de six mois.", Status.CONTRADICTED),
        ("Le contrat-cadre est entré en vigueur le 4 mars 2014.", Status.CONTRADICTED),
        ("La Biscuiterie emploie quarante-deux salariés.", Status.UNKNOWN),
    ],
)
def test_reading_judge(shipped, claim, status):
    r = find_evidence(shipped, claim, judge=ReadingJudge())
    assert r.judged is status, [(e.source_id, e.stance.value, e.nuance) for e in r.readings]


def test_derived_evidence_points_at_its_sources(shipped):
    r = find_evidence(
        shipped, "Distrimarché a attendu plus de cinq mois après sa mise en demeure pour mettre fin au contrat."
    )
    assert r.judged is Status.VERIFIED
    # one of the passages that date the mise en demeure: the scanned letter, or the e-mail citing it
    # (« notre mise en\ndemeure du 9 octobre 2023 », read across its line wrap since the second session)
    assert r.evidence is not None
    assert r.evidence.source_id.startswith(("07-mise-en-demeure-scan", "05-courriel-dereferencement"))
    assert "9 octobre 2023" in " ".join(r.evidence.content.split())
    assert "calculé" in r.evidence.nuance


def test_batch_accounts_for_every_sentence(shipped):
    text = (
        "# Conclusions\n\nLe quinze mars 2024, Distrimarché a décidé de déréférencer les produits. "
        "Elle a entendu mettre fin à la relation avec un préavis de trois mois. La concluante a saisi le "
        "tribunal de commerce de Paris le 12 septembre 2024. Comment survivre ? "
        "Il est demandé au tribunal de condamner Distrimarché."
    )
    sentences = split_submission(text)
    account = account_submission(shipped, text)
    assert len(account.sentences) == len(sentences) == 6
    kinds = [s.kind for s in account.sentences]
    assert kinds == ["heading", "claim", "claim", "claim", "question", "request"]
    assert all(s.reason for s in account.sentences if s.kind != "claim")
    assert all(s.status != "NOT_A_CLAIM" and s.result is not None for s in account.claims)
    assert classify("Engage sa responsabilité celui qui rompt brutalement une relation.")[0] == "statement_of_law"


def test_vectors_are_reused_when_the_dossier_is_unchanged(tmp_path, dossier_documents):
    from lexlogic.engine.claims.retrieval import HybridMemory

    a = HybridMemory.open(tmp_path / "idx", dossier_documents)
    b = HybridMemory.open(tmp_path / "idx", dossier_documents)
    assert np.allclose(a.vectors, b.vectors) and (tmp_path / "idx" / "passages.json").exists()


@pytest.mark.parametrize(
    "claim,status",
    [
        ("Le préavis accordé par Distrimarché n'était pas de six mois.", Status.VERIFIED),
        ("Le préavis accordé par Distrimarché n'était pas de trois mois.", Status.CONTRADICTED),
        ("En 2018, l'enseigne n'a pas passé plus de cinquante commandes.", Status.CONTRADICTED),
    ],
)
def test_a_negated_quantity_flips_its_comparison(shipped, claim, status):
    """« n'était pas de trois mois » against a notice of three months is a contradiction, not a support."""
    assert find_evidence(shipped, claim, judge=ReadingJudge()).judged is status
