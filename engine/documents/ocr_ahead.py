"""OCR started ahead (issue 33: the example dossier, cold): a dossier's scanned PDF pages go to Tesseract
BEFORE its other files are read, so that their recognition (a separate process, ~1 s of CPU a page) overlaps
that reading instead of following it.

Only a schedule, never a reading: which pages lack a text layer is asked of pdfium (a character count, in
milliseconds), but the reading still decides (`ingest._from_pdf`: pdfplumber's words). A page started here is
used only when the reading finds no words on it either — the same rendering and the same Tesseract call the
reading would make, hence the same words; a page the guess missed is OCR'd by the reading as before; a page
the reading contradicts is dropped (CPU spent, nothing used). At most ``limit`` pages are started (their images
are held until Tesseract has them); contents the caller already knows (the document cache) are skipped; any
failure here only means "not ahead": the reading meets the same error in its own place and reports it.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PIL import Image

from lexlogic.bridges import ocr as ocr_bridge
from lexlogic.bridges import pdf as pdf_bridge

#: (image width, image height, the words Tesseract read, in image pixels)
Recognised = tuple[int, int, list[ocr_bridge.OcrWord]]


def recognise(image: Image.Image) -> Recognised:
    """Tesseract's words of ``image`` with the image's size (the caller scales them to its page)."""
    return image.width, image.height, ocr_bridge.ocr_words(image)


class OcrAhead:
    """The pages started ahead, by (content digest, page number); each taken at most once."""

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self.pool = pool
        self.started: dict[tuple[str, int], Future[Recognised]] = {}

    def take(self, sha256: str, number: int) -> Future[Recognised] | None:
        return self.started.pop((sha256, number), None)

    def running(self) -> list[Future[Recognised]]:
        return [f for f in self.started.values() if not f.done()]

    def start(self, path: Path, dpi: int, limit: int, known: Callable[[bytes], bool]) -> None:
        """Render and hand to Tesseract the pages of PDF ``path`` without characters, up to ``limit`` in all."""
        try:
            data = path.read_bytes()
            if known(data):
                return
            sha = hashlib.sha256(data).hexdigest()
            for index in pdf_bridge.pages_without_text(path):
                if len(self.started) >= limit:
                    return
                image = pdf_bridge.render_page(path, index, dpi=dpi)
                self.started[(sha, index + 1)] = self.pool.submit(recognise, image)
        except (OSError, pdf_bridge.PDFError):
            return  # not ahead: the reading reports it


@contextlib.contextmanager
def ocr_ahead(files: list[Path], *, dpi: int, limit: int, known: Callable[[bytes], bool]) -> Iterator[OcrAhead]:
    """Pages of the PDFs among ``files`` started ahead (in file order) for the block; those not taken by its
    end are dropped (cancelled, or left to finish in the background)."""
    pool = ThreadPoolExecutor(max_workers=limit, thread_name_prefix="ocr-ahead")
    ahead = OcrAhead(pool)
    try:
        for path in files:
            if len(ahead.started) >= limit:
                break
            if path.suffix.lower() == ".pdf":
                ahead.start(path, dpi, limit, known)
        yield ahead
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
