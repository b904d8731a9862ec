"""Shared fixtures: the evaluation dossiers' evidence memories, embedded once per session."""

from __future__ import annotations

import pytest

from lexlogic.engine.claims.memory import EvidenceMemory
from tests.claims.evaluate import load_dossiers


@pytest.fixture(scope="session")
def dossiers():  # type: ignore[no-untyped-def]
    return load_dossiers()


@pytest.fixture(scope="session")
def memories(dossiers):  # type: ignore[no-untyped-def]
    return {name: EvidenceMemory.build(docs) for name, docs in dossiers.items()}
