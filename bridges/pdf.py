"""PDF adapter: word boxes from the text layer (pdfplumber) and page images for OCR (pypdfium2).

Coordinates are PDF points with the origin top-left, as ``logic.grounding.BBox`` expects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from lexlogic.logic.errors import LexlogicError


class PDFError(LexlogicError, RuntimeError):
    """The PDF could not be opened or read."""


@dataclass
class PdfWord:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class PdfPage:
    number: int  # 1-based
    width: float
    height: float
    words: list[PdfWord] = field(default_factory=list)


def extract_pages(path: str | Path, progress: Callable[[int, int], None] | None = None) -> list[PdfPage]:
    """Every page with its words (empty ``words`` for a scanned page without a text layer);
    `progress(done, total)` after each page (background uploads report it)."""
    import pdfplumber

    try:
        with pdfplumber.open(str(path)) as pdf:
            pages = []
            total = len(pdf.pages)
            for i, page in enumerate(pdf.pages, start=1):
                words = page.extract_words(keep_blank_chars=False, use_text_flow=True, x_tolerance=1.5)
                pages.append(
                    PdfPage(
                        number=i,
                        width=float(page.width),
                        height=float(page.height),
                        words=[
                            PdfWord(w["text"], float(w["x0"]), float(w["top"]), float(w["x1"]), float(w["bottom"]))
                            for w in words
                        ],
                    )
                )
                if progress is not None:
                    progress(i, total)
            return pages
    except Exception as exc:  # pdfminer raises many types
        raise PDFError(f"cannot read PDF {path}: {exc}") from exc


def render_page(path: str | Path, index: int, dpi: int = 300) -> Image.Image:
    """Page ``index`` (0-based) as an RGB image, for OCR."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
        try:
            image: Image.Image = pdf[index].render(scale=dpi / 72.0).to_pil().convert("RGB")
            return image
        finally:
            pdf.close()
    except Exception as exc:
        raise PDFError(f"cannot render page {index + 1} of {path}: {exc}") from exc


def pages_without_text(path: str | Path) -> list[int]:
    """Indexes (0-based) of the pages with no character in their text layer, as pdfium counts them: a quick
    guess of the pages a reading will OCR (the reading decides, from pdfplumber's words)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
        try:
            return [i for i in range(len(pdf)) if pdf[i].get_textpage().count_chars() == 0]
        finally:
            pdf.close()
    except Exception as exc:
        raise PDFError(f"cannot open PDF {path}: {exc}") from exc


def preflight(path: str | Path, *, max_pages: int, max_decompressed_bytes: int) -> int:
    """Page count, after checking the PDF against bomb limits WITHOUT rendering it: at most `max_pages`
    pages, and every Flate stream inflated (bounded, in chunks) to at most `max_decompressed_bytes` in
    total. A 195 KB file whose stream inflates to 200 MB is refused here in milliseconds."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import PDFStream

    try:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(str(path))
        try:
            pages = len(pdf)
        finally:
            pdf.close()
    except Exception as exc:
        raise PDFError(f"cannot open PDF: {type(exc).__name__}: {exc}") from exc
    if pages > max_pages:
        raise PDFError(f"{pages} pages (limit {max_pages})")
    total = 0
    try:
        with open(path, "rb") as fh:
            doc = PDFDocument(PDFParser(fh))
            seen: set[int] = set()
            for xref in doc.xrefs:
                for objid in xref.get_objids():
                    if objid in seen:
                        continue
                    seen.add(objid)
                    try:
                        obj = doc.getobj(objid)
                    except Exception:
                        continue  # unreadable object: pdfplumber will say so (or skip it)
                    if not isinstance(obj, PDFStream):
                        continue
                    raw = obj.rawdata if obj.rawdata is not None else (obj.data or b"")
                    names = [str(getattr(f, "name", f)) for f, _ in obj.get_filters()]
                    if names and names[0] in ("FlateDecode", "Fl"):
                        total += _inflated_size(raw, max_decompressed_bytes - total + 1)
                    else:
                        total += len(raw)
                    if total > max_decompressed_bytes:
                        raise PDFError(f"its streams inflate to more than {max_decompressed_bytes} bytes (a PDF bomb?)")
    except PDFError:
        raise
    except Exception as exc:
        raise PDFError(f"cannot parse PDF: {type(exc).__name__}: {exc}") from exc
    return pages


def _inflated_size(raw: bytes, cap: int) -> int:
    """Bytes a Flate stream inflates to, counting at most `cap` (a corrupt stream counts as its raw size)."""
    import zlib

    inflater = zlib.decompressobj()
    total = 0
    data = raw
    try:
        while data and total < cap:
            chunk = inflater.decompress(data, min(cap - total, 1 << 20))
            total += len(chunk)
            data = inflater.unconsumed_tail
            if not chunk:
                break
    except zlib.error:
        return len(raw)
    return total
