"""The evidence-graph extractor: modality guard, then explicit and discursive extraction, per sentence.

Order per sentence (why: what a text does not assert must never reach the journal as asserted):
  1. the speech-act / modality guard (modality.py). A reported, quoted, negated, hypothetical,
     questioned or intended sentence yields NO RawAssertion: an Abstention with its reason, and for
     reported speech / quotation with a speaker, the content's relations as AttributedAssertions
     ("alleged by X") — never journaled, so never promoted;
  2. the issue-9 Type-2 cues (therefore, usually, ...) abstain for the explicit extractor too;
  3. explicit intra-segment extraction (explicit.py): EXPLICIT assertions, each with its exact span;
  4. the discursive PATTERN extractor (patterns.py), the complement.
"""

from __future__ import annotations

import re
from typing import Any

from lexlogic.engine.kg import explicit, modality, nlp
from lexlogic.engine.kg.markers import (
    ALTERNATIVE_WEAK,
    DEFAULT_CUES,
    EXCEPTION_CUES,
    OPEN_LIST,
    SCOPE_CUES,
    TYPE2_CUES,
)
from lexlogic.engine.kg.markers import find as find_cues
from lexlogic.engine.kg.model import (
    Abstention,
    AssertionKind,
    AttributedAssertion,
    DiscursiveAbstainReason,
    EvidenceBundle,
    EvidenceSpan,
    ExtractionMethod,
    RawAssertion,
)
from lexlogic.engine.kg.patterns import ExtractionResult, _alternative_cue, _sentence, _SentenceCtx
from lexlogic.engine.kg.text import SectionSentence, segment

R = DiscursiveAbstainReason


def _parse(text: str, lang: str) -> Any | None:
    if lang != "fr":
        return None
    model = nlp.french()
    return model(text) if model is not None else None


def _span(doc_id: str, sentence: SectionSentence, start: int, end: int, page: int | None = None) -> EvidenceSpan:
    return EvidenceSpan(
        doc_id=doc_id,
        section=sentence.section.title if sentence.section else "",
        char_start=sentence.start + start,
        char_end=sentence.start + end,
        text=sentence.text[start:end],
        page=page,
    )


def extract(text: str, doc_id: str = "doc") -> ExtractionResult:
    """Run the whole extractor over a document (sections, sentences, exact offsets)."""
    sentences, headings = segment(text)
    nlp.parse_ahead([s.text for s in sentences])  # one batch for the document: ~4x less CPU than one by one
    result = ExtractionResult()
    for sentence in sentences:
        result.extend(extract_sentence(doc_id, sentence, sentences, headings))
    return result


def extract_sentence(
    doc_id: str, sentence: SectionSentence, sentences: list[SectionSentence], headings: list
) -> ExtractionResult:  # type: ignore[type-arg]
    out = ExtractionResult()
    text = sentence.text
    lang = nlp.language(text)
    doc = _parse(text, lang)
    whole = _span(doc_id, sentence, 0, len(text))
    guard = modality.check(text, lang, doc)
    if guard is not None:
        return _not_asserted(doc_id, sentence, guard, lang, whole)
    type2 = find_cues(TYPE2_CUES, text)
    if not type2:
        for f in explicit.find(text, lang, doc):
            if _discursive_clause(text, f.span, f.cue_span[0]):
                continue  # a qualified relation (by default, unless, for the purposes of, or, lists): patterns.py decides
            s, o = text[f.subject[0] : f.subject[1]], text[f.object[0] : f.object[1]]
            a, b = f.span
            out.assertions.append(
                RawAssertion(
                    subject=s,
                    relation=f.relation,
                    object=o,
                    kind=AssertionKind.EXPLICIT,
                    method=ExtractionMethod.PATTERN,
                    bundle=EvidenceBundle(spans=(_span(doc_id, sentence, a, b),)),
                    markers=(f.cue,),
                    note=f"explicit ({'spacy' if doc is not None else 'rules'}, {lang}): subject "
                    f"[{sentence.start + f.subject[0]}:{sentence.start + f.subject[1]}], object "
                    f"[{sentence.start + f.object[0]}:{sentence.start + f.object[1]}]",
                )
            )
    out.extend(_sentence(_SentenceCtx(doc_id, sentence, sentences, headings)))
    return out


_CLAUSE = re.compile(r"[^;]+")


def _discursive_clause(text: str, span: tuple[int, int], verb_at: int) -> bool:
    """Does the ';'-clause holding this relation carry a discursive device? Then the relation is
    qualified (a default, an exception, a scope, a choice, an open list) and stating it as a plain
    EXPLICIT fact would drop the qualifier: the discursive extractor and its tier rules decide."""
    m = next((m for m in _CLAUSE.finditer(text) if m.start() <= span[0] < m.end()), None)
    clause, offset = (m.group(0), m.start()) if m else (text, 0)
    scope = SCOPE_CUES.search(clause)
    return bool(
        find_cues(DEFAULT_CUES, clause)
        or find_cues(EXCEPTION_CUES, clause)
        or (
            scope is not None and offset + scope.start() < verb_at
        )  # a scope framing the relation, not "in Clause 11" after it
        or find_cues(ALTERNATIVE_WEAK, clause)
        or OPEN_LIST.search(clause)
        or _alternative_cue(clause, [])
    )


def _not_asserted(
    doc_id: str, sentence: SectionSentence, guard: modality.Guard, lang: str, whole: EvidenceSpan
) -> ExtractionResult:
    out = ExtractionResult()
    text = sentence.text
    candidates: list[str] = []
    attributed = guard.reason in (R.REPORTED_SPEECH, R.QUOTATION) and guard.speaker and guard.content
    inner_guard = None
    if attributed and guard.content:
        a, b = guard.content
        content = text[a:b]
        content_doc = _parse(content, lang)
        inner_guard = modality.check(content, lang, content_doc)
        for f in explicit.find(content, lang, content_doc):
            s, o = content[f.subject[0] : f.subject[1]], content[f.object[0] : f.object[1]]
            candidates.append(f"{s} {f.relation.value} {o}")
            if inner_guard is None:
                out.attributed.append(
                    AttributedAssertion(
                        subject=s,
                        relation=f.relation,
                        object=o,
                        speaker=guard.speaker or "",
                        speech_act=guard.reason,
                        span=whole,
                        content_span=_span(doc_id, sentence, a, b),
                        cue=guard.cue,
                    )
                )
    else:
        for f in explicit.find(text, lang, None if lang != "fr" else _parse(text, lang)):
            candidates.append(
                f"{text[f.subject[0] : f.subject[1]]} {f.relation.value} {text[f.object[0] : f.object[1]]}"
            )
    detail = guard.detail
    if inner_guard is not None:
        detail += f"; and the reported content itself is not asserted: {inner_guard.detail}"
    out.abstentions.append(
        Abstention(
            reason=guard.reason,
            detail=detail,
            span=whole,
            candidate="; ".join(candidates) or None,
            markers=(guard.cue,),
            attributed_to=guard.speaker,
        )
    )
    return out
