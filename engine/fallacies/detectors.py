"""Structural detectors: the FORM of a fallacious argument, which topic embeddings miss.

Issue 11's cue patterns matched phrasings (« on a toujours fait ainsi ») and fired on about 1 % of other
people's texts. Each detector here looks for a reasoning shape, made of two parts that must BOTH be
present — what the argument rests on, and the conclusion drawn from it:

* circularity: a conclusion and its premise joined by car / puisque / parce que / ce qui prouve… whose
  premise adds (almost) no content word the conclusion does not already have;
* personal attack: a person's character, record or interests AND a rejection of their argument;
* popularity: what most people, or everyone in a trade, do or think AND an inference from it;
* authority outside its field: a celebrity or an expert of another field speaking AND a conclusion drawn
  from their saying so;
* straw man: a re-statement of the other side's position (« prétend en réalité », « à l'entendre »,
  « autrement dit ») in an extreme form (jamais, aucun, tout, éternellement);
* tradition, false dilemma, slippery slope, post hoc, hasty generalisation, emotion, red herring.

A detector never decides alone: it adds a calibrated weight to its fallacy's memory score; the margin over
sound arguments must still clear the calibrated threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lexlogic.engine.text.fold import fold
from lexlogic.engine.text.stopwords import TOPIC_STOPWORDS


@dataclass(frozen=True)
class Detection:
    node: str  # a leaf of the built-in taxonomy
    strength: float  # 0..1
    reason: str  # French, for the justification


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_CIRC_SPLIT = _rx(
    r"\b(?:car|puisqu|puisque|parce qu|parce que|des lors qu|des lors que|etant donne qu|etant donne que|vu qu|vu que|"
    r"ce qui (?:prouve|demontre|montre|etablit|confirme)|ce qui demontre bien|la preuve en est qu|"
    r"c'est (?:precisement|justement|bien) (?:\w+ ){0,3}qui)\b"
)


# the proof points back at what it proves (« démontrée par la sincérité de ces mêmes attestations ») or
# holds « by definition »
_SELF_PROOF = (
    r"(?:demontre|prouve|etabli|atteste|confirme|garanti)\w* par (?:\w+ ){0,4}(?:ces|ce|cette|cet) memes?\b|"
    r"ce qui (?:exclut|implique|signifie|suppose|prouve|montre) par definition"
)


def _words(words: str) -> list[str]:
    return [t[:4] for t in re.findall(r"[a-z]+", words) if t not in TOPIC_STOPWORDS and len(t) > 2]


# legal predicates that restate one another (4-letter folded stems): « disproportionnée » is « excessive »
_SYNONYMS = (
    {"abus", "exce", "disp", "dese", "deme", "outr"},
    {"faut", "manq", "viol"},
    {"fiab", "cred", "sinc", "honn", "dign"},
    {"nul", "nulle", "inva", "illi", "ille"},
    {"insu", "bref"},
    {"rais", "suff", "adeq"},
    {"brut", "brus"},
    {"depe", "asse"},
    {"lici", "vala", "vali", "lega"},
)


def _stem_variants(word: str) -> set[str]:
    """A predicate, its root without a negative prefix (« insuffisant » also restates « ne suffit pas ») and
    the stems of the predicates that mean the same."""
    out = {word[:4]}
    for pre in ("in", "im", "ir", "il", "de", "des", "mal"):
        if word.startswith(pre) and len(word) - len(pre) >= 5:
            out.add(word[len(pre) : len(pre) + 4])
    for group in _SYNONYMS:
        if out & group:
            out |= group
    return out


def circularity(f: str) -> Detection | None:
    """The premise restates the conclusion: the conclusion's predicate (its last content word: « abusive »,
    « dépendant », « fautive ») comes back in a premise that adds at most three other content words."""
    parts = _CIRC_SPLIT.split(f)
    if len(parts) < 2:
        if re.search(_SELF_PROOF, f):
            return Detection("petition_principe", 0.8, "la preuve invoquée renvoie à la conclusion elle-même")
        return None
    head = re.split(r"[;:]", parts[0])[-1]
    conclusion = _words(head)
    full = [t for t in re.findall(r"[a-z]+", head) if t not in TOPIC_STOPWORDS and len(t) > 2]
    if len(conclusion) < 2 or not full:
        return None
    predicate = _stem_variants(full[-1])
    best = None
    for premise_text in parts[1:]:
        premise = set(_words(re.split(r"[;.]", premise_text)[0]))
        if predicate & premise:
            new = premise - set(conclusion) - predicate
            if len(new) <= 3:
                best = max(best or 0.0, 1.0 if len(new) <= 1 else 0.7)
    if best is None and len(parts) >= 3:  # A car B, puisque C — and C is A again
        last = set(_words(re.split(r"[;.]", parts[-1])[0]))
        if last & set(conclusion):
            best = 0.7
    if best is None and re.search(_SELF_PROOF, f):
        best = 0.8
    if best is None:
        return None
    return Detection("petition_principe", best, "la prémisse reprend la conclusion sans rien y ajouter")


_PERSON = r"(?:dirigeant|gerant|president|directeur|conseil|avocat|actionnaire|associe|temoin|expert|fondateur|patron|ce monsieur|cette dame|son|sa|ses|dont l|dont les)"
_CHARACTER = (
    r"(?:condamne|radie|reputation|reputee?|train de vie|menteur|malhonnete|militant|incompetent|antecedent|"
    r"passe judiciaire|casier|sulfureu|douteu|notoire|connu pour|collectionn|frequente|colerique|brouillon|"
    r"mene grand train|voitures de luxe|casinos?|faillites?|escroc|escroquerie|ivre|paye pour|remunere par|"
    r"ostentatoire|mauvaise reputation|moralite|aigri|deteste|haineu\w*|partial\w*|piètre|pietre|incapable|"
    r"liquidation|deja conduit|fraude\w*|condamn\w*|banqueroute|sanctionne\w*|voilier|yacht|chasses?|golf|"
    r"mode de vie|vit de ses|n'a jamais (?:dirige|gere|travaille|exerce|cree)|jamais dirige|mis en examen|"
    r"interdit de gerer|redressement judiciaire|deboires|moralite douteuse|(?:deja )?condamnee? a plusieurs reprises|"
    r"licenciee? pour faute|poursuivie?s? (?:pour|en justice)|frasques|vie privee|mauvais payeur)"
)
_REJECT = (
    r"(?:ne merite\w*|aucun credit|ne (?:peut|saurait|sauraient|pourrait) (?:serieusement|etre cru|pretendre|"
    r"soutenir|se plaindre|donner des lecons)|n'est pas fonde|doit etre (?:rejete|ecarte)|doivent etre (?:rejete|ecarte)|"
    r"irrecevable|comment (?:accorder|croire|faire confiance|prendre au serieux)|ne vaut (?:donc )?rien|"
    r"ne saurait|a ecarter|prendre au serieux|sans valeur|ne peut etre cru|ne sont pas credibles?|"
    r"n'est pas credible|aucune foi|mal venue?|inutile d'examiner|inutile de (?:lire|discuter|s'attarder)|sans examen|"
    r"ne merite\w* pas d'etre (?:examine|lu|discute)\w*|aucune legitimite|n'a pas qualite|que vaut la parole|"
    r"ne (?:peut|saurait) etre retenue?|ne peut etre prise? au serieux|mal place\w* pour|guere etonnant|pas etonnant|"
    r"ne s'etonnera|denue\w* de (?:toute )?valeur|donner des lecons|quelle credibilite|sans (?:aucune )?credibilite|"
    r"ne manque pas d'(?:audace|aplomb)|on appreciera (?:la credibilite|le credit)|en dit long|prete a sourire|"
    r"on mesure (?:le serieux|la valeur|la credibilite)|s'interroger sur (?:la sincerite|le serieux))"
)


_INTEREST = (
    r"(?:en proces avec|travaillant pour|paye par|payee par|remunere\w* par|mandate\w* par|employe\w* de|salarie\w* de|"
    r"a interet a|a tout interet|partie prenante|est paye pour|sont payes pour)"
)
_DISMISS = r"(?:forcement|necessairement|donc) (?:\w+ ){0,2}(?:menti|fausse?|partial\w*|faux|mensong\w*|sans valeur|ecarte\w*)|doit etre ecarte|ne vaut (?:donc )?rien"


def personal_attack(f: str) -> Detection | None:
    who = re.search(rf"\b{_PERSON}|\b(?:cet|cette|ce) \w+|c'est un", f)
    if re.search(_CHARACTER, f) and re.search(_REJECT, f) and who:
        return Detection(
            "ad_hominem_abusif", 1.0, "le caractère ou le passé d'une personne sert à rejeter son argument"
        )
    if re.search(_INTEREST, f) and re.search(_DISMISS, f):
        return Detection(
            "ad_hominem_circonstanciel", 1.0, "la situation ou l'intérêt d'une personne sert à rejeter ce qu'elle dit"
        )
    if re.search(
        r"(?:reproche|fait grief|font grief)\w*.{0,160}(?:mais|alors qu|or|pourtant|;)\W.{0,60}"
        r"(?:lui-meme|elle-meme|eux-memes|vous-meme|vous-memes)",
        f,
    ):
        return Detection("tu_quoque", 1.0, "le reproche est renvoyé à son auteur au lieu d'y répondre")
    return None


_PEOPLE = (
    r"(?:\w+ )?(?:professionnels|acteurs|operateurs|distributeurs|fournisseurs|praticiens|commercants|confreres|"
    r"concurrents|juristes|agents|concessionnaires|enseignes|franchises|franchiseurs|bailleurs|assureurs|avocats|"
    r"notaires|grossistes|transporteurs|clients|consommateurs|salaries|employeurs|magasins|entreprises|societes|gens|experts)"
)
_CROWD = (
    rf"(?:tout le monde|chacun sait|personne ne (?:conteste|doute|discute)|la (?:quasi-)?totalite des {_PEOPLE}|"
    rf"la plupart des {_PEOPLE}|l'(?:immense |grande )?majorite des {_PEOPLE}|l'ensemble des {_PEOPLE}|"
    rf"\w+ {_PEOPLE} sur (?:dix|\d+)|\d+ ?% des {_PEOPLE}|des (?:milliers|centaines|dizaines) de|tous les {_PEOPLE}|"
    r"toutes les (?:enseignes|entreprises|societes|banques|juridictions)|unanim\w*|communement admis|"
    rf"largement (?:admis|repandu)|tout le secteur|toute la profession|la (?:grande )?majorite des {_PEOPLE}|"
    rf"(?:mille|cents|centaines|milliers|millions) (?:de )?{_PEOPLE}|(?:\b\d{{1,3}}(?: \d{{3}})+|\b[1-9]\d{{2}}) {_PEOPLE}|"
    r"la pratique (?:du marche|de la profession|du secteur)|pratique (?:courante|generalisee|repandue)|"
    r"tous (?:nos|leurs|ses) concurrents|nul ne (?:conteste|s'en plaint)|personne ne s'en est jamais plaint|"
    r"(?:l'immense |la grande |la )?majorite (?:de nos|de ses|de leurs|de la profession|du secteur|du marche)|"
    r"comme le font (?:tous|toutes|la plupart|l'ensemble)|a l'instar de (?:tous|toutes|l'ensemble)|"
    r"usage (?:general|generalise)|standard du marche|tous les acteurs|\d+ ?% des (?:sondes|personnes interrogees)|"
    r"\bsondage\b|\d+ ?% d'entre eux|presque tous les {_PEOPLE}|(?:sur|parmi) les \d+ [^.;]{0,60}\d+ ont)"
)
_INFER = (
    r"(?:donc|necessairement|forcement|ne saurait|ne peut|inutile|par consequent|preuve qu|c'est bien la preuve|ce qui prouve|"
    r"il l'est|doit etre|est (?:donc )?(?:licite|valable|raisonnable|normal|equilibre)|n'a pas a|ne (?:merite|vaut)|"
    r"comment (?:soutenir|pretendre|imaginer)|il est (?:donc|ainsi) etabli)"
)


def popularity(f: str) -> Detection | None:
    m = re.search(_CROWD, f)
    if m and re.match(r"[^.;:]{0,40}:[^.;]*,[^.;]*,", f[m.end() :]):
        return None  # « tout le monde s'accorde : le transporteur, le bon signé, la défenderesse… »: named sources
    if m and re.search(_INFER, f[m.end() :]):
        return Detection("appel_popularite", 1.0, "le nombre de ceux qui font ou pensent ainsi tient lieu de preuve")
    return None


_CELEB = (
    r"\b(?:eminent\w*|de renom|de renommee|personnalite|depute|senateur|journaliste|economiste|maire|"
    r"auteur d'un (?:ouvrage|livre|essai)|interroge par (?:le|la|un|une) (?:quotidien|journal|magazine|presse)|celebre|connu|renomme|star|vedette|acteur|actrice|chanteu\w+|champion|footballeur|sportif|influenceu\w+|"
    r"animateur|prix nobel|medecin|astronaute|humoriste|comedien|romancier|ecrivain|cuisinier|chef etoile|"
    r"ancien ministre|president d'un club|a la television|a la radio|dans la presse|sur les reseaux|dans un entretien|"
    r"sur son blog|dans une interview|consultant|ancien president|ancienne presidente|ancien ministre|publiquement)"
)
_SAYS = r"(?:a declare|declare|affirme|a affirme|estime|a estime|a dit|selon|soutient|juge|a juge|a qualifie|qualifie|assure|a assure|pense|a explique|explique|a ecrit|ecrit|a tweete|recommande)"
_THEN = (
    r"(?:donc|ne pourra que|ne peut que|necessairement|par consequent|il faut|doit (?:donc )?etre|tombe|ne peut l'ignorer|"
    r"mal fonde|suffis\w*|suffit|le debat est clos|s'effondre|n'a plus lieu|ne saurait s'ecarter|"
    r"avis (?:aussi |si |tres )?autorise|fait autorite|s'incliner|comment (?:en )?douter|"
    r"ne saurait etre (?:contredit|discute|contest)\w*)"
)


_LAYMAN = r"qui n'a jamais (?:travaille|exerce|pratique)|sans (?:aucune )?experience (?:de|du|dans)|n'est pas (?:un )?specialiste|profane"


# a profession and the field it speaks to; a speaker of one field on a question of another is outside its field
_FIELDS: dict[str, tuple[str, str]] = {
    "comptabilite": (
        r"expert-?comptable|commissaire aux comptes|comptable",
        r"\bcomptes?\b|bilan|marge|tresorerie|chiffre d'affaires|exercice|fiscal",
    ),
    "technique": (
        r"ingenieur|technicien|informaticien|frigoriste|electricien|mecanicien",
        r"logiciel|programmation|informatique|soudure|inox|panne|mecani\w*|electri\w*|moteur|machine",
    ),
    "medecine": (r"medecin|docteur|chirurgien|pharmacien", r"sante|medical|maladie|soins?\b|patient"),
    "commerce": (
        r"specialiste du marketing|publicitaire|communicant|commercial de renom",
        r"marketing|publicit\w*|image de marque|communication",
    ),
    "droit": (
        r"avocat|juriste|professeur de droit|notaire|magistrat",
        r"clause|nullite|\bnulle?\b|illicite|juridique|droit de la concurrence|liberte d'entreprendre",
    ),
}


def _outside_field(f: str) -> bool:
    """One profession named, and what it is said to say (after the verb) belongs only to other fields."""
    spoken = [k for k, (who, _) in _FIELDS.items() if re.search(who, f)]
    said = re.search(_SAYS + r" (?:que|qu')", f)
    if len(spoken) != 1 or said is None:
        return False
    topics = [k for k, (_, what) in _FIELDS.items() if re.search(what, f[said.end() :])]
    return bool(topics) and spoken[0] not in topics


_ANONYMOUS = (
    r"de nombreux (?:specialistes|experts|juristes|professionnels|auteurs)|(?:les|des|certains) experts s'accordent|"
    r"selon (?:certains|des|plusieurs) (?:experts|specialistes|observateurs)|(?:il est|c'est) bien connu des specialistes"
)


def outside_authority(f: str) -> Detection | None:
    if re.search(_ANONYMOUS, f) and re.search(r"\bdonc\b|ne saurait|ne peut", f):
        return Detection("autorite_anonyme", 0.8, "des autorités que l'on ne nomme pas servent de preuve")
    if _outside_field(f) and re.search(_SAYS, f) and re.search(_THEN, f):
        return Detection("fausse_autorite", 0.8, "une personne sans compétence sur la question sert d'autorité")
    layman = re.search(_LAYMAN, f)
    if not layman and re.search(
        r"expert (?:judiciaire|designe|comptable)|commissaire aux comptes|professeur de droit", f
    ):
        return None  # an expert within the field the question belongs to
    if (re.search(_CELEB, f) or layman) and re.search(_SAYS, f) and re.search(_THEN, f):
        return Detection("fausse_autorite", 1.0, "une personne sans compétence sur la question sert d'autorité")
    return None


_RESTATE = (
    r"(?:voudrai\w* (?:en somme |donc |au fond |ainsi )?(?:qu|(?:nous |)faire croire)|"
    r"pretend\w* (?:en realite|au fond|en somme|en substance)|(?:soutient|affirme|sous-entend) (?:donc |ainsi )?en substance|"
    r"(?:en realite|au fond|en somme),? (?:\w+ ){1,3}(?:pretend|soutient|voudrait|exige|demande|affirme)|a (?:l')?entendre|revien\w* a (?:dire|soutenir|exiger|interdire|pretendre)|"
    r"autrement dit|en d'autres termes|si l'on suit (?:son|leur|le|ce) raisonnement|a suivre (?:son|leur) raisonnement|"
    r"soutient en realite|selon (?:lui|elle|eux|l'adversaire|la partie adverse)|a (?:l'en|les en) croire|"
    r"ce qui revient a (?:dire|soutenir|exiger|pretendre)|la these adverse (?:se resume|revient)|caricatur\w*|"
    r"si l'on comprend bien|cela reviendrait a|(?:son|leur) raisonnement conduit a|la logique adverse|rien de moins que|"
    r"a lire (?:les ecritures|les conclusions) (?:adverses|de))"
)
_EXTREME = (
    r"(?:\bjamais\b|\baucun\w*|\btout\b|\btous\b|\btoute\b|eternellement|quoi qu'il arrive|interdire|interdirait|"
    r"n'importe|absolu\w*|totalement|systematiquement|a vie|plus jamais|moindre|gratuitement|du tout|\brien\b|"
    r"sans limite|a volonte|plus rien|tout le monde|indefiniment|a perte|integralite|falsifie\w*|perpetu\w*|"
    r"simples? suggestions?)"
)


def straw_man(f: str) -> Detection | None:
    m = re.search(_RESTATE, f)
    if m and re.search(_EXTREME, f[m.start() :]):
        s = 1.0 if re.search(r"absurde|insoutenable|intenable|grotesque|ne resiste|evidemment|ridicule", f) else 0.7
        return Detection("homme_de_paille", s, "la thèse adverse est reformulée sous une forme extrême, puis réfutée")
    return None


_OLD = (
    r"(?:depuis (?:sa creation|sa fondation|toujours|des (?:annees|decennies|generations)|(?:plus de )?\d+ ans|"
    r"(?:19|20)\d\d)|de tout temps|a toujours|ont toujours|avons toujours|traditionnel\w*|coutume|"
    r"usage (?:constant|immemorial)|trois generations|(?:n'a|n'ont|n'avons) jamais|"
    r"il y a (?:plus de )?(?:\d+|\w+) (?:ans|decennies|siecles)|\w+ decennies|depuis (?:leur|sa|son) premiere redaction|"
    r"a toujours ete|ont toujours ete|de longue date|depuis des lustres|depuis l'origine|historiquement|"
    r"comme (?:cela|il) s'est toujours fait|seculaire|centenaire|immemorial\w*|usage ancien|pratique ancienne|"
    r"(?:a|ont) toujours prevalu|(?:a|ont) toujours procede|demi-siecle)"
)
_NORM = (
    r"(?:(?:donc|necessairement|forcement|parfaitement) (?:\w+ ){0,2}(?:raisonnable|reguliere?|legitime|normale?|acceptable|"
    r"valable|conforme|justifiee?|licite)|aucune raison de (?:changer|modifier)|pas lieu de (?:changer|modifier)|"
    r"ne (?:saurait|peut) (?:pas )?(?:aujourd'hui )?(?:etre )?(?:remis|critiqu|conteste|jugee?|consideree?)|"
    r"suffisent a justifier|suffit a justifier|aucune raison de \w+|(?:donc|necessairement) (?:\w+ ){0,3}(?:injustifie\w*|"
    r"irreguli\w*|illegitime\w*|abusi\w*|infonde\w*|equitable\w*)|contraire a l'ordre|serait contraire a|"
    r"(?:est|sont) donc (?:pleinement |parfaitement )?(?:opposables?|valables?|reguliere?s?)|"
    r"ne saurait (?:receler|contenir|comporter)|(?:n'est|n'etait|ne sont|n'etaient) donc pas (?:tenue?s?|obligee?s?)|"
    r"(?:a|ont) fait (?:ses|leurs) preuves|pourquoi (?:la |le )?changer|ne (?:peut|saurait) donc (?:exiger|pretendre|priver)|"
    r"ne (?:peut|saurait) serieusement etre)"
)


def tradition(f: str) -> Detection | None:
    m = re.search(_OLD, f)
    if m and re.search(_NORM, f[m.start() :]):
        return Detection("appel_tradition", 1.0, "l'ancienneté d'une pratique tient lieu de justification")
    return None


def false_dilemma(f: str) -> Detection | None:
    two = re.search(
        r"\bsoit\b.{5,160}\bsoit\b|\bou bien\b.{5,160}\bou bien\b|de deux choses l'une|il n'y a que deux|"
        r"choisir entre .{3,120}\b(?:ou|et)\b",
        f,
    )
    if re.search(r"(?:^|[.;:] )ou [^,;]{3,80}, ou ", f):  # « Ou la relation était exclusive, ou elle n'existait pas »
        return Detection("faux_dilemme", 1.0, "deux issues seulement sont présentées")
    only = re.search(
        r"aucune autre (?:voie|option|solution|issue|possibilite)|pas d'autre (?:choix|solution|issue|voie)|seule alternative|"
        r"doit choisir|(?:n'a|n'ont|n'existe|n'y a|n'avait) que deux (?:options|solutions|voies|possibilites|issues|choix)|"
        r"(?:pas de|aucune) troisieme (?:voie|option|solution|issue)|l'alternative est (?:simple|claire)|tout ou rien|"
        r"pas de (?:demi-mesure|juste milieu|moyen terme)|c'est l'un ou l'autre",
        f,
    )
    if re.search(
        r"ni l'un ni l'autre|au choix|l'une ou l'autre option|la seconde option|la premiere option|dans les deux cas", f
    ):
        return None
    if re.search(r"\bou bien\b[^.;]{3,160}, ou bien\b", f):
        return Detection("faux_dilemme", 0.8, "deux issues seulement sont présentées")
    extreme = re.search(
        r"tous|toutes|aucun|n'importe|impunite|dispara\w+|faillite|fin de|ecras\w+|la loi|ferme|peril|survie|ruine", f
    )
    if two and (only or extreme) or only and re.search(r"\bou\b", f):
        return Detection("faux_dilemme", 1.0 if only else 0.8, "deux issues seulement sont présentées")
    return None


def slippery_slope(f: str) -> Detection | None:
    chain = re.search(
        r"\bsi\b.{3,200}\b(?:demain|bientot|alors|ensuite|puis|a terme)\b|ouvrir la porte a|c'est ouvrir|porte ouverte|engrenage|"
        r"boite de pandore|effet domino|de proche en proche|c'est accepter demain|"
        r"\bsi\b[^.;]{3,120}, [^.;]{0,80}\b\w+(?:era|eront|ra|ront)\b|un premier pas vers|le premier pas|"
        r"et ainsi de suite|tot ou tard|apres-demain|c'est inviter|\bpuis\b[^.]{3,100}\bet bientot\b|(?:conduir|mener|entrainer)\w* (?:inevitablement|necessairement|fatalement)",
        f,
    )
    escalate = re.search(
        r"plus aucun\w*|tous les|toutes les|n'importe quel\w*|chaque \w+(?: \w+)? (?:reclamera|demandera|exigera)|"
        r"s'effondr\w*|faillite|la fin de|ruine|abandon pur et simple|cesseront|plus personne|le chaos|et finalement|"
        r"lettre morte|vider de (?:toute )?substance|a son tour|precedent dangereux|spirale|inevitablement|fatalement|"
        r"tout entier\w*|paralys\w*|apres-demain",
        f,
    )
    if chain and escalate:
        return Detection(
            "pente_glissante", 1.0, "une suite de conséquences de plus en plus graves est affirmée sans preuve"
        )
    return None


def post_hoc(f: str) -> Detection | None:
    after = re.search(
        r"juste apres|peu apres|des (?:que|l'arrivee|le lendemain|l'installation)|depuis que|a peine|apres (?:l'arrivee|"
        r"le changement|que)|au lendemain de|dans la foulee|le trimestre qui a suivi|le mois qui a suivi|aussitot|"
        r"\b(?:jours|semaines|mois) apres\b|qui (?:ont|a) suivi|au moment (?:meme )?ou|concomitamment|sitot|coincide\w*|"
        r"peu de temps apres|(?:immediatement|aussitot) apres|consecutivement|le jour meme|"
        r"(?:le|la) (?:mois|jour|semaine|annee) meme ou|"
        r"\w+ (?:\w+ )?apres (?:son|sa|ses|le|la|l'|leur)",
        f,
    )
    cause = re.search(
        r"c'est donc (?:\w+ ){0,5}qui|donc (?:lui|elle|cet|cette|ce|le|la)\b.{0,40}(?:qui|responsable|cause)|(?:necessairement|forcement|"
        r"donc|bien) (?:la cause|responsable)|en est (?:forcement|necessairement|donc)? ?la cause|"
        r"a (?:donc )?(?:cause|provoque|entraine)|est a l'origine|qui nous a (?:ruine|fait perdre)|"
        r"ce sont donc (?:\w+ ){0,5}qui|(?:est|sont) donc (?:\w+ ){0,2}responsables?|ont (?:donc )?(?:cause|provoque)|"
        r"(?:est|sont) donc de qualite|engage\w* (?:donc )?(?:la|sa|leur) responsabilite|est donc imputable|"
        r"s'explique (?:donc|necessairement|forcement) par|(?:est|sont) donc imputables?|lui sont (?:donc )?imputables|"
        r"responsabilite (?:\w+ ){0,3}est (?:ainsi|donc) (?:demontree|etablie)|(?:est|sont) la cause",
        f,
    )
    if after and cause and not re.search(r"comme l'etabli|rattache|expressement|rapport|documente", f):
        return Detection("post_hoc", 1.0, "la succession dans le temps est prise pour une cause")
    return None


def hasty_generalisation(f: str) -> Detection | None:
    few = re.search(
        r"\b(?:un seul|une seule|sa seule|son seul|ce seul|cette seule|un unique|une unique|cet unique|une poignee|"
        r"une fois|a une reprise|le seul|la seule|deux|trois|quelques|l'un de|l'une de|isole\w*)\b|\b(?:une|un|un de|une de)\b (?:\w+ ){0,4}"
        r"(?:client|palette|chauffeur|facture|fournisseur|salarie|magasin|produit|livraison|incident|commande|cas|"
        r"anciens?|plainte|reclamation|erreur|stagiaire|employe|voisin)",
        f,
    )
    general = re.search(
        r"donc (?:\w+ ){0,3}(?:tous|toutes|systematiquement|toujours)|sont donc tous|sont donc toutes|"
        r"(?:tous|toutes) (?:les|ses|leurs) .{0,40}(?:sont|seront)|l'ensemble d[ue] (?:\w+ ){0,3}(?:est|sont)|"
        r"dans son ensemble|en general|manifestement (?:mal|pas)|ne (?:\w+ ){0,2}que des|tous (?:\w+ )?(?:incompetent|"
        r"defectueu|mauvais|malhonnete)\w*|l'ensemble (?:de|des|du) |dans tous (?:ses|les|leurs) |"
        r"(?:est|sont) (?:donc |ainsi )?(?:manifestement )?(?:incapables?|impropres?)|de maniere generale|"
        r"en regle generale|(?:est|sont) (?:donc )?(?:systematiquement|habituellement|chroniquement|toujours)",
        f,
    )
    if few and general and few.start() < general.start():
        return Detection("generalisation_hative", 1.0, "quelques cas sont étendus à tous")
    return None


def emotion(f: str) -> Detection | None:
    moved = re.search(
        r"revolt\w*|indign\w*|drame|dramatique|tragique|tragedie|detresse|larmes|coeur|pitie|misere|aneanti\w*|"
        r"sacrifie|nourrir leurs enfants|souffrance|honte|scandaleu\w*|cruel\w*|comment ne pas|pensez aux?|"
        r"l'oeuvre de (?:sa|trois)|s'ecrouler|au bord|depression|deuil|perdu sa (?:mere|femme|fille)|perdu son (?:pere|mari|fils)|"
        r"periode (?:tres )?difficile|terrible|l'a quitte|cynisme|demene\w*|jour et nuit|hypothequ\w*|tout donne|"
        r"entreprise familiale|de ses propres mains|angoisse|derriere (?:ces|les) chiffres|des femmes et des hommes|"
        r"l'oeuvre d'une vie|toute une vie|annees de labeur|a la rue|desespoir|desempare\w*|boulevers\w*|devast\w*|"
        r"injustice criante|acharnement|brise\w*|sans coeur|odieu\w*|inadmissible|intolerable|choquant|honteu\w*|arrogance|"
        r"cynique",
        f,
    )
    verdict = re.search(
        r"ne (?:peut|pourra|saurait) qu|ne (?:peut|pourrait) (?:lui )?refuser|il serait indecent|inhumain|"
        r"necessairement|doit (?:donc )?(?:etre|accorder|faire)|comment le tribunal|qualifiee? de brutale|"
        r"vous ne (?:pouvez|pourrez|sauriez) pas|ne (?:pouvez|peut) pas le condamner|ne (?:restera|peut rester|pourra rester) "
        r"(?:pas )?insensible|serait une honte|ne laissera pas passer|indecence|ne (?:peut|pouvait) pas avoir|"
        r"ne fait (?:donc )?aucun doute|comment (?:le tribunal|la cour|le juge) pourrait|serait (?:inhumain|cruel|injuste)|"
        r"(?:le tribunal|la cour|le juge) ne (?:saurait|pourra|peut) (?:cautionner|tolerer|accepter)|"
        r"se condamne d'elle-meme|mesurera l'injustice",
        f,
    )
    if moved and verdict:
        node = (
            "appel_indignation"
            if re.search(r"revolt|indign|scandal|honte|ecras|cynis|indecen|odieu|inadmissible|intolerable|choquant", f)
            else "appel_pitie"
        )
        return Detection(node, 1.0, "l'émotion suscitée tient lieu d'argument")
    return None


def red_herring(f: str) -> Detection | None:
    if re.search(
        r"mais que dire de|plutot que de (?:discuter|parler|debattre|s'attarder)|parlons plutot|rappelons plutot|"
        r"la question (?:du \w+ )?est secondaire|la vraie question est|occulte l'essentiel|l'essentiel est ailleurs|"
        r"il convient surtout de (?:relever|rappeler|souligner)|au demeurant, (?:notre|la) .{0,40}(?:finance|soutient|emploie)|"
        r"(?:reproche|accuse)\w*.{0,160}mais (?:il faut surtout|surtout|rappelons|soulignons|que dire)|"
        r"(?:appreciera|retiendra|relevera|notera) surtout|(?:tient|tiennent) a souligner que|le veritable enjeu|"
        r"le vrai debat|la question n'est pas la|la seule question qui vaille|"
        r"prefere (?:rappeler|souligner|evoquer|parler)|il convient plutot de|"
        r"notre cliente (?:rappelle|souligne) qu'elle .{0,120}(?:certifi|plante|emploi|financ|mecenat|trophee|recompens)|"
        r"(?:rappel|soulign|insist)\w* (?:que|sur) (?:notre cliente|notre societe|la concluante|l'exposante)"
        r".{0,120}(?:emploi|financ|mecenat|trophee|recompens|excellence|caritati|apprentis)",
        f,
    ):
        return Detection("hareng_rouge", 0.8, "le texte détourne l'attention vers une autre question")
    return None


DETECTORS = (
    circularity,
    personal_attack,
    popularity,
    outside_authority,
    straw_man,
    tradition,
    false_dilemma,
    slippery_slope,
    post_hoc,
    hasty_generalisation,
    emotion,
    red_herring,
)


@lru_cache(maxsize=4096)
def detect(text: str) -> tuple[Detection, ...]:
    """Every detector that recognises its form in ``text`` (strongest first)."""
    f = " ".join(fold(text).split())
    found = [d for det in DETECTORS if (d := det(f)) is not None]
    return tuple(sorted(found, key=lambda d: -d.strength))
