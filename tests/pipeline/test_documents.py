"""Ingestion keeps layout and exact offsets; chunking never cuts an article or a clause."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lexlogic.engine.documents.chunking import chunk_document
from lexlogic.engine.documents.ingest import IngestError, ingest_file
from lexlogic.engine.documents.model import BlockKind
from tests.pipeline.conftest import DOSSIER


def test_every_format_is_ingested(docs):
    by_id = {d.id: d for d in docs}
    assert by_id["01-contrat-cadre"].media_type == "text/markdown"
    assert by_id["05-courriel-dereferencement"].metadata["date_iso"] == "2024-03-15"
    assert by_id["06-lettre-resiliation"].pages[0].ocr is False
    assert by_id["07-mise-en-demeure-scan"].pages[0].ocr is True
    for d in docs:
        for p in d.pages:
            for w in p.words:
                assert d.text[w.char_start : w.char_end] == w.text


def test_pdf_word_boxes_and_ocr_text(docs):
    scan = next(d for d in docs if d.id == "07-mise-en-demeure-scan")
    assert "Nous vous mettons en demeure de respecter les délais de livraison" in scan.text
    g = scan.ground(scan.text.index("mettons"), scan.text.index("mettons") + 7)
    assert g.bbox is not None and 0 < g.bbox.x0 < g.bbox.x1 < scan.pages[0].width
    letter = next(d for d in docs if d.id == "06-lettre-resiliation")
    i = letter.text.index("préavis de trois mois")
    assert letter.ground(i, i + 21).bbox is not None


def test_contract_articles_and_clauses(docs):
    contract = next(d for d in docs if d.id == "01-contrat-cadre")
    arts = [b for b in contract.blocks if b.kind is BlockKind.ARTICLE]
    clauses = [b for b in contract.blocks if b.kind is BlockKind.CLAUSE]
    assert len(arts) == 8 and arts[6].title.startswith("Article 7")
    assert "préavis de deux mois" in contract.text[arts[6].char_start : arts[6].char_end]
    for c in clauses:
        assert any(a.char_start <= c.char_start and c.char_end <= a.char_end for a in arts)


@settings(max_examples=25, deadline=None)
@given(max_chars=st.integers(min_value=40, max_value=3000))
def test_chunking_never_cuts_an_article_or_clause(docs, max_chars):
    for doc in docs:
        chunks = chunk_document(doc, max_chars=max_chars)
        assert chunks
        for c in chunks:
            assert doc.text[c.char_start : c.char_end] == c.text
        for b in doc.blocks:
            if b.kind in (BlockKind.ARTICLE, BlockKind.CLAUSE):
                inside = [c for c in chunks if c.char_start <= b.char_start and b.char_end <= c.char_end]
                assert inside, f"{doc.id}: {b.kind} {b.title} cut with max_chars={max_chars}"


def test_unsupported_format_is_a_clear_error(tmp_path):
    p = tmp_path / "x.docx"
    p.write_bytes(b"PK")
    try:
        ingest_file(p)
    except IngestError as exc:
        assert "x.docx" in str(exc) and "unsupported" in str(exc)
    else:
        raise AssertionError("no error")


def test_scan_asset_is_small_and_regenerable(tmp_path):
    from tests.pipeline.dossier_assets import make_scan_pdf

    assert (DOSSIER / "07-mise-en-demeure-scan.pdf").stat().st_size < 300_000
    out = tmp_path / "scan.pdf"
    make_scan_pdf(out)
    assert ingest_file(out).pages[0].ocr
