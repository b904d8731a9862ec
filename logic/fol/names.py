"""Name normalisation: LLM and case-file labels ("personne morale", "Société Alpha SA") become names
Tweety's syntax accepts (PersonneMorale, societe_alpha_sa); the original label is kept for display."""

from __future__ import annotations

import re
import unicodedata


def _ascii_words(label: str) -> list[str]:
    text = unicodedata.normalize("NFKD", label).encode("ascii", "ignore").decode()
    return [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]


def symbol_name(label: str, kind: str = "predicate") -> str:
    """Sorts and predicates: CamelCase `[A-Za-z][A-Za-z0-9]*` ('est mortel' → 'EstMortel')."""
    words = _ascii_words(label)
    if not words:
        raise ValueError(f"{kind} name {label!r} has no letters or digits")
    name = "".join(w[0].upper() + w[1:] for w in words)
    return name if name[0].isalpha() else ("S" if kind == "sort" else "P") + name


def constant_name(label: str) -> str:
    """Constants: lower snake case `[a-z][a-z0-9_]*` ('Société Alpha SA' → 'societe_alpha_sa').

    Lowercase first is essential: Tweety reads `Socrate` as a free variable.
    """
    words = _ascii_words(label)
    if not words:
        raise ValueError(f"constant name {label!r} has no letters or digits")
    name = "_".join(w.lower() for w in words)
    return name if name[0].isalpha() else "c_" + name
