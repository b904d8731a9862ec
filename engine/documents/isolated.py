"""Ingestion of an untrusted upload in a separate, limited process.

Why: a 195 KB PDF whose stream inflates to 200 MB held a server thread at 100 % CPU for more than five
minutes, inside the API process. Here the file is read by a fresh interpreter (``python -I``, never a
fork of the server) under:

- a wall-clock limit (the parent kills the whole process group past it) and a CPU rlimit;
- an address-space rlimit (memory);
- a page limit and a decompressed-size limit, checked on the PDF's structure before any page is read
  (`bridges.pdf.preflight`), and Pillow's pixel limit for images;
- a cap on the text returned.

Every refusal is an `IngestRefused` (an `IngestError`, HTTP 422) that names the limit and never a server
path. The child writes the `Document` as JSON on stdout; the parent validates it.
"""

from __future__ import annotations

import json
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

from lexlogic.engine.documents.ingest import IngestError
from lexlogic.engine.documents.model import Document

_ROOT = str(Path(__file__).resolve().parents[2])
_BOOT = (
    f"import sys; sys.path.append({_ROOT!r}); "
    "from lexlogic.engine.documents.isolated import _child; _child(sys.argv[1], sys.argv[2])"
)


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
    def from_env(cls) -> IngestLimits:
        env = os.environ.get
        return cls(
            seconds=float(env("LEXLOGIC_INGEST_SECONDS", cls.seconds)),
            memory_mb=int(env("LEXLOGIC_INGEST_MEMORY_MB", cls.memory_mb)),
            max_pages=int(env("LEXLOGIC_INGEST_MAX_PAGES", cls.max_pages)),
            max_decompressed_bytes=int(env("LEXLOGIC_INGEST_MAX_DECOMPRESSED", cls.max_decompressed_bytes)),
        )


def ingest_isolated(
    path: str | Path,
    limits: IngestLimits | None = None,
    *,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Document:
    """`ingest_file(path)` in a limited child process; IngestRefused/IngestError naming the file only.
    `progress(pages_done, pages_total)` is called from a reader thread as the child reports pages."""
    path = Path(path)
    limits = limits or IngestLimits.from_env()
    cfg = {**asdict(limits), "use_cache": use_cache}
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, str(path), json.dumps(cfg)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.PIPE if progress is not None else subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
            env={k: v for k, v in os.environ.items() if k.startswith(("LEXLOGIC_", "PATH", "LANG", "LC_", "HOME"))},
        )
        started = time.monotonic()
        reader = None
        if progress is not None:
            reader = threading.Thread(target=_progress_lines, args=(proc, progress), daemon=True)
            reader.start()
        try:
            proc.wait(timeout=limits.seconds)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise IngestRefused(f"{path.name}: reading took longer than {limits.seconds:g} s (stopped)") from None
        out.seek(0)
        raw = out.read(limits.max_text_chars * 8 + 1_000_000)
    if proc.returncode in (-signal.SIGKILL, -signal.SIGXCPU, -signal.SIGSEGV, -signal.SIGABRT) or (
        proc.returncode != 0 and not raw
    ):
        what = "CPU" if proc.returncode == -signal.SIGXCPU else "memory or CPU"
        raise IngestRefused(
            f"{path.name}: reading exceeded the {what} limit of the ingestion process (exit {proc.returncode}, "
            f"after {time.monotonic() - started:.1f} s)"
        )
    try:
        reply = json.loads(raw)
    except ValueError:
        raise IngestError(f"{path.name}: the ingestion process gave no readable answer") from None
    if not reply.get("ok"):
        cls = IngestRefused if reply.get("limit") else IngestError
        raise cls(f"{path.name}: {reply.get('error', 'cannot be read')}")
    try:
        doc = Document.model_validate(reply["document"])
    except ValueError as exc:
        raise IngestError(f"{path.name}: invalid document from the ingestion process: {exc}") from None
    doc.path = str(path)
    return doc


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

    try:
        from PIL import Image

        Image.MAX_IMAGE_PIXELS = int(cfg["max_image_pixels"])
        from lexlogic.bridges import pdf as pdf_bridge
        from lexlogic.engine.documents.ingest import ingest_file

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

        doc = ingest_file(path, use_cache=bool(cfg["use_cache"]), progress=progress)
        if len(doc.pages) > int(cfg["max_pages"]):
            answer({"ok": False, "limit": True, "error": f"{len(doc.pages)} pages (limit {cfg['max_pages']})"})
            return
        if len(doc.text) > int(cfg["max_text_chars"]):
            answer({"ok": False, "limit": True, "error": f"{len(doc.text)} characters of text (limit)"})
            return
        answer({"ok": True, "document": doc.model_dump(mode="json")})
    except MemoryError:
        answer({"ok": False, "limit": True, "error": "reading exceeded the memory limit of the ingestion process"})
    except Exception as exc:
        name = type(exc).__name__
        limit = "DecompressionBomb" in name
        answer({"ok": False, "limit": limit, "error": _strip(f"{name}: {exc}" if not limit else str(exc), path)})


def _strip(message: str, path: Path) -> str:
    """No server path in a message: the file's own name only."""
    for text in (str(path), str(path.parent)):
        message = message.replace(text, path.name if text == str(path) else "")
    return message[:500]
