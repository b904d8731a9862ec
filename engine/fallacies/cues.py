"""Cue-word features for the offline navigator: the surface FORM of frequent fallacies.

Embedding similarity ranks texts by topic; a fallacy is a form of reasoning. ``data/cues.yaml`` holds,
per fallacy of the built-in taxonomy, regexes that mark that form (a cue is one regex, or a list that
must all match). The offline navigator adds a calibrated weight to the similarity of a fallacy whose cue
fires; the decision still goes through the margin against sound arguments (see navigators/offline.py).
Nodes of other taxonomies (Argumentum CSV) have other ids, so no cue applies to them: embeddings only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lexlogic.engine.fallacies.taxonomy import DATA_DIR, TaxonomyError
from lexlogic.logic import yaml_load

CUES_FILE = DATA_DIR / "cues.yaml"
_FLAGS = re.IGNORECASE | re.MULTILINE


def _normalise(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u00a0", " ").strip()


@lru_cache(maxsize=4)
def load_cues(path: Path = CUES_FILE) -> dict[str, list[list[re.Pattern[str]]]]:
    """fallacy id → cues, each cue a list of compiled patterns that must all match."""
    raw = yaml_load.safe_load(path.read_text(encoding="utf-8")) or {}
    out: dict[str, list[list[re.Pattern[str]]]] = {}
    for node_id, cues in raw.items():
        compiled = []
        for i, cue in enumerate(cues or []):
            parts = [cue] if isinstance(cue, str) else list(cue)
            try:
                compiled.append([re.compile(p, _FLAGS) for p in parts])
            except re.error as exc:
                raise TaxonomyError(f"{path}: {node_id}[{i}]: bad regex: {exc}") from exc
        out[str(node_id)] = compiled
    return out


def cue_hits(text: str, cues: dict[str, list[list[re.Pattern[str]]]] | None = None) -> set[str]:
    """Ids of the fallacies whose cue fires on ``text``."""
    cues = load_cues() if cues is None else cues
    t = _normalise(text)
    return {
        node_id
        for node_id, alternatives in cues.items()
        if any(all(p.search(t) for p in parts) for parts in alternatives)
    }
