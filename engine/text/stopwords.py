"""French stop words: one core of grammar words, and one named list per purpose built on it.

Why three lists and not one: each reader drops different words on purpose. A search index drops the letter's
courtesy formulas (« veuillez agréer … salutations distinguées ») that every letter shares; a claim's content
words drop negations, which the judge reads as a facet of their own, and the legal determiners (« ledit »)
and company forms that name no topic; a fallacy's topic words drop the discourse adverbs (« précisément »,
« évidemment ») an arguer leans on. All are folded (lower case, no accents: ``engine.text.fold``).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CORE_FUNCTION_WORDS = _words(
    """a ainsi alors au aussi aux avait avec bien ce ces cet cette d dans de des du elle elles en est et etait ete
    etre il ils l la le les leur leurs lui meme n ne nous on ont ou par pas plus pour qu que qui s sa sans se ses
    son sont sur tous tout toute toutes un une vous y"""
)
"""The commonest articles, pronouns, prepositions and auxiliaries."""

FUNCTION_WORDS = CORE_FUNCTION_WORDS | _words(
    """apres avaient avant c cela celle celui ceux chez dont entre j lors m ma mais me mes mon nos notre selon sous
    t ta te tes ton tu vers vos votre"""
)
"""Grammar words: the core plus the other possessives, demonstratives and prepositions."""

LETTER_FORMULAS = _words(
    "agreer bonjour cordialement distinguees expression madame monsieur prions salutations veuillez"
)
NEGATIONS = _words("aucun aucune guere jamais non nullement point rien")
DISCOURSE_ADVERBS = _words("effectivement evidemment justement precisement")

SEARCH_STOPWORDS = (
    FUNCTION_WORDS
    | LETTER_FORMULAS
    | _words("ai as avoir ca car ceci comme donc etaient eux je moi moins ni or puis si toi tres")
)
"""Dropped by the lexical search index (``engine.text.terms``)."""

CLAIM_STOPWORDS = (
    FUNCTION_WORDS
    | NEGATIONS
    | _words(
        """a-t-elle a-t-il afin aupres ci deja depuis encore eu fait fut la-dessus quoi sera serait seront soit
        toujours ledit ladite lesdits lesdites lequel laquelle lesquels societe sas sarl"""
    )
)
"""Not content words of a claim (``engine.claims.facets``)."""

TOPIC_STOPWORDS = CORE_FUNCTION_WORDS | DISCOURSE_ADVERBS | _words("car donc parce puisque tres")
"""Not topic words of an argument (``engine.fallacies.detectors``)."""
