"""OCR adapter: Tesseract (French by default) through pytesseract, returning word boxes.

Word boxes come from ``image_to_data`` in image pixels; the caller scales them to page points.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from lexlogic.logic.errors import LexlogicError


class OCRError(LexlogicError, RuntimeError):
    """Tesseract is missing, lacks the language, or failed."""


@dataclass
class OcrWord:
    text: str
    left: int
    top: int
    width: int
    height: int
    conf: float
    block: int
    par: int
    line: int


def ocr_words(image: Image.Image, lang: str = "fra", psm: int = 3) -> list[OcrWord]:
    """Recognised words in reading order, with their line/paragraph structure."""
    import pytesseract

    try:
        data = pytesseract.image_to_data(image, lang=lang, config=f"--psm {psm}", output_type=pytesseract.Output.DICT)
    except pytesseract.TesseractNotFoundError as exc:
        raise OCRError("tesseract is not installed (apt: tesseract-ocr tesseract-ocr-fra)") from exc
    except pytesseract.TesseractError as exc:
        raise OCRError(f"tesseract failed (language {lang!r} installed?): {exc}") from exc
    words = []
    for i, text in enumerate(data["text"]):
        text = (text or "").strip()
        if not text:
            continue
        words.append(
            OcrWord(
                text=text,
                left=int(data["left"][i]),
                top=int(data["top"][i]),
                width=int(data["width"][i]),
                height=int(data["height"][i]),
                conf=float(data["conf"][i]),
                block=int(data["block_num"][i]),
                par=int(data["par_num"][i]),
                line=int(data["line_num"][i]),
            )
        )
    return words
