"""The second pack speaks its own words end to end: CLI text and JSON, the HTML report, the HTTP API the
page reads, and the page's own assets carry no rupture-brutale wording."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.api.report_html import render_report
from lexlogic.engine.verdict.build import build_verdict, read_case
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "examples/late_payment/facts.json"
CASE = json.loads(FACTS.read_text(encoding="utf-8"))
# words only the rupture-brutale pack may print
RUPTURE = re.compile(r"rupture|brutal|préavis|responsabilit|dommages-intérêts|L\.?442|notification", re.I)
runner = CliRunner()


def _spaces(text: str) -> str:
    return text.replace("\u202f", " ").replace("\xa0", " ")


def _clean(text: str, where: str) -> None:
    hits = sorted({m.group(0) for m in RUPTURE.finditer(unescape(text))})
    assert not hits, f"{where}: rupture wording {hits}"


def test_cli_text_speaks_late_payment() -> None:
    result = runner.invoke(app, ["analyze", str(FACTS), "--no-input"])
    assert result.exit_code == 0, result.output
    _clean(result.output, "CLI text")
    assert "Pénalités de retard dues" in result.output
    # 80 days across 1 July 2024 (issue 31): 61 d × 14,5 % + 19 d × 14,25 % = 1 155,25 ; 18 600 × 1 155,25 / 36 500
    # = 588,70 € of penalties + 40 € + 380 € justified costs = 1 008,70 € (one rate for the whole delay: 1 011 €)
    assert "1 008,70" in _spaces(result.output)  # to the cent (issue 29) on the per-semester sum (issue 31)


def test_cli_json_speaks_late_payment() -> None:
    result = runner.invoke(app, ["analyze", str(FACTS), "--no-input", "--format", "json"])
    assert result.exit_code == 0, result.output
    _clean(result.output, "CLI JSON")
    data = json.loads(result.output)
    assert data["target_label"] == "pénalités de retard dues"
    assert data["summary"].startswith(
        "Pénalités de retard dues : 80 jours de retard au taux annuel moyen de 14,44 % (taux de chaque semestre)."
    )
    assert "1 008,70 €" in _spaces(data["summary"])


def test_report_speaks_late_payment() -> None:
    verdict = build_verdict(read_case(SHIPPED, CASE), {}, packs=SHIPPED)
    state = {
        "case_id": CASE["case_id"],
        "status": "verdict",
        "evaluation": verdict.model_dump(mode="json"),
        "case_file": CASE,
    }
    html = render_report(state, [], SHIPPED.pack("late_payment"))
    _clean(html, "HTML report")
    assert "pénalités de retard" in unescape(html).lower()


def test_page_assets_name_no_pack() -> None:
    for asset in sorted((ROOT / "api" / "static").glob("*")):
        if asset.suffix in {".js", ".html", ".css"}:
            _clean(asset.read_text(encoding="utf-8"), f"page asset {asset.name}")


@pytest.fixture
def api_client(tmp_path: Path) -> Iterator[tuple[object, dict[str, str]]]:
    from fastapi.testclient import TestClient

    from lexlogic.api.app import create_app
    from lexlogic.api.deps import ApiSettings

    application = create_app(ApiSettings(db_url=f"sqlite:///{tmp_path / 'api.db'}", data_dir=tmp_path / "data"))
    _, key = application.state.services.tenants.create_key("tenant-lp")
    with TestClient(application) as client:
        yield client, {"X-API-Key": key}


def test_api_verdict_the_page_reads_speaks_late_payment(api_client: tuple[object, dict[str, str]]) -> None:
    client, headers = api_client
    r = client.post("/v1/cases", json={"case_file": CASE}, headers=headers)  # type: ignore[attr-defined]
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    run = client.post(f"/v1/cases/{cid}/run?stream=false", headers=headers)  # type: ignore[attr-defined]
    assert run.status_code == 200, run.text
    verdict = client.get(f"/v1/cases/{cid}/verdict", headers=headers)  # type: ignore[attr-defined]
    assert verdict.status_code == 200, verdict.text
    _clean(verdict.text, "API verdict")
    assert verdict.json()["target_label"] == "pénalités de retard dues"
