"""The parties' submissions into the case: verified claims move facts, unsupported ones do not."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.case.submissions import weigh_submissions
from lexlogic.engine.documents.ingest import ingest_dossier
from lexlogic.logic.facts import parse_case
from tests.support.packs import pack_by_name

LETTER = (
    "Objet : fin de nos relations commerciales.\n\n"
    "Par la présente lettre du 15 mars 2024, nous vous notifions la rupture de nos relations "
    "commerciales. Un préavis de trois mois vous est accordé.\n\n"
    "Une mise en demeure vous avait été adressée le 9 octobre 2023 pour des retards de livraison.\n"
)


def _dossier(tmp_path: Path) -> Path:
    folder = tmp_path / "dossier"
    folder.mkdir()
    (folder / "lettre.md").write_text(LETTER, encoding="utf-8")
    return folder


def test_verified_claim_sets_the_fact_with_its_evidence(tmp_path: Path) -> None:
    pack, _ = pack_by_name("rupture_brutale")
    folder = _dossier(tmp_path)
    case = parse_case({"pack": "rupture_brutale", "case_id": "s", "facts": {}}, pack)
    submission = (
        "La rupture nous a été notifiée par lettre du 15 mars 2024. "
        "Le fournisseur a reçu une indemnité de 2 millions d'euros en 2022."
    )
    updated, report = weigh_submissions(
        pack,
        case,
        ingest_dossier(folder),
        [("claimant", submission)],
        index_dir=tmp_path / "index",
        fallacy_check=False,
    )
    statuses = {c.claim: c.status for c in report.claims}
    assert "VERIFIED" in statuses.values()
    fact = updated.facts["notification_date"].model_dump(mode="json")
    assert fact["value"] == "2024-03-15" and fact["confidence"] >= 0.8
    quote = fact["grounding"][0]["quote"]
    assert "15 mars 2024" in quote and quote in LETTER  # the evidence span, verbatim
    unsupported = [c for c in report.claims if "indemnité" in c.claim]
    assert unsupported and unsupported[0].status == "UNKNOWN"
    assert "annual_turnover" not in updated.facts  # saying is not proving


def test_contradicted_date_opens_two_readings(tmp_path: Path) -> None:
    pack, _ = pack_by_name("rupture_brutale")
    case = parse_case({"pack": "rupture_brutale", "case_id": "s", "facts": {}}, pack)
    updated, report = weigh_submissions(
        pack,
        case,
        ingest_dossier(_dossier(tmp_path)),
        [("defence", "La rupture a été notifiée par lettre du 2 mai 2024.")],
        index_dir=tmp_path / "index",
        fallacy_check=False,
    )
    assert report.claims[0].status in ("CONTRADICTED", "AMBIGUOUS")
    fact = updated.facts["notification_date"].model_dump(mode="json")
    values = {fact["value"], *(a["value"] for a in fact.get("alternatives", []))}
    assert values == {"2024-05-02", "2024-03-15"}
    assert fact["world"] == "NARRATIVE_B"


def test_cli_applies_submissions(tmp_path: Path) -> None:
    folder = _dossier(tmp_path)
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"pack": "rupture_brutale", "facts": {"notice_written": True}}))
    sub = tmp_path / "conclusions.md"
    sub.write_text(
        "Une mise en demeure a été adressée le 9 octobre 2023 pour des retards de livraison.", encoding="utf-8"
    )
    result = CliRunner().invoke(
        app,
        [
            "analyze",
            str(case),
            "--format",
            "json",
            "--no-input",
            "--evidence",
            str(folder),
            "--defence-submission",
            str(sub),
        ],
        env={"LEXLOGIC_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["submissions"]["claims"][0]["status"] == "VERIFIED"
    assert data["values"]["formal_notice_sent"]["value"] is True
    missing = CliRunner().invoke(app, ["analyze", str(case), "--defence-submission", str(sub)])
    assert missing.exit_code == 2 and "--evidence" in missing.output
