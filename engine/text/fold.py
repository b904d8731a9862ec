"""Folding French text for comparison: three meanings, three names, one implementation each.

- ``fold``: the same words without case or accents (« Préavis d’un an » → « preavis d'un an »); typographic
  apostrophes, non-breaking spaces and en dashes become their plain forms. For lexicons, cues and search.
- ``word_key``: ASCII words only, one space between them (« S.A.S. Dupont-Frères » → « s a s dupont freres »).
  For matching a phrase whatever its punctuation.
- ``name_key``: ASCII letters and digits only (« Dupont-Frères SAS » → « dupontfreressas »). For matching
  one name across documents.
- ``strip_accents``: accents removed, case and everything else kept (« Émile Côté » → « Emile Cote »). For
  patterns that still need the capitals of a proper name.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_TYPOGRAPHY = str.maketrans({"\u2019": "'", "\u2013": "-"})  # NFKD already turns U+00A0/U+202F into spaces


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower case, accents removed, typographic apostrophe/dash/spaces plain (other characters kept)."""
    t = unicodedata.normalize("NFKD", text.lower().translate(_TYPOGRAPHY))
    return "".join(c for c in t if not unicodedata.combining(c))


def _ascii_lower(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def word_key(text: str) -> str:
    """ASCII lower-case words (letters and digits) joined by single spaces."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", _ascii_lower(text)).split())


def name_key(text: str) -> str:
    """ASCII lower-case letters and digits only, nothing between them."""
    return re.sub(r"[^a-z0-9]+", "", _ascii_lower(text))


def strip_accents(text: str) -> str:
    """Accents removed (canonical decomposition), case and other characters kept."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
