"""Property-based run over the OpenAPI schema (schemathesis, in-process ASGI): no 5xx, no response that
violates the schema (status codes, content types, bodies), schema-invalid data rejected with 4xx."""

from __future__ import annotations

import tempfile
import zlib
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from lexlogic.api.app import create_app
from lexlogic.api.deps import ApiSettings
from tests.support.api_app import EXAMPLE

TMP = Path(tempfile.mkdtemp(prefix="lexlogic-schemathesis-"))
APP = create_app(ApiSettings(db_url=f"sqlite:///{TMP / 'api.db'}", data_dir=TMP / "data"))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
STATE: dict[str, Any] = {}


@pytest.fixture(scope="module", autouse=True)
def seeded() -> None:
    """A tenant and a real case, so generated requests reach the handlers, not only the 404 path."""
    if STATE:
        return
    _, key = APP.state.services.tenants.create_key("fuzz")
    with TestClient(APP) as c:
        r = c.post("/v1/cases", json={"case_file": EXAMPLE}, headers={"X-API-Key": key})
        assert r.status_code == 201
        case_id = r.json()["id"]
        assert (
            c.post(
                f"/v1/cases/{case_id}/documents",
                headers={"X-API-Key": key},
                files={"file": ("note.md", b"# Note\nPreavis de trois mois.\n", "text/markdown")},
            ).status_code
            == 201
        )
        rule = c.post(
            "/v1/dynamic-rules",
            headers={"X-API-Key": key},
            json={"text": "def rule(facts):\n    return {'n': len(facts)}\n", "author": "fuzz"},
        )
        assert rule.status_code == 201, rule.text
    STATE.update(key=key, case_id=case_id, doc_id="note", rule_id=rule.json()["id"])


def _coin(value: Any, n: int) -> int:
    return zlib.crc32(repr(value).encode()) % n


@schema.parametrize()
@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
def test_api_conforms_to_its_schema(case) -> None:  # type: ignore[no-untyped-def]
    params = case.path_parameters or {}
    if "case_id" in params and _coin(params, 4):
        params["case_id"] = STATE["case_id"]  # mostly the real case; sometimes the generated (unknown) id
        if "doc_id" in params and _coin(params.get("doc_id"), 2):
            params["doc_id"] = STATE["doc_id"]
    if "rule_id" in params and _coin(params, 4):
        params["rule_id"] = STATE["rule_id"]
    if "name" in params and _coin(params["name"], 3) == 0 and not case.operation.path.endswith("/test"):
        params["name"] = "rupture_brutale"
    if case.operation.path.endswith("/run"):
        case.query = {**(case.query or {}), "stream": False}  # keep the run synchronous under fuzzing
    # positive_data_acceptance is excluded on purpose: the schema cannot say which facts a pack knows, which
    # readings of a case are ambiguous or which file types ingest; those answer 4xx problems by design.
    case.call_and_validate(  # 60 s: the first evidence-graph call loads spaCy (tens of seconds under load)
        headers={"X-API-Key": STATE["key"]},
        excluded_checks=[schemathesis.checks.positive_data_acceptance],
        timeout=60,
    )
