"""The shared domain ontology (data/ontology.yaml) as lookup tables for the explicit extractor.

Why a data file: the relation types a dispute turns on and the words that state them are domain knowledge,
edited without touching the extractor (the engine's RelationType enum is built from the same file).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from lexlogic.engine.kg.model import ONTOLOGY_FILE, RelationType
from lexlogic.logic import yaml_load


@dataclass(frozen=True)
class Frame:
    """One way a verb states a relation (see the header of ontology.yaml)."""

    relation: RelationType
    lang: str
    verb: str
    arg: str = "obj"
    inverse: bool = False
    passive: str | None = None
    reflexive: bool = False
    adjective: bool = False
    object_stop: tuple[str, ...] = ()
    object_words: tuple[str, ...] = ()
    with_object: tuple[str, ...] = ()

    def object_fits(self, obj: str) -> bool:
        """The frame's object restriction (data), if any."""
        if not self.object_words:
            return True
        words = {w.strip(".,;:'’").lower() for w in obj.replace("'", " ").replace("’", " ").split()}
        return bool(words & set(self.object_words))


@dataclass(frozen=True)
class Ontology:
    verbs: dict[tuple[str, str], tuple[Frame, ...]]  # (lang, verb lemma or form) → frames
    nominals: dict[tuple[str, str], RelationType]  # (lang, noun) → relation

    def frames(self, lang: str, verb: str, form: str = "") -> tuple[Frame, ...]:
        """Frames of a verb lemma (fr) or form (en); in French a mis-lemmatised form ("applique") is
        found by the lemma's stem when the stem is long enough to be unambiguous (≥ 5 letters)."""
        hit = self.verbs.get((lang, verb.lower()), ())
        if hit or lang != "fr" or not form:
            return hit
        low = form.lower()
        for (lg, lemma), frames in self.verbs.items():
            stem = lemma[:-2]
            if lg == "fr" and len(stem) >= 5 and low.startswith(stem):
                return frames
        return ()


@lru_cache(maxsize=1)
def load() -> Ontology:
    data = yaml_load.safe_load(ONTOLOGY_FILE.read_text(encoding="utf-8")) or {}
    verbs: dict[tuple[str, str], list[Frame]] = {}
    nominals: dict[tuple[str, str], RelationType] = {}
    for name, spec in (data.get("relations") or {}).items():
        relation = RelationType(name)
        for lang in ("fr", "en"):
            for entry in spec.get(lang) or []:
                for verb in entry.get("verbs") or []:
                    frame = Frame(
                        relation=relation,
                        lang=lang,
                        verb=str(verb).lower(),
                        arg=str(entry.get("arg", "obj")),
                        inverse=bool(entry.get("inverse", False)),
                        passive=entry.get("passive"),
                        reflexive=bool(entry.get("reflexive", False)),
                        adjective=bool(entry.get("adjective", False)),
                        object_stop=tuple(str(w) for w in entry.get("object_stop") or ()),
                        object_words=tuple(str(w).lower() for w in entry.get("object_words") or ()),
                        with_object=tuple(str(w).lower() for w in entry.get("with_object") or ()),
                    )
                    verbs.setdefault((lang, frame.verb), []).append(frame)
                for noun in entry.get("nominals") or []:
                    nominals[(lang, str(noun).lower())] = relation
    return Ontology(verbs={k: tuple(v) for k, v in verbs.items()}, nominals=nominals)
