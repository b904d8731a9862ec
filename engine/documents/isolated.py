"""Ingestion of an untrusted upload in a separate, limited process.

Why: a 195 KB PDF whose stream inflates to 200 MB held a server thread at 100 % CPU for more than five
minutes, inside the API process. Here the file is read by a fresh interpreter (``python -I``, never a
fork of the server) under:

- a wall-clock limit (the parent kills the whole process group past it) and a CPU rlimit;
- an address-space rlimit (memory);
- a page limit and a decompressed-size limit, checked on the PDF's structure before any page is read
  (`bridges.pdf.preflight`), and Pillow's pixel limit for images;
- a cap on the text returned;
- its file writes confined to a work folder of its own, its reads to the upload, the code and the system
  (Landlock: `engine.documents.confine`), so a parse a hostile file took over can neither write the document
  cache, a dossier or the code, nor read another tenant's dossier or the server's environment.

Every refusal is an `IngestRefused` (an `IngestError`, HTTP 422) that names the limit and never a server
path. The child writes the `Document` as JSON on stdout; the parent validates it.

Once per content (issue 34): the parent looks the content up in the tenant's cache first (keyed by the
content's digest and the ingester's version, never by a file name), so an upload and the run that reads it
next, or the same bytes uploaded again, are read once. The child gets no cache and writes none: the parent
checks its reply (`engine.documents.cache.check_reading`: sizes, spans, digest, media type) and alone
writes the entry — a compromised parse cannot plant a reading for another upload.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from lexlogic.engine.documents.cache import DocumentCache, check_reading
from lexlogic.engine.documents.ingest import IngestError, content_key, name_document, read_bytes
from lexlogic.engine.documents.model import Document
from lexlogic.settings import Settings, child_environment

_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    f"import sys; sys.path.append({_ROOT!r}); "
    "from lexlogic.engine.documents.isolated import _child; _child(sys.argv[1], sys.argv[2])"
)


log = logging.getLogger("lexlogic.ingest")
_said_unconfined = False


class IngestRefused(IngestError):
    """The upload went over a limit of the isolated ingestion (time, memory, pages, size)."""

    status = 422


@dataclass(frozen=True)
class IngestLimits:
    seconds: float = 60.0  # wall clock, whole ingestion (OCR included)
    memory_mb: int = 1536  # address space of the child (OCR and pdfium need a few hundred MB)
    max_pages: int = 300
    max_decompressed_bytes: int = 150_000_000  # sum of the PDF's inflated streams
    max_image_pixels: int = 60_000_000
    max_text_chars: int = 5_000_000

    @classmethod
    def from_settings(cls, settings: Settings) -> IngestLimits:
        return cls(
            seconds=settings.ingest_seconds,
            memory_mb=settings.ingest_memory_mb,
            max_pages=settings.ingest_max_pages,
            max_decompressed_bytes=settings.ingest_max_decompressed,
        )


def ingest_isolated(
    path: str | Path,
    limits: IngestLimits | None = None,
    *,
    cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Document:
    """The reading of an untrusted file, made once per content: from ``cache`` (the tenant's folder,
    `engine.documents.cache.scoped`) when this content was read before, else by a limited child process
    whose reply this process checks and, only then, caches. IngestRefused/IngestError name the file only.
    `progress(pages_done, pages_total)` is called from a reader thread as the child reports pages.
    ``limits``: ``IngestLimits.from_settings(settings)`` at the edge (default: the built-in limits)."""
    path = Path(path)
    limits = limits or IngestLimits()
    try:
        data = read_bytes(path)
    except IngestError:
        raise IngestError(f"{path.name}: cannot be read (unsupported format or unreadable)") from None
    ext, sha = path.suffix.lower(), hashlib.sha256(data).hexdigest()
    key = content_key(data, ext)
    store = None
    if cache is not None:
        store = DocumentCache(cache, max_pages=limits.max_pages, max_text_chars=limits.max_text_chars)
    doc = store.get(key, ext, sha) if store is not None else None
    if doc is None:
        doc = _read_in_child(path, limits, progress)
        try:  # the child is not trusted: its reading is checked here before anything keeps it
            check_reading(doc, ext=ext, sha256=sha, max_pages=limits.max_pages, max_text_chars=limits.max_text_chars)
        except ValueError as exc:
            raise IngestError(f"{path.name}: the ingestion process returned an invalid reading ({exc})") from None
        if store is not None:
            store.put(key, doc, ext, sha)
    return name_document(doc, path)


def isolated_reader(limits: IngestLimits, cache: Path | None) -> Callable[[Path], Document]:
    """`ingest_isolated` bound to limits and a (tenant's) cache: the ``read`` of `ingest_dossier` for a
    dossier of uploads, so a run reads what the upload already read, or reads it in a child."""
    return lambda p: ingest_isolated(p, limits, cache=cache)


def reply_cap(limits: IngestLimits) -> int:
    """The largest reply (JSON bytes) accepted from a child: a bigger one is refused, never parsed."""
    return limits.max_text_chars * 8 + 1_000_000


def _read_in_child(path: Path, limits: IngestLimits, progress: Callable[[int, int], None] | None) -> Document:
    """One child process reads ``path`` (it gets no cache and may write only in a work folder of its own,
    removed here even if it was killed); its reply parsed, not trusted."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryDirectory(prefix="lexlogic-ingest-") as work:
        cfg = {**asdict(limits), "work": work}
        proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, str(path), json.dumps(cfg)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.PIPE if progress is not None else subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
            # what the child reads comes in ``cfg``: no LEXLOGIC_* variable (an API key, the database URL)
            # reaches the process that parses an untrusted file; its home and temporary files are ``work``
            env={**child_environment(("PATH", "LANG", "LC_")), "HOME": work, "TMPDIR": work},
        )
        started = time.monotonic()
        if progress is not None:
            threading.Thread(target=_progress_lines, args=(proc, progress), daemon=True).start()
        try:
            proc.wait(timeout=limits.seconds)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise IngestRefused(f"{path.name}: reading took longer than {limits.seconds:g} s (stopped)") from None
        out.seek(0)
        raw = out.read(reply_cap(limits) + 1)
    if len(raw) > reply_cap(limits):
        raise IngestRefused(f"{path.name}: the reading is larger than {reply_cap(limits)} bytes (refused)")
    if proc.returncode in (-signal.SIGKILL, -signal.SIGXCPU, -signal.SIGSEGV, -signal.SIGABRT) or (
        proc.returncode != 0 and not raw
    ):
        what = "CPU" if proc.returncode == -signal.SIGXCPU else "memory or CPU"
        raise IngestRefused(
            f"{path.name}: reading exceeded the {what} limit of the ingestion process (exit {proc.returncode}, "
            f"after {time.monotonic() - started:.1f} s)"
        )
    return _parse_reply(path, raw)


def _unconfined() -> None:
    global _said_unconfined
    if not _said_unconfined:
        _said_unconfined = True
        log.warning("this kernel has no Landlock: the ingestion child's file reads and writes are not confined")


def _parse_reply(path: Path, raw: bytes) -> Document:
    try:
        reply = json.loads(raw)
        ok = isinstance(reply, dict) and reply.get("ok")
    except ValueError:
        raise IngestError(f"{path.name}: the ingestion process gave no readable answer") from None
    if not ok:
        error = reply.get("error") if isinstance(reply, dict) else None
        cls = IngestRefused if isinstance(reply, dict) and reply.get("limit") else IngestError
        raise cls(f"{path.name}: {str(error)[:500] if error else 'cannot be read'}")
    if reply.get("confined") is False:
        _unconfined()
    try:
        return Document.model_validate(reply["document"])
    except (KeyError, ValueError) as exc:
        raise IngestError(f"{path.name}: invalid document from the ingestion process: {exc}") from None


def _progress_lines(proc: subprocess.Popen, progress: Callable[[int, int], None]) -> None:  # type: ignore[type-arg]
    """The child's stderr carries `P <done> <total>` lines (and nothing else we trust)."""
    assert proc.stderr is not None
    for raw in proc.stderr:
        parts = raw.split()
        if len(parts) == 3 and parts[0] == b"P" and parts[1].isdigit() and parts[2].isdigit():
            try:
                progress(int(parts[1]), int(parts[2]))
            except Exception:  # a callback failure must not kill the reading
                pass


def _kill(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


def _child(path_text: str, cfg_text: str) -> None:
    """The child's side: limits, pre-flight checks, ingestion, one JSON answer on stdout."""
    import resource

    cfg = json.loads(cfg_text)
    mem = int(cfg["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu = int(float(cfg["seconds"])) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    path = Path(path_text)

    def answer(obj: dict) -> None:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False))
        sys.stdout.flush()

    work = str(cfg["work"])
    try:
        from PIL import Image

        Image.MAX_IMAGE_PIXELS = int(cfg["max_image_pixels"])
        from lexlogic.bridges import pdf as pdf_bridge
        from lexlogic.engine.documents.confine import restrict_files
        from lexlogic.engine.documents.ingest import read_bytes, read_content

        # from here on, files are written only in ``work`` (the OCR's temporary files), never the cache, and
        # read only from the upload, the code and the system: never another tenant's dossier
        confined = restrict_files(work, readable=_readable(path))

        if path.suffix.lower() == ".pdf":
            try:
                pdf_bridge.preflight(
                    path, max_pages=int(cfg["max_pages"]), max_decompressed_bytes=int(cfg["max_decompressed_bytes"])
                )
            except pdf_bridge.PDFError as exc:
                answer({"ok": False, "limit": True, "error": _strip(str(exc), path)})
                return

        def progress(done: int, total: int) -> None:
            sys.stderr.write(f"P {done} {total}\n")
            sys.stderr.flush()

        doc = read_content(path, read_bytes(path), progress)  # no cache here: the parent alone keeps readings
        if len(doc.pages) > int(cfg["max_pages"]):
            answer({"ok": False, "limit": True, "error": f"{len(doc.pages)} pages (limit {cfg['max_pages']})"})
            return
        if len(doc.text) > int(cfg["max_text_chars"]):
            answer({"ok": False, "limit": True, "error": f"{len(doc.text)} characters of text (limit)"})
            return
        answer({"ok": True, "confined": confined, "document": doc.model_dump(mode="json")})
    except MemoryError:
        answer({"ok": False, "limit": True, "error": "reading exceeded the memory limit of the ingestion process"})
    except Exception as exc:
        name = type(exc).__name__
        limit = "DecompressionBomb" in name
        answer({"ok": False, "limit": limit, "error": _strip(f"{name}: {exc}" if not limit else str(exc), path)})


SYSTEM_READABLE = (
    *("/usr", "/lib", "/lib64", "/dev/urandom", "/sys/devices/system/cpu", "/proc/cpuinfo"),
    *("/etc/ld.so.cache", "/etc/fonts", "/etc/localtime", "/etc/passwd", "/etc/group"),  # not /etc/shadow
)


def _readable(upload: Path) -> tuple[str, ...]:
    """What the child may read once confined: the upload, the interpreter and its libraries, lexlogic's code
    folders, and the system's programs, libraries and configuration (tesseract and its data, fonts)."""
    code = tuple(os.path.join(_ROOT, d) for d in ("lexlogic", "api", "bridges", "engine", "logic", "sandbox"))
    return (str(upload), sys.base_prefix, sys.prefix, *code, "/proc/self", *SYSTEM_READABLE)


def _strip(message: str, path: Path) -> str:
    """No server path in a message: the file's own name only."""
    for text in (str(path), str(path.parent)):
        message = message.replace(text, path.name if text == str(path) else "")
    return message[:500]
