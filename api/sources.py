"""Where a lawyer reads a legal source: the pack's own URL, else a search on Légifrance (texts) or
Judilibre (court decisions). Sites are a presentation choice of the faces (report, page), not the engine's."""

from __future__ import annotations

from urllib.parse import quote_plus

JUDILIBRE = "https://www.courdecassation.fr/recherche-judilibre?search_api_fulltext="
LEGIFRANCE = "https://www.legifrance.gouv.fr/search/all?query="


def source_url(reference: str, kind: str | None = None, url: str | None = None) -> str | None:
    """The source's own URL, else Judilibre for a decision, Légifrance otherwise; None without a reference."""
    if url:
        return url
    if not reference:
        return None
    if kind == "decision" or reference.lower().startswith(("cass", "ca ", "cour")):
        return JUDILIBRE + quote_plus(reference)
    return LEGIFRANCE + quote_plus(reference)
