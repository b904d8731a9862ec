"""Cue-word lexicons (French and English) shared by the constraints, the tiers and the extractor.

Kept in one place so the whitelist check and the extractor can never disagree on what counts as an
obligation marker, a temporal marker or a strong discursive marker.
"""

from __future__ import annotations

import re

from lexlogic.engine.kg.model import DiscursiveBasis


def _words(*alternatives: str) -> re.Pattern[str]:
    """A case-insensitive pattern matching any alternative as whole words (accents count as letters)."""
    body = "|".join(sorted(alternatives, key=len, reverse=True))
    return re.compile(rf"(?<![\w'’])(?:{body})(?:(?<=['’])|(?!\w))", re.IGNORECASE)


# REQUIRES needs one of these (the list: must/shall/required/doit/obligatoire, plus inflections)
OBLIGATION = _words(
    "must",
    "shall",
    "required",
    "is required",
    "are required",
    "mandatory",
    "doit",
    "doivent",
    "devra",
    "devront",
    "obligatoire",
    "obligatoires",
    "est tenu de",
    "est tenue de",
    "sont tenus de",
    "sont tenues de",
)

# REPLACES / DEPRECATES need explicit temporality
TEMPORAL = re.compile(
    r"(?<!\w)(?:from|as from|as of|with effect from|effective(?: as of| from)?|since|on and after|"
    r"upon (?:the )?entry into force|upon expiry|after|"
    r"à compter d[eu']|à compter de la|à partir d[eu']|à partir de la|dès l[ea']|dès|depuis|"
    r"avec effet (?:au|à compter)|à l['’]entrée en vigueur|à l['’]expiration)(?!\w)"
    r"|\b(?:19|20)\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.IGNORECASE,
)

# strong markers of the bases whose strength is decided by a marker (tier rule, issue §5)
STRONG_MARKERS: dict[DiscursiveBasis, re.Pattern[str]] = {
    DiscursiveBasis.ALTERNATIVE: _words("or", "either", "ou", "ou bien", "soit"),
    DiscursiveBasis.DEFAULT: _words("by default", "par défaut"),
    # "sauf" alone is the French "except" (sauf X), "sauf si" the French "unless": both strong.
    DiscursiveBasis.EXCEPTION: _words("unless", "except", "sauf", "sauf si", "à moins que", "à moins qu", "à moins de"),
}

# every discursive cue the extractor recognises, strong or weak, by basis
ALTERNATIVE_WEAK = _words(
    "instead of",
    "in lieu of",
    "alternatively",
    "as an alternative to",
    "au lieu de",
    "au lieu d'",
    "au lieu d’",
    "à la place d'",
    "à la place de",
    "en lieu et place de",
    "alternativement",
)
DEFAULT_CUES = _words(
    "by default",
    "par défaut",
    "failing which",
    "failing that",
    "failing agreement",
    "in the absence of",
    "absent",
    "à défaut",
    "à défaut de",
    "en l'absence de",
    "en l’absence de",
)
EXCEPTION_CUES = _words(
    "unless",
    "except",
    "except for",
    "except where",
    "except that",
    "save where",
    "save that",
    "save for",
    "other than",
    "sauf",
    "sauf si",
    "à moins que",
    "à moins qu",
    "à moins de",
    "à l'exception de",
    "à l’exception de",
    "hormis",
    "excepté",
)
SCOPE_CUES = re.compile(
    r"(?<!\w)(?:for the purposes? of|within|in|under|aux fins d[eu']|aux fins de la|au sens d[eu']|"
    r"au sens de la|dans le cadre d[eu']|dans le cadre de la|pour l['’]application d[eu']|en vertu d[eu'])\s+"
    r"(?:this|the present|présent|présente|cette|ce|the|l['’]|la|le)?\s*"
    r"(?P<ref>(?:article|art\.|section|clause|chapter|chapitre|titre|annex|annexe|schedule|paragraph|paragraphe)"
    r"(?:\s+[\w.\-]+)?)",
    re.IGNORECASE,
)
OPEN_LIST = _words(
    "including",
    "such as",
    "among others",
    "in particular",
    "e.g.",
    "for example",
    "etc",
    "notamment",
    "entre autres",
    "par exemple",
    "en particulier",
    "tels que",
    "telles que",
    "comme",
    "and so on",
    "inter alia",
)

# Type-2 risk: deduction, hedging and appeals to world knowledge
TYPE2_CUES = _words(
    "therefore",
    "thus",
    "hence",
    "so",
    "consequently",
    "as a result",
    "because",
    "since it",
    "which means",
    "it follows that",
    "implies",
    "implying",
    "accordingly",
    "usually",
    "generally",
    "normally",
    "typically",
    "probably",
    "likely",
    "presumably",
    "in practice",
    "obviously",
    "of course",
    "as everyone knows",
    "it is well known",
    "it is common knowledge",
    "naturally",
    "donc",
    "par conséquent",
    "en conséquence",
    r"ainsi(?!\s+qu)",
    "parce que",
    "puisque",
    ", car",
    "c'est pourquoi",
    "c’est pourquoi",
    "il s'ensuit",
    "il s’ensuit",
    "ce qui signifie",
    "implique",
    "généralement",
    "en général",
    "habituellement",
    "normalement",
    "probablement",
    "sans doute",
    "vraisemblablement",
    "en pratique",
    "évidemment",
    "bien entendu",
    "chacun sait",
    "il est notoire",
    "naturellement",
)


def find(pattern: re.Pattern[str], text: str) -> list[str]:
    """The matched cue words, lower-cased, in order of appearance."""
    return [m.group(0).lower() for m in pattern.finditer(text)]


def has_obligation(text: str) -> bool:
    return OBLIGATION.search(text) is not None


def has_temporality(text: str) -> bool:
    return TEMPORAL.search(text) is not None
