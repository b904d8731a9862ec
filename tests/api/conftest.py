"""Fixtures of the API tests: an app on a fresh database (SQLite or PostgreSQL) with two tenants."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lexlogic.api.app import create_app
from lexlogic.api.deps import Settings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())
DOSSIER = ROOT / "examples/rupture_brutale/dossier"


@dataclass
class Api:
    client: TestClient
    key_a: str
    key_b: str
    key_a2: str = ""  # a second principal (another person) of tenant A: approvals

    def h(self, who: str = "a") -> dict[str, str]:
        return {"X-API-Key": {"a": self.key_a, "a2": self.key_a2}.get(who, self.key_b)}

    def create_facts_case(self, who: str = "a", case_file: dict[str, Any] | None = None) -> str:
        r = self.client.post("/v1/cases", json={"case_file": case_file or EXAMPLE}, headers=self.h(who))
        assert r.status_code == 201, r.text
        return r.json()["id"]


def make_api(db_url: str, tmp_path: Path, **settings: Any) -> Iterator[Api]:
    app = create_app(Settings(db_url=db_url, data_dir=tmp_path / "data", **settings))
    svc = app.state.services
    _, key_a = svc.tenants.create_key("tenant-a")
    _, key_b = svc.tenants.create_key("tenant-b")
    _, key_a2 = svc.tenants.create_key("tenant-a", label="reviewer")
    with TestClient(app) as client:
        yield Api(client, key_a, key_b, key_a2)


@pytest.fixture
def api(db_url: str, tmp_path: Path) -> Iterator[Api]:
    """Parametrised over SQLite and PostgreSQL (the shared ``db_url`` fixture)."""
    yield from make_api(db_url, tmp_path)


@pytest.fixture
def sqlite_api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(f"sqlite:///{tmp_path / 'api.db'}", tmp_path)
