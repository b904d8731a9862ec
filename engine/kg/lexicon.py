"""Predicates (French and English) that name a relation type, and the small grammar words the extractor needs.

Each entry maps a verb pattern to a RelationType; ``inverse`` entries are passive or 'Y is required for
X' forms whose object comes first. Forbidden-for-discursive types are listed too: recognising them is
how the extractor refuses them with WHITELIST_VIOLATION instead of missing them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexlogic.engine.kg.model import RelationType as R


@dataclass(frozen=True)
class Predicate:
    pattern: re.Pattern[str]
    relation: R
    inverse: bool = False


def _p(regex: str, relation: R, inverse: bool = False) -> Predicate:
    return Predicate(re.compile(rf"(?<![\w'’])(?:{regex})(?!\w)", re.IGNORECASE), relation, inverse)


_MODAL = r"(?:(?:shall|will|must|may|should|does|do)\s+(?:also\s+)?)?"

PREDICATES: tuple[Predicate, ...] = (
    # APPLIES_TO
    _p(_MODAL + r"(?:appl(?:y|ies)|be applicable|(?:is|are) applicable)\s+to", R.APPLIES_TO),
    _p(_MODAL + r"govern(?:s)?", R.APPLIES_TO),
    _p(r"(?:is|are|shall be|will be)\s+governed\s+by", R.APPLIES_TO, inverse=True),
    _p(r"s['’]appliqu(?:e|ent|era|eront)\s+(?:à\s+la|à\s+l['’]|à|au|aux)", R.APPLIES_TO),
    _p(r"(?:est|sont|sera|seront)\s+applicables?\s+(?:à\s+la|à\s+l['’]|à|au|aux)", R.APPLIES_TO),
    _p(r"régi(?:t|ssent|ra|ront)", R.APPLIES_TO),
    _p(r"(?:est|sont|sera|seront)\s+régi(?:e|s|es)?\s+par", R.APPLIES_TO, inverse=True),
    _p(r"va(?:u|l)(?:t|ent)\s+pour", R.APPLIES_TO),
    # REQUIRES
    _p(r"(?:(?:shall|will|must)\s+)?requires?", R.REQUIRES),
    _p(r"(?:must|shall|will)\s+(?:include|contain|mention|state|specify|comprise|be\s+accompanied\s+by)", R.REQUIRES),
    _p(r"(?:is|are|shall\s+be)\s+(?:required|mandatory)\s+for", R.REQUIRES, inverse=True),
    _p(r"exige(?:nt|ra|ront)?|nécessite(?:nt|ra|ront)?|requiert|requièrent", R.REQUIRES),
    _p(
        r"(?:doit|doivent|devra|devront)\s+(?:comporter|contenir|mentionner|inclure|comprendre|préciser|indiquer|"
        r"être\s+accompagnée?s?\s+(?:de|d['’]|du|des))",
        R.REQUIRES,
    ),
    _p(r"(?:est|sont|sera|seront)\s+(?:obligatoires?|requise?s?)\s+pour", R.REQUIRES, inverse=True),
    # REPLACES / DEPRECATES
    _p(r"(?:(?:shall|will)\s+)?(?:replaces?|supersedes?|substitutes?\s+for)", R.REPLACES),
    _p(r"(?:annule(?:nt)?\s+et\s+)?remplace(?:nt|ra|ront)?|se\s+substitue(?:nt)?\s+(?:à|au|aux)", R.REPLACES),
    _p(r"(?:(?:shall|will)\s+)?(?:repeals?|abrogates?|deprecates?)", R.DEPRECATES),
    _p(r"abroge(?:nt|ra|ront)?|rend(?:ent|ra)?\s+caduc(?:que)?s?", R.DEPRECATES),
    # forbidden for DISCURSIVE (recognised in order to refuse them)
    _p(
        r"caus(?:es|ed|e)|results?\s+in|resulted\s+in|leads?\s+to|led\s+to|entails?|triggers?|gives?\s+rise\s+to",
        R.CAUSES,
    ),
    _p(
        r"entraîne(?:nt|ra|ront)?|provoque(?:nt|ra|ront)?|(?:a|ont)\s+causé|causent|déclenche(?:nt|ra)?|"
        r"conduit\s+à|donne(?:nt)?\s+lieu\s+à",
        R.CAUSES,
    ),
    _p(r"prevents?|precludes?|bars", R.PREVENTS),
    _p(r"empêche(?:nt|ra)?|fai(?:t|saient)\s+obstacle\s+à|font\s+obstacle\s+à", R.PREVENTS),
    _p(r"mitigates?|attenuates?|reduces?", R.MITIGATES),
    _p(r"atténue(?:nt|ra)?|réduit|réduisent", R.MITIGATES),
    _p(r"enables?|entitles?|allows?|permits?", R.ENABLES),
    _p(r"permet(?:tent|tra)?|autorise(?:nt|ra)?|ouvre(?:nt)?\s+droit\s+à", R.ENABLES),
    _p(r"(?:shall\s+)?mean|means|(?:is|are)\s+defined\s+as|refers?\s+to", R.DEFINES),
    _p(r"désigne(?:nt)?|s['’]entend(?:ent)?\s+d(?:e|u|es)|(?:est|sont)\s+défini(?:e|s|es)?\s+comme", R.DEFINES),
)

# options of a choice: the modal or form that makes "X or Y" an alternative rather than a mere disjunction
CHOICE = re.compile(
    r"(?<!\w)(?:may|can|might|either|at (?:the|its|his|her|their) option|payable|peut|peuvent|pourra|pourront|"
    r"au choix|à (?:son|leur) choix|soit|payables?)(?!\w)",
    re.IGNORECASE,
)
OR_WORD = re.compile(r"\s+(?:or|ou(?:\s+bien)?)\s+", re.IGNORECASE)
SOIT_SOIT = re.compile(r"\bsoit\s+(?P<a>[^,;.]+?),?\s+soit\s+(?P<b>[^,;.]+)", re.IGNORECASE)

PREPOSITION = re.compile(
    r"^(?P<p>by|in|to|with|through|via|at|into|onto|par|en|avec|auprès\s+(?:de\s+la|de\s+l['’]|du|des|de|d['’])|"
    r"à\s+la|à\s+l['’]|au|aux|à|de\s+la|de\s+l['’]|du|des|de|d['’])(?:\s+|(?<=['’]))",
    re.IGNORECASE,
)
PREP_FAMILY = {
    "by": "by",
    "in": "in",
    "to": "to",
    "with": "with",
    "through": "through",
    "via": "via",
    "at": "at",
    "into": "into",
    "onto": "onto",
    "par": "par",
    "en": "en",
    "avec": "avec",
}


def prep_family(prep: str) -> str:
    p = re.sub(r"\s+", " ", prep.lower())
    if p.startswith("auprès"):
        return "auprès"
    if p in ("à", "au", "aux") or p.startswith("à "):
        return "à"
    if p in ("de", "du", "des", "d'", "d’") or p.startswith("de "):
        return "de"
    return PREP_FAMILY.get(p, p)


FAMILY_ANYWHERE: dict[str, re.Pattern[str]] = {
    fam: re.compile(rf"(?<![\w'’])(?:{alts})(?:\s+|(?<=['’]))", re.IGNORECASE)
    for fam, alts in {
        "à": r"à\s+la|à\s+l['’]|au|aux|à",
        "de": r"de\s+la|de\s+l['’]|du|des|de|d['’]",
        "auprès": r"auprès\s+(?:de\s+la|de\s+l['’]|du|des|de|d['’])",
        **{k: k for k in PREP_FAMILY},
    }.items()
}

# Where a noun phrase walked back from « or » stops (modals, copulas, « either/between »): not stop words
# of the text toolkit (engine.text.stopwords), which drop words from a bag; these cut a phrase.
MODALS_AND_COPULAS = frozenset(
    """
may can might must shall will should be is are was were been being either between
peut peuvent pourra pourront doit doivent être est sont soit entre
""".split()
)
DETERMINERS = frozenset(
    "the a an any each every all this that these those its their his her our your "
    "le la les l' l’ un une des du ce cet cette ces son sa ses leur leurs tout toute".split()
)
PRONOUN_SUBJECT = re.compile(
    r"^(?:it|they|this clause|this provision|il|elle|ils|elles|celui-ci|celle-ci|ceux-ci|celles-ci|"
    r"ce dernier|cette dernière)$",
    re.IGNORECASE,
)
CLAUSE_END = re.compile(
    r"\s*(?:[,;:.!?]|\s(?:which|who|whose|that|where|when|unless|except|qui|dont|lorsque|sauf|à moins)\b)",
    re.IGNORECASE,
)
TEMPORAL_CUT = re.compile(
    r"\s+(?:from|as from|as of|with effect from|effective|since|on and after|upon|à compter|à partir|dès|depuis|"
    r"avec effet|à l['’]entrée|à l['’]expiration)\b.*$",
    re.IGNORECASE,
)
