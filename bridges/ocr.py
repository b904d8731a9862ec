"""OCR adapter: Tesseract (French by default), returning word boxes.

Word boxes come from Tesseract's TSV output in image pixels; the caller scales them to page points. The
command and the parse are pytesseract's ``image_to_data`` (same arguments, its own ``file_to_dict``), with
two differences that change the cost, not the words (issue 33; `tests/pipeline/test_ocr_identical.py` checks the
words are identical):
- the page is handed over uncompressed (PPM) instead of PNG: encoding a 300-dpi page to PNG cost ~1 s of
  CPU, and Tesseract reads the same pixels either way;
- Tesseract runs single-threaded (``OMP_THREAD_LIMIT=1`` in ITS environment, unless the caller's sets it):
  its OpenMP threads spin for cores on a busy machine (4.8 s of CPU and 12 s of wall for one page at load 6,
  against 1.7 s and 5 s single-threaded); pages are read in parallel by the caller instead.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    data = _tsv(image, lang, psm)
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


def _tsv(image: Image.Image, lang: str, psm: int) -> dict[str, list[Any]]:
    """Tesseract's TSV of ``image`` as pytesseract's ``image_to_data(output_type=DICT)`` returns it."""
    from pytesseract.pytesseract import file_to_dict

    from lexlogic.settings import child_environment

    exe = shutil.which("tesseract")
    if exe is None:
        raise OCRError("tesseract is not installed (apt: tesseract-ocr tesseract-ocr-fra)")
    if "A" in image.getbands():  # as pytesseract: the alpha channel replaced by a white background
        flat = Image.new("RGB", image.size, (255, 255, 255))
        flat.paste(image, (0, 0), image.getchannel("A"))
        image = flat
    env = child_environment(("",))
    env.setdefault("OMP_THREAD_LIMIT", "1")
    with tempfile.TemporaryDirectory(prefix="lexlogic-ocr-") as tmp:
        page, out = Path(tmp) / "page.ppm", Path(tmp) / "out"
        image.save(page, format="PPM")
        args = [exe, str(page), str(out), "-l", lang, "-c", "tessedit_create_tsv=1", "--psm", str(psm)]
        try:
            done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, env=env, check=False)
        except OSError as exc:
            raise OCRError(f"tesseract could not be run: {exc}") from exc
        if done.returncode:
            said = done.stderr.decode("utf-8", "replace").strip()[-500:]
            raise OCRError(f"tesseract failed (language {lang!r} installed?): {done.returncode} {said}")
        table: dict[str, list[Any]] = file_to_dict(out.with_suffix(".tsv").read_bytes().decode("utf-8"), "\t", -1)
    return table
