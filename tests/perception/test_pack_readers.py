"""Perception reads pack data only (issue 16): the structural readers follow a pack's ``extraction.yaml``,
another pack's dossier reads its own facts (a number of days, not a count of orders), and ``lexlogic check``
catches mistakes in an extraction specification at their line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lexlogic.engine.documents.ingest import ingest_dossier
from lexlogic.engine.perception.model import to_case_file
from lexlogic.engine.perception.offline import extract
from lexlogic.logic.extraction import extraction_problems, load_extraction
from lexlogic.logic.pack import load_pack
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]


def test_late_payment_dossier_reads_the_agreed_term_in_days() -> None:
    docs = ingest_dossier(ROOT / "examples" / "late_payment" / "dossier")
    facts = to_case_file(extract(docs, SHIPPED.pack("late_payment")), "lp", SHIPPED.pack("late_payment"))["facts"]
    assert facts["agreed_term_days"]["value"] == 45
    assert isinstance(facts["agreed_term_days"]["value"], int)
    assert facts["agreed_term_kind"]["value"] == "days_end_of_month"
    own = set(load_pack(ROOT / "rules" / "late_payment").facts)
    assert set(facts) <= own  # nothing of another pack's vocabulary
    by_id = {d.id: d for d in docs}
    for fv in facts.values():
        for g in fv["grounding"]:
            assert by_id[g["document_id"]].text[g["char_start"] : g["char_end"]] == g["quote"]


def test_the_structural_readers_are_the_packs() -> None:
    """The shipped pack declares its structural readers; every fact they name is one of its facts."""
    spec = load_extraction(ROOT / "rules" / "rupture_brutale")
    assert spec is not None and spec.structural.event is not None and spec.structural.table is not None
    facts = load_pack(ROOT / "rules" / "rupture_brutale").facts
    named = [c.fact for c in spec.structural.clauses] + [c.fact for c in spec.structural.contract]
    named += [c.fact for c in spec.structural.table.columns]
    assert named and set(named) <= set(facts)
    assert extraction_problems(ROOT / "rules" / "rupture_brutale", facts) == []
    assert extraction_problems(ROOT / "rules" / "late_payment", load_pack(ROOT / "rules" / "late_payment").facts) == []


@pytest.fixture()
def broken(tmp_path: Path) -> Path:
    dst = tmp_path / "rupture_brutale"
    shutil.copytree(ROOT / "rules" / "rupture_brutale", dst)
    return dst


@pytest.mark.parametrize(
    "old,new,message",
    [
        ("  claim_date:\n", "  claim_dat:\n", "unknown fact 'claim_dat' (did you mean 'claim_date'?)"),
        ("- fact: minimum_volume\n", "- fact: minimum_volum\n", "unknown fact 'minimum_volum'"),
        ("    reader: amounts_by_year\n", "    reader: percent\n", "reader 'percent' cannot read a amounts_by_year"),
        ("      partial_terms: [", "      partial_term: [", "'partial_term' is not one of its values"),
        ("    pattern: tacite\\s+reconduction\n", "    pattern: tacite(\\s+reconduction\n", "not a regular expression"),
    ],
)
def test_check_reports_extraction_mistakes_at_their_line(broken: Path, old: str, new: str, message: str) -> None:
    path = broken / "extraction.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    problems = extraction_problems(broken, load_pack(broken).facts)
    hits = [(line, msg) for _f, line, msg in problems if message in msg]
    assert hits, problems
    line = hits[0][0]
    assert line is not None and new.strip() in path.read_text(encoding="utf-8").splitlines()[line - 1]


def test_check_cli_fails_on_a_broken_extraction(broken: Path) -> None:
    from lexlogic.engine.workbench.check import check_pack

    path = broken / "extraction.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  claim_date:\n", "  claim_dat:\n", 1), encoding="utf-8")
    problems = check_pack(broken)
    assert any("extraction.yaml" in p.file and "claim_dat" in p.message for p in problems)


def test_e5_retrieval_is_opt_in_and_only_proposes_sentences_with_a_value() -> None:
    """With no cue in the text, a value reader finds nothing unless the pack sets min_similarity; then the
    sentence most like the question that carries a length is read (e5 query/passage)."""
    from lexlogic.engine.documents.layout import detect_blocks
    from lexlogic.engine.documents.model import Document, DocumentKind, Page
    from lexlogic.engine.perception import reader as rd
    from lexlogic.logic.extraction import ExtractionSpec, FactExtraction

    text = "Les usages de la profession imposent six mois. Le marché du bois a baissé. Nous livrons des palettes."
    doc = Document(
        id="e5",
        kind=DocumentKind.OTHER,
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=detect_blocks(text, page=1),
        metadata={"author_party": "neutral"},
    )
    fs = FactExtraction(
        question="Quel préavis les usages du secteur prévoient-ils (en mois) ?",
        reader="months",
        cues=["délai de prévenance"],
    )
    off = rd.SpecReader(ExtractionSpec(facts={"usage_months": fs}), {"usage_months": "months"})
    v = rd.view(doc)
    assert off._read_fact(v, "usage_months", fs, None) == []
    on_fs = fs.model_copy(update={"min_similarity": 0.5})
    on = rd.SpecReader(ExtractionSpec(facts={"usage_months": on_fs}), {"usage_months": "months"})
    (f,) = on._read_fact(v, "usage_months", on_fs, None)
    assert f.value == 6.0 and "six mois" in f.grounding[0].quote
