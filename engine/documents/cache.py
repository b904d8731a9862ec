"""The cache of document readings, keyed by content (`engine.documents.ingest.content_key`).

Who writes it: a trusted process only — the CLI reading its user's own files, or the PARENT of an isolated
ingestion once it has validated the child's reply. Never the child: the process that parses an untrusted
file could otherwise plant a reading for any content, served to whoever uploads it next.

Every entry is checked again when read (schema, spans inside the text, sizes, the content digest it claims,
the media type of its format), so a corrupt or tampered entry is read afresh, never served.

One folder per API tenant (`scoped`), not one shared by all, for two reasons:
- a shared content-keyed cache answers « somebody here already uploaded this exact file » by timing (a
  fast answer instead of a parse): the side channel the shared compile cache of dynamic rules was (issue
  34) — it would confirm that another tenant holds a given contract;
- a reading is only as trustworthy as the parse that made it: if one tenant's upload ever subverted a
  parse in a way the checks cannot see (a plausible but false text), the damage stays with that tenant.
The cost: the same file uploaded by two tenants is read twice.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from lexlogic.engine.documents.model import Document

MEDIA = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".eml": "message/rfc822",
    ".pdf": "application/pdf",
}
MAX_METADATA = 64
MAX_FIELD = 10_000


def media_of(ext: str) -> str:
    ext = ext.lower()
    return MEDIA.get(ext, "image/" + ext.lstrip("."))


def scoped(root: Path | None, scope: str) -> Path | None:
    """The cache folder of one tenant (``scope``; "" = this machine's own user, the CLI), None when the
    cache is off. A tenant's folder is named by a digest of its id (no id in a path)."""
    if root is None or not scope:
        return root
    return root / "tenants" / hashlib.sha256(scope.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _spans_ok(doc: Document) -> str | None:
    n = len(doc.text)
    for p in doc.pages:
        if not 0 <= p.char_start <= p.char_end <= n:
            return f"page {p.number} spans {p.char_start}..{p.char_end} outside the text ({n} characters)"
        for w in p.words:
            if (
                not (p.char_start <= w.char_start <= w.char_end <= p.char_end)
                or doc.text[w.char_start : w.char_end] != w.text
            ):
                return f"a word of page {p.number} does not match the text at {w.char_start}..{w.char_end}"
    for b in doc.blocks:
        if not 0 <= b.char_start <= b.char_end <= n:
            return f"a block spans {b.char_start}..{b.char_end} outside the text"
    return None


def check_reading(doc: Document, *, ext: str, sha256: str, max_pages: int, max_text_chars: int) -> None:
    """ValueError naming the first thing wrong with a reading of a file of format ``ext`` whose content
    digest is ``sha256``: what the parent checks before trusting (and caching) what a child returned."""
    if doc.sha256 != sha256:
        raise ValueError("the reading is not of this content (digest differs)")
    if doc.media_type != media_of(ext):
        raise ValueError(f"media type {doc.media_type[:40]!r} is not that of a {ext} file")
    if len(doc.text) > max_text_chars:
        raise ValueError(f"{len(doc.text)} characters of text (limit {max_text_chars})")
    if len(doc.pages) > max_pages:
        raise ValueError(f"{len(doc.pages)} pages (limit {max_pages})")
    if len(doc.blocks) > len(doc.text) + len(doc.pages) + 1:
        raise ValueError(f"{len(doc.blocks)} blocks for {len(doc.text)} characters")
    if len(doc.metadata) > MAX_METADATA or any(len(k) + len(v) > MAX_FIELD for k, v in doc.metadata.items()):
        raise ValueError("metadata too large")
    if doc.title is not None and len(doc.title) > MAX_FIELD:
        raise ValueError("title too long")
    problem = _spans_ok(doc)
    if problem:
        raise ValueError(problem)


class DocumentCache:
    """One folder of readings (already `scoped`); entries validated on the way in and on the way out."""

    def __init__(self, folder: Path, *, max_pages: int = 300, max_text_chars: int = 5_000_000) -> None:
        self.folder = folder
        self.max_pages = max_pages
        self.max_text_chars = max_text_chars
        self.max_bytes = max_text_chars * 8 + 1_000_000  # the JSON of the largest reading accepted

    def _check(self, doc: Document, ext: str, sha256: str) -> None:
        check_reading(doc, ext=ext, sha256=sha256, max_pages=self.max_pages, max_text_chars=self.max_text_chars)

    def get(self, key: str, ext: str, sha256: str) -> Document | None:
        """The cached reading of this content, or None (absent, unreadable, oversized or failing a check)."""
        path = self.folder / f"{key}.json"
        try:
            if path.stat().st_size > self.max_bytes:
                return None
            doc = Document.model_validate_json(path.read_bytes())
            self._check(doc, ext, sha256)
        except (OSError, ValueError):
            return None
        return doc

    def put(self, key: str, doc: Document, ext: str, sha256: str) -> None:
        """Store a reading (checked first: ValueError if it fails); atomic (a temporary file renamed)."""
        self._check(doc, ext, sha256)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.folder / f"{key}.tmp{os.getpid()}"
        tmp.write_text(doc.model_dump_json(), encoding="utf-8")
        tmp.replace(self.folder / f"{key}.json")
