"""PDF adapter: word boxes from the text layer (pdfplumber) and page images for OCR (pypdfium2).

Coordinates are PDF points with the origin top-left, as ``logic.grounding.BBox`` expects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image


class PDFError(RuntimeError):
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


def extract_pages(path: str | Path) -> list[PdfPage]:
    """Every page with its words (empty ``words`` for a scanned page without a text layer)."""
    import pdfplumber

    try:
        with pdfplumber.open(str(path)) as pdf:
            pages = []
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
            return pages
    except Exception as exc:  # pdfminer raises many types
        raise PDFError(f"cannot read PDF {path}: {exc}") from exc


def render_page(path: str | Path, index: int, dpi: int = 300) -> Image.Image:
    """Page ``index`` (0-based) as an RGB image, for OCR."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
        try:
            return pdf[index].render(scale=dpi / 72.0).to_pil().convert("RGB")
        finally:
            pdf.close()
    except Exception as exc:
        raise PDFError(f"cannot render page {index + 1} of {path}: {exc}") from exc
