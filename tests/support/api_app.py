"""The real app on a fresh database with two tenants (and a second principal of tenant A), for the API,
hostile and pipeline tests. The ``api`` and ``sqlite_api`` fixtures (tests/conftest.py) are built on it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings

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
    app = create_app(ApiSettings(db_url=db_url, data_dir=tmp_path / "data", **settings))
    svc = app.state.services
    _, key_a = svc.tenants.create_key("tenant-a")
    _, key_b = svc.tenants.create_key("tenant-b")
    _, key_a2 = svc.tenants.create_key("tenant-a", label="reviewer")
    with TestClient(app) as client:
        yield Api(client, key_a, key_b, key_a2)


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free port of 127.0.0.1 in a thread; yields its base URL once healthy."""
    import socket
    import threading
    import time

    import httpx
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield base
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
