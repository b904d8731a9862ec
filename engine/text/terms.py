"""The words a lexical search compares: folded, stop words out, Snowball stems (numbers kept whole).

Callers normalise numbers and dates first (``engine.claims.normalise``), so "380000" in a claim meets
"380000" in a note. The stemmer itself is a library, reached through ``bridges.text_index``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lexlogic.bridges.text_index import stem_words
from lexlogic.engine.text.fold import fold
from lexlogic.engine.text.stopwords import SEARCH_STOPWORDS


@lru_cache(maxsize=65536)
def search_terms(text: str) -> tuple[str, ...]:
    """Folded, stop-word-free, stemmed words of ``text``; a number stays whole, a lone letter goes."""
    words = [w for w in re.findall(r"\w+", fold(text)) if w not in SEARCH_STOPWORDS and (len(w) > 1 or w.isdigit())]
    stems = iter(stem_words([w for w in words if not w.isdigit()]))
    return tuple(w if w.isdigit() else next(stems) for w in words)
