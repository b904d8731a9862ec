"""Evidence memory: persistence per case, rebuild on change, the empty dossier."""

import numpy as np

from lexlogic.engine.claims.judge_offline import OfflineJudge
from lexlogic.engine.claims.memory import EvidenceMemory
from lexlogic.engine.claims.models import Status
from lexlogic.engine.claims.verify import find_evidence
from lexlogic.engine.documents.model import Document

DOCS = [
    Document(id="lettre", text="Le 12 mars 2021, Beta a notifié à Alpha la rupture avec un préavis de trois mois."),
    Document(id="facture", text="Facture n° 458 du 30 juin 2021 : 85 000 euros TTC dus par Lambda à Kappa."),
]


def test_index_is_persisted_reused_and_rebuilt_on_change(tmp_path):
    first = EvidenceMemory.open(tmp_path, DOCS)
    assert first.rebuilt and (tmp_path / "memory.json").exists() and (tmp_path / "index" / "vectors.npy").exists()
    again = EvidenceMemory.open(tmp_path, DOCS)
    assert not again.rebuilt and again.key == first.key
    np.testing.assert_array_equal(again.index.vectors, first.index.vectors)
    assert [m.grounding for m in again.memories] == [m.grounding for m in first.memories]
    claim = "Beta a notifié la rupture avec un préavis de trois mois."
    assert find_evidence(again, claim, judge=OfflineJudge()).status is Status.VERIFIED

    changed = [DOCS[0].model_copy(update={"text": DOCS[0].text.replace("trois", "six")}), DOCS[1]]
    third = EvidenceMemory.open(tmp_path, changed)
    assert third.rebuilt and third.key != first.key
    # the unchanged document's vector is reused bit for bit
    np.testing.assert_array_equal(third.index.vectors[1], first.index.vectors[1])
    assert find_evidence(third, claim, judge=OfflineJudge()).status is Status.CONTRADICTED


def test_damaged_store_is_rebuilt_not_trusted(tmp_path):
    EvidenceMemory.open(tmp_path, DOCS)
    (tmp_path / "index" / "vectors.npy").write_bytes(b"garbage")
    mem = EvidenceMemory.open(tmp_path, DOCS)
    assert mem.rebuilt and len(mem) == 2


def test_claim_against_an_empty_dossier(tmp_path):
    mem = EvidenceMemory.open(tmp_path, [])
    assert len(mem) == 0
    r = find_evidence(mem, "Beta a notifié la rupture le 12 mars 2021.", judge=OfflineJudge())
    assert r.status is Status.UNKNOWN and r.confidence == 0.0 and r.evidence is None and r.candidates == 0
    assert not EvidenceMemory.open(tmp_path, []).rebuilt


def test_hnsw_backend_gives_the_same_memories_as_exact(memories):
    exact = memories["alpha_beta"]
    hnsw = EvidenceMemory(exact.memories, exact.index.vectors, backend="hnsw")
    assert hnsw.index.backend == "hnsw"
    claim = "La marge brute réalisée par Alpha est de 32 %."
    assert [c.memory.id for c in hnsw.search(claim, 3)] == [c.memory.id for c in exact.search(claim, 3)]
