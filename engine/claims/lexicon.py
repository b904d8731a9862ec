"""Paraphrase classes for the lexical side of claims retrieval (general French of contracts and business).

Snowball stems do not join a verb to its noun when the stem changes (« retirer » / « retrait », « rompre » /
« rupture », « notifiée » / « notification », « livrer » / « livraison ») nor two words for one thing
(« courriel » / « voie électronique », « tacite reconduction » / « relation durable »). A claim written in
other words than the dossier then shares no stem with its evidence. Each class below is one meaning; a
text containing any of its variants gets the class key appended (on both sides of BM25, like the judge's
synonym keys), so the claim meets the passage through the key. Keys are made-up tokens (« zq… ») that no
text contains.

Variants are folded (no accents, lower case) word prefixes, or phrases when they contain a space. The
classes are vocabulary of any commercial dispute, not of one dossier: a claim in a lawyer's words names the
same acts (to end, to withdraw, to inform, to renew, to deliver late) in many ways.
"""

from __future__ import annotations

import re
from functools import lru_cache

CLASSES: list[tuple[str, tuple[str, ...]]] = [
    # withdrawing products or references (a listing ended, goods taken off the shelves)
    ("zqretrait", ("retir", "retrait", "sortie", "sortir", "dereferenc", "quitt", "delist", "hors de l'assortiment")),
    # an e-mail, whatever it is called
    ("zqcourriel", ("courriel", "e-mail", "email", "mail ", "voie electronique", "message electronique", "messag")),
    # a letter, registered or not
    ("zqlettre", ("lettre", "courrier", "recommande", "lrar", "pli ", "accuse de reception")),
    # by telephone / orally
    ("zqoral", ("telephon", "appel", "oralement", "verbalement", "de vive voix")),
    # renewal, continuation, a lasting relation
    (
        "zqdurable",
        ("reconduct", "reconduit", "renouvel", "prolong", "durabl", "perenn", "poursuite", "poursuivr", "continu"),
    ),
    # gradually
    ("zqgraduel", ("echelonn", "progressi", "graduel", "par etapes", "par paliers", "etal")),
    # a breach
    ("zqmanquement", ("manquement", "manque a", "faute", "violation", "inexecution", "defaillan")),
    # ending, stopping (not the judge's rupture key: this one only for stopping words other than rupture)
    ("zqfin", ("mettre fin", "mis fin", "met fin", "prendra fin", "cesser", "cessation", "arret", "terminer", "cesse")),
    # taking effect, a start date
    ("zqeffet", ("prend effet", "prendra effet", "prise d'effet", "en vigueur", "a compter du", "a partir du")),
    # a price cut
    ("zqbaisse", ("baisse", "reduction", "redui", "diminu", "remise", "rabais", "ristourne")),
    # an investment
    ("zqinvest", ("invest", "depense", "financ")),
    # late
    ("zqretard", ("retard", "tardi", "hors delai", "en souffrance")),
    # a formal notice
    ("zqdemeure", ("mise en demeure", "mis en demeure", "mettons en demeure", "sommation", "somme de")),
    # signed, concluded
    ("zqsigne", ("signe", "signatur", "conclu", "souscri", "paraph")),
    ("zqdecision", ("decid", "decision", "arret sa", "resolu")),
    # letting someone know (the judge's « notifi » key covers « informer », « annoncer », « aviser »)
    (
        "zqinformer",
        (
            "prevenu",
            "prevenir",
            "previen",
            "faire savoir",
            "fait savoir",
            "faire connaitre",
            "fait connaitre",
            "porte a la connaissance",
            "porter a la connaissance",
            "inform",
            "annonc",
            "notifi",
        ),
    ),
    # turnover, sales
    ("zqventes", ("chiffre d'affaires", "ventes", "vendu", "recettes", "facturation", "volume d'affaires")),
    # margin, profit
    ("zqmarge", ("marge", "benefice", "rentabilit", "profit")),
    # objecting
    ("zqcontester", ("contest", "protest", "reclam", "objection", "s'oppos", "desaccord")),
    # staff
    ("zqeffectif", ("salari", "employ", "effectif", "personnel")),
    # compensation
    ("zqindemnite", ("dommages", "indemn", "prejudice", "reparation")),
]

_COMPILED = [
    (key, tuple(v for v in variants if " " in v), tuple(v for v in variants if " " not in v))
    for key, variants in CLASSES
]
_WORD = re.compile(r"[a-z0-9'-]+")


@lru_cache(maxsize=65536)
def class_keys(folded: str) -> tuple[str, ...]:
    """The class keys of a folded text (lower case, no accents), once each, in the table's order."""
    padded = f" {folded} "
    words = _WORD.findall(folded)
    out = []
    for key, phrases, prefixes in _COMPILED:
        if any(p in padded for p in phrases) or any(w.startswith(prefixes) for w in words if prefixes):
            out.append(key)
    return tuple(out)
