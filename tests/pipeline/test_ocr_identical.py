"""Issue 33: Tesseract called single-threaded on an uncompressed page, and scanned pages read two at a time,
give the words pytesseract's ``image_to_data`` gave (the old path), page for page and in order; a dossier's scanned
pages handed to Tesseract ahead of its other files (`ocr_ahead`) give the same documents."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytesseract
import pytest

from lexlogic.bridges import ocr, pdf
from lexlogic.engine.documents import ingest
from lexlogic.engine.documents.ocr_ahead import OcrAhead, Recognised

DOSSIER = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "dossier"
SCAN = DOSSIER / "07-mise-en-demeure-scan.pdf"


def _old_words(image) -> list[ocr.OcrWord]:  # type: ignore[no-untyped-def]
    """What `ocr.ocr_words` returned before: pytesseract's table, read the same way."""
    data = pytesseract.image_to_data(image, lang="fra", config="--psm 3", output_type=pytesseract.Output.DICT)
    keys = ("left", "top", "width", "height")
    return [
        ocr.OcrWord(text.strip(), *(int(data[k][i]) for k in keys), float(data["conf"][i]),
                    int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        for i, text in enumerate(data["text"])
        if (text or "").strip()
    ]  # fmt: skip


def test_the_words_are_pytesseracts() -> None:
    page = pdf.render_page(SCAN, 0, dpi=ingest.OCR_DPI)
    table = ocr._tsv(page, "fra", 3)
    assert table == pytesseract.image_to_data(page, lang="fra", config="--psm 3", output_type=pytesseract.Output.DICT)
    words = ocr.ocr_words(page)
    assert len(words) > 50 and words == _old_words(page)


def test_pages_read_in_parallel_come_back_in_order(tmp_path: Path) -> None:
    """Three scanned pages (different parts of the scan) plus a page with a text layer: the document is the
    one a page-by-page reading makes."""
    full = pdf.render_page(SCAN, 0, dpi=ingest.OCR_DPI)
    w, h = full.size
    parts = [full.crop((0, top, w, top + h // 4)) for top in (0, h // 4, h // 2)]
    scans = tmp_path / "scans.pdf"
    parts[0].save(scans, save_all=True, append_images=parts[1:], resolution=float(ingest.OCR_DPI))
    doc = ingest._from_pdf(scans)
    sequential = []
    for page in pdf.extract_pages(scans):
        assert not page.words  # no text layer: every page OCR'd
        image = pdf.render_page(scans, page.number - 1, dpi=ingest.OCR_DPI)
        sequential.append(
            (page.number, page.width, page.height, ingest._ocr_words(image, page.width, page.height), True)
        )
    assert doc == ingest._paged_document(scans, "application/pdf", sequential)
    assert [p.ocr for p in doc.pages] == [True, True, True] and len({p.char_start for p in doc.pages}) == 3
    mixed = ingest._from_pdf(DOSSIER / "06-lettre-resiliation.pdf")
    assert [p.ocr for p in mixed.pages] == [False] and mixed.pages[0].words


def test_scanned_pages_started_ahead_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ingest_dossier` hands the scan's page to Tesseract before reading the other files (`ocr_ahead`): the
    documents are those read one by one without it; a content already in the cache is not started."""
    files = ingest.dossier_files(DOSSIER)[0]
    plain = [ingest.ingest_file(p).model_dump() for p in files]
    started: list[tuple[str, list[tuple[str, int]]]] = []
    real = OcrAhead.start

    def spy(self: OcrAhead, path: Path, *args: Any) -> None:
        real(self, path, *args)
        started.append((path.name, sorted(self.started)))

    monkeypatch.setattr(OcrAhead, "start", spy)
    cache = tmp_path / "cache"
    assert [d.model_dump() for d in ingest.ingest_dossier(DOSSIER, cache=cache)] == plain
    assert [(name, [n for _, n in keys]) for name, keys in started] == [("06-lettre-resiliation.pdf", []),
                                                                       ("07-mise-en-demeure-scan.pdf", [1])]  # fmt: skip
    started.clear()
    assert [d.model_dump() for d in ingest.ingest_dossier(DOSSIER, cache=cache)] == plain
    assert all(not keys for _, keys in started)  # both PDFs read from the cache: nothing started ahead


def test_a_page_started_ahead_is_used_only_where_the_reading_ocrs() -> None:
    """A future offered for every page: the page with a text layer is read from it (the offer is not even
    asked for), the scanned one takes it — here a stand-in, which shows that it is what the reading used."""
    text_page = DOSSIER / "06-lettre-resiliation.pdf"
    asked: list[int] = []

    def offer(number: int) -> Future[Recognised]:
        asked.append(number)
        done: Future[Recognised] = Future()
        done.set_result((100, 100, [ocr.OcrWord("planted", 0, 0, 10, 10, 90.0, 1, 1, 1)]))
        return done

    assert ingest._from_pdf(text_page, None, offer).model_dump() == ingest._from_pdf(text_page).model_dump()
    assert asked == []
    assert ingest._from_pdf(SCAN, None, offer).text.strip() == "planted" and asked == [1]
