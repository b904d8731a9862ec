"""Ingestion: a file (or a dossier directory) becomes a ``Document`` with text, pages, word boxes and
layout blocks.

Formats: .txt/.md (text), .csv (order histories: kept verbatim, one table block), .eml (headers block +
plain-text body), .pdf (text layer via pdfplumber; a page without one is rendered and OCR'd), images
(.png/.jpg/.tif: OCR). OCR is slow, so documents are cached by content hash in the folder the caller
passes (``Settings.documents_cache``: ``$LEXLOGIC_HOME/cache/documents``, None with ``LEXLOGIC_NO_CACHE=1``).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from email.utils import parsedate_to_datetime
from pathlib import Path

from lexlogic.bridges import pdf as pdf_bridge
from lexlogic.engine.documents.layout import detect_blocks
from lexlogic.engine.documents.model import Block, BlockKind, Document, DocumentKind, Page, Word
from lexlogic.engine.documents.ocr_ahead import OcrAhead, Recognised, ocr_ahead, recognise
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.grounding import BBox

INGEST_VERSION = "2"  # 2: keyed by content and format, no longer by file name
TEXT_EXT = {".txt", ".md", ".markdown"}
IMAGE_EXT = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}
SUPPORTED = TEXT_EXT | IMAGE_EXT | {".csv", ".eml", ".pdf"}
OCR_DPI = 300
OCR_PARALLEL = 2  # pages OCR'd at once (one single-threaded Tesseract each): the machine's two cores


class IngestError(LexlogicError, RuntimeError):
    """A file could not be ingested (names the file)."""


def document_id(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem).strip("-").lower() or "document"


def guess_kind(path: Path, text: str) -> DocumentKind:
    name = path.name.lower()
    low = text[:3000].lower()
    if path.suffix.lower() == ".eml":
        return DocumentKind.EMAIL
    if "mise-en-demeure" in name or "mise_en_demeure" in name or "mise en demeure" in low[:400]:
        return DocumentKind.FORMAL_NOTICE
    if "contrat" in name or low.lstrip("# \n").startswith("contrat"):
        return DocumentKind.CONTRACT
    if path.suffix.lower() == ".csv" or "commande" in name or "historique" in name:
        return DocumentKind.ORDER_HISTORY
    if "facture" in name:
        return DocumentKind.INVOICE
    if "lettre" in name or "courrier" in name:
        return DocumentKind.LETTER
    return DocumentKind.OTHER


def content_key(data: bytes, ext: str) -> str:
    """The cache key of a file's reading: the ingester's version, the format and the CONTENT's digest only —
    never the file's name (one content under two names, or a staged upload then its dossier copy, is read
    once). What depends on the name (id, path, kind) is applied after the reading (`name_document`)."""
    sha = hashlib.sha256(data).hexdigest()
    return hashlib.sha256(f"{INGEST_VERSION}|{ext.lower()}|{sha}".encode()).hexdigest()


def name_document(doc: Document, path: Path) -> Document:
    """The parts of a document that come from its file name, set on a reading of its content."""
    doc.id = document_id(path)
    doc.path = str(path)
    doc.kind = guess_kind(path, doc.text)
    return doc


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or IngestError naming it (unsupported format, unreadable)."""
    ext = path.suffix.lower()
    if ext not in SUPPORTED:
        raise IngestError(f"{path}: unsupported format {ext!r} (supported: {', '.join(sorted(SUPPORTED))})")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read: {exc}") from exc


def read_content(
    path: Path, data: bytes, progress: Callable[[int, int], None] | None = None, ahead: OcrAhead | None = None
) -> Document:
    """One reading of ``data`` (the bytes of ``path``): the parse itself, in whatever process calls it;
    ``ahead``: pages of it already handed to Tesseract (`ocr_ahead`), used where the reading OCRs them."""
    ext = path.suffix.lower()
    sha = hashlib.sha256(data).hexdigest()
    if ext in TEXT_EXT or ext == ".csv":
        doc = _from_text(path, data, ext)
    elif ext == ".eml":
        doc = _from_eml(path, data)
    elif ext == ".pdf":
        doc = _from_pdf(path, progress, (lambda number: ahead.take(sha, number)) if ahead is not None else None)
    else:
        doc = _from_image(path)
    doc.sha256 = sha
    return doc


def ingest_file(
    path: str | Path,
    *,
    cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    ahead: OcrAhead | None = None,
) -> Document:
    """One document read in THIS process (the CLI's own files); ``cache``: the folder of already-read
    documents (``Settings.documents_cache``), None to read it afresh; ``ahead``: as for `read_content`. Uploads
    are read by `engine.documents.isolated.ingest_isolated` instead (a limited child; the parent writes the cache)."""
    from lexlogic.engine.documents.cache import DocumentCache

    path = Path(path)
    data = read_bytes(path)
    ext, sha = path.suffix.lower(), hashlib.sha256(data).hexdigest()
    key = content_key(data, ext)
    store = DocumentCache(cache) if cache is not None else None
    doc = store.get(key, ext, sha) if store is not None else None
    if doc is None:
        doc = read_content(path, data, progress, ahead)
        if store is not None:
            try:
                store.put(key, doc, ext, sha)
            except ValueError:
                pass  # beyond the cache's bounds (a huge file read here): used, not kept
    return name_document(doc, path)


def dossier_files(directory: str | Path) -> tuple[list[Path], list[Path]]:
    """(files to ingest, files skipped), in name order; hidden files are ignored."""
    directory = Path(directory)
    if not directory.is_dir():
        raise IngestError(f"{directory}: not a directory")
    keep: list[Path] = []
    skip: list[Path] = []
    for p in sorted(directory.rglob("*")):
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(directory).parts):
            continue
        (keep if p.suffix.lower() in SUPPORTED else skip).append(p)
    return keep, skip


def ingest_dossier(
    directory: str | Path,
    *,
    cache: Path | None = None,
    on_file: Callable[[int, int, str], None] | None = None,
    read: Callable[[Path], Document] | None = None,
) -> list[Document]:
    """Every supported document of a dossier, ids unique (suffixed on collision). ``on_file(done, total,
    name)``: before each file is read (done = files read so far) and once at the end. ``read``: how one
    file is read (default: `ingest_file` here with ``cache``, the scanned pages of its PDFs handed to Tesseract
    first: `ocr_ahead`; uploads: the isolated reader)."""
    files = dossier_files(directory)[0]
    if read is not None:
        return _read_all(files, read, on_file)

    def known(data: bytes) -> bool:  # already read: in the document cache
        return cache is not None and (cache / f"{content_key(data, '.pdf')}.json").exists()

    with ocr_ahead(files, dpi=OCR_DPI, limit=OCR_PARALLEL, known=known) as ahead:
        return _read_all(files, lambda p: ingest_file(p, cache=cache, ahead=ahead), on_file)


def _read_all(
    files: list[Path], read: Callable[[Path], Document], on_file: Callable[[int, int, str], None] | None
) -> list[Document]:
    docs: list[Document] = []
    seen: set[str] = set()
    for i, p in enumerate(files):
        if on_file is not None:
            on_file(i, len(files), p.name)
        doc = read(p)
        base, n = doc.id, 2
        while doc.id in seen:
            doc.id = f"{base}-{n}"
            n += 1
        seen.add(doc.id)
        docs.append(doc)
    if on_file is not None:
        on_file(len(files), len(files), "")
    return docs


# --- formats ---------------------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace")


def _from_text(path: Path, data: bytes, ext: str) -> Document:
    text = _decode(data).replace("\r\n", "\n").replace("\r", "\n")
    if ext == ".csv":
        blocks = [Block(kind=BlockKind.TABLE, char_start=0, char_end=len(text.rstrip("\n")), page=1)]
    else:
        blocks = detect_blocks(text, page=1)
    media = {".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv"}.get(ext, "text/plain")
    title = next((b.title for b in blocks if b.kind is BlockKind.TITLE), None)
    return Document(
        id=document_id(path),
        path=str(path),
        media_type=media,
        kind=guess_kind(path, text),
        title=title,
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=blocks,
    )


def _from_eml(path: Path, data: bytes) -> Document:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    headers = []
    meta: dict[str, str] = {}
    for name in ("From", "To", "Cc", "Date", "Subject"):
        value = msg.get(name)
        if value:
            headers.append(f"{name}: {value}")
            meta[name.lower()] = str(value)
    if "date" in meta:
        try:
            meta["date_iso"] = parsedate_to_datetime(meta["date"]).date().isoformat()
        except (TypeError, ValueError):
            pass
    part = msg.get_body(preferencelist=("plain",)) if msg.is_multipart() else msg
    body = part.get_content() if part is not None else ""
    body = body.replace("\r\n", "\n").strip("\n") + "\n"
    head = "\n".join(headers)
    text = head + "\n\n" + body
    body_start = len(head) + 2
    blocks = [Block(kind=BlockKind.HEADER, char_start=0, char_end=len(head), page=1)]
    blocks += detect_blocks(text, start=body_start, page=1)
    return Document(
        id=document_id(path),
        path=str(path),
        media_type="message/rfc822",
        kind=DocumentKind.EMAIL,
        title=meta.get("subject"),
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=blocks,
        metadata=meta,
    )


class _Builder:
    """Accumulates words into text, line by line, keeping each word's offsets and box."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0

    def add(self, s: str) -> tuple[int, int]:
        start = self.pos
        self.parts.append(s)
        self.pos += len(s)
        return start, self.pos

    def text(self) -> str:
        return "".join(self.parts)


def _layout_lines(words: list[tuple[str, BBox, tuple]], b: _Builder) -> list[Word]:
    """Words grouped into lines (by key), paragraphs separated by a blank line."""
    out: list[Word] = []
    prev_key = None
    prev_par = None
    for text, box, key in words:
        line_key, par_key = key
        if prev_key is not None and line_key != prev_key:
            b.add("\n\n" if par_key != prev_par else "\n")
        elif prev_key is not None:
            b.add(" ")
        s, e = b.add(text)
        out.append(Word(text=text, char_start=s, char_end=e, bbox=box))
        prev_key, prev_par = line_key, par_key
    return out


def _pdf_text_words(page: pdf_bridge.PdfPage) -> list[tuple[str, BBox, tuple]]:
    lines: list[list[pdf_bridge.PdfWord]] = []
    for w in sorted(page.words, key=lambda w: (round(w.top), w.x0)):
        if lines and abs(lines[-1][0].top - w.top) <= 3:
            lines[-1].append(w)
        else:
            lines.append([w])
    out = []
    par = 0
    for i, line in enumerate(lines):
        if i and line[0].top - lines[i - 1][0].bottom > 0.9 * (line[0].bottom - line[0].top):
            par += 1
        for w in sorted(line, key=lambda w: w.x0):
            out.append((w.text, BBox(x0=w.x0, top=w.top, x1=w.x1, bottom=w.bottom), (i, par)))
    return out


def _ocr_words(image, page_w: float, page_h: float) -> list[tuple[str, BBox, tuple]]:
    return _scaled(recognise(image), page_w, page_h)


def _scaled(recognised: Recognised, page_w: float, page_h: float) -> list[tuple[str, BBox, tuple]]:
    """Tesseract's words (image pixels) as words of the page (points), with their line/paragraph keys."""
    width, height, words = recognised
    sx, sy = page_w / width, page_h / height
    out = []
    for w in words:
        box = BBox(x0=w.left * sx, top=w.top * sy, x1=(w.left + w.width) * sx, bottom=(w.top + w.height) * sy)
        out.append((w.text, box, ((w.block, w.par, w.line), (w.block, w.par))))
    return out


def _paged_document(path: Path, media: str, per_page: list[tuple[int, float, float, list, bool]]) -> Document:
    b = _Builder()
    pages: list[Page] = []
    blocks: list[Block] = []
    for number, width, height, words, ocr in per_page:
        if pages:
            b.add("\n\n")
        start = b.pos
        page_words = _layout_lines(words, b)
        b.add("\n")
        pages.append(
            Page(number=number, width=width, height=height, char_start=start, char_end=b.pos, words=page_words, ocr=ocr)
        )
    text = b.text()
    for p in pages:
        blocks += detect_blocks(text, p.char_start, p.char_end, page=p.number)
    title = next((bl.title for bl in blocks if bl.kind is BlockKind.TITLE), None)
    return Document(
        id=document_id(path),
        path=str(path),
        media_type=media,
        kind=guess_kind(path, text),
        title=title,
        text=text,
        pages=pages,
        blocks=blocks,
        metadata={"ocr_pages": ",".join(str(p.number) for p in pages if p.ocr)},
    )


def _from_pdf(
    path: Path,
    progress: Callable[[int, int], None] | None = None,
    ahead: Callable[[int], Future[Recognised] | None] | None = None,
) -> Document:
    """A PDF's pages: the text layer where there is one; the others rendered and OCR'd, several at once
    (Tesseract runs single-threaded in its own process: two pages on two cores; pdfium, not thread-safe,
    renders them one by one in this thread), or taken from ``ahead(page number)`` when that page was handed to
    Tesseract already (`ocr_ahead`: the same rendering and call). At most OCR_PARALLEL + 1 page images are
    held at once here (and OCR_PARALLEL more started ahead)."""
    per_page: list[tuple[int, float, float, list, bool]] = []
    with ThreadPoolExecutor(max_workers=OCR_PARALLEL) as pool:
        pending: dict[int, Future[Recognised]] = {}
        for page in pdf_bridge.extract_pages(path, progress):
            if page.words:
                per_page.append((page.number, page.width, page.height, _pdf_text_words(page), False))
                continue
            future = ahead(page.number) if ahead is not None else None
            if future is None:
                in_flight = [f for f in pending.values() if not f.done()]
                if len(in_flight) >= OCR_PARALLEL:
                    wait(in_flight, return_when=FIRST_COMPLETED)
                future = pool.submit(recognise, pdf_bridge.render_page(path, page.number - 1, dpi=OCR_DPI))
            pending[len(per_page)] = future
            per_page.append((page.number, page.width, page.height, [], True))
        for i, future in pending.items():
            number, width, height, _, ocr = per_page[i]
            per_page[i] = (number, width, height, _scaled(future.result(), width, height), ocr)
    return _paged_document(path, "application/pdf", per_page)


def _from_image(path: Path) -> Document:
    from PIL import Image

    try:
        image = Image.open(path).convert("RGB")
    except OSError as exc:
        raise IngestError(f"{path}: cannot open image: {exc}") from exc
    dpi = (image.info.get("dpi") or (OCR_DPI, OCR_DPI))[0] or OCR_DPI
    w_pt, h_pt = image.width * 72.0 / dpi, image.height * 72.0 / dpi
    return _paged_document(
        path, "image/" + path.suffix.lower().lstrip("."), [(1, w_pt, h_pt, _ocr_words(image, w_pt, h_pt), True)]
    )
