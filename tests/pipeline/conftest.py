"""Shared fixtures of the pipeline tests: the example dossier, ingested once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"


@pytest.fixture(scope="session")
def docs():
    from lexlogic.engine.documents.ingest import ingest_dossier

    return ingest_dossier(DOSSIER)


@pytest.fixture(scope="session")
def perception(docs):
    from lexlogic.engine.perception.offline import extract

    return extract(docs, SHIPPED.pack("rupture_brutale"))


@pytest.fixture(scope="session")
def case_file(perception):
    from lexlogic.engine.perception.model import to_case_file

    return to_case_file(perception, "example", SHIPPED.pack("rupture_brutale"))


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("LEXLOGIC_HOME", str(tmp_path / "home"))
