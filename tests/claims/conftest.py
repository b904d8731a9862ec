"""Shared fixtures: the evaluation dossiers' evidence memories, embedded once per session."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.memory import EvidenceMemory
from lexlogic.settings import Settings
from tests.claims.evaluate import load_dossiers


@pytest.fixture(scope="session")
def dossiers():  # type: ignore[no-untyped-def]
    return load_dossiers()


@pytest.fixture(scope="session")
def memories(dossiers):  # type: ignore[no-untyped-def]
    return {name: EvidenceMemory.build(docs) for name, docs in dossiers.items()}


@pytest.fixture(scope="session")
def dossier_documents():  # type: ignore[no-untyped-def]
    """The shipped dossier, ingested (text, PDF and OCR; cached by the ingestion)."""
    from lexlogic.engine.documents.ingest import ingest_dossier
    from tests.claims.independent import DOSSIER

    return ingest_dossier(DOSSIER, cache=Settings().documents_cache)


@pytest.fixture(scope="session")
def shipped(dossier_documents):  # type: ignore[no-untyped-def]
    """The hybrid evidence memory of the shipped dossier (issue 19), embedded once per session."""
    from lexlogic.engine.claims.retrieval import HybridMemory

    return HybridMemory.build(dossier_documents)
