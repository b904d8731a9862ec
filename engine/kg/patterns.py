"""The PATTERN extractor: French and English discursive markers → DISCURSIVE RawAssertions or Abstentions.

Scope, on purpose: it extracts *discursive* relations only (carried by or/either/soit, by default/par
défaut, unless/except/sauf, 'for the purposes of this Article', a pronoun subject, a closed list).
Plainly stated relations are EXPLICIT and come from perception or are journaled directly (`kg ingest`).
A sentence without any discursive cue yields nothing; a sentence with a cue yields assertions or
abstentions, each abstention with its reason. Order of judgement per sentence:
  1. Type-2 cues (therefore, donc, usually, obviously, ...) → ABSTAIN TYPE2_RISK;
  2. predicate: a forbidden type → WHITELIST_VIOLATION; two types → AMBIGUOUS_PREDICATE;
     a cue with no predicate and no alternative → AMBIGUOUS_PREDICATE;
  3. scope anchor / coreference resolution → SCOPE_BREAK / COREF_UNRESOLVED when they fail;
  4. alternatives whose options are not both identifiable, disjunctive objects → WEAK_BUNDLE;
  5. V1 whitelist on the evidence (REQUIRES needs an obligation marker, REPLACES/DEPRECATES temporality).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from lexlogic.engine.kg.constraints import FORBIDDEN_DISCURSIVE, discursive_whitelist
from lexlogic.engine.kg.lexicon import (
    CHOICE,
    CLAUSE_END,
    DETERMINERS,
    FAMILY_ANYWHERE,
    MODALS_AND_COPULAS,
    OR_WORD,
    PREDICATES,
    PREPOSITION,
    PRONOUN_SUBJECT,
    SOIT_SOIT,
    TEMPORAL_CUT,
    Predicate,
    prep_family,
)
from lexlogic.engine.kg.markers import (
    ALTERNATIVE_WEAK,
    DEFAULT_CUES,
    EXCEPTION_CUES,
    OPEN_LIST,
    SCOPE_CUES,
    TYPE2_CUES,
    find,
)
from lexlogic.engine.kg.model import (
    Abstention,
    AssertionKind,
    AttributedAssertion,
    DiscursiveAbstainReason,
    DiscursiveBasis,
    EvidenceBundle,
    EvidenceSpan,
    ExtractionMethod,
    RawAssertion,
    RelationType,
    normalize_entity,
)
from lexlogic.engine.kg.text import Heading, SectionSentence, segment
from lexlogic.engine.kg.tiers import option_identified
from lexlogic.logic.model_defaults import new_list

A = DiscursiveAbstainReason


class ExtractionResult(BaseModel):
    assertions: list[RawAssertion] = Field(default_factory=new_list)
    abstentions: list[Abstention] = Field(default_factory=new_list)
    attributed: list[AttributedAssertion] = Field(
        default_factory=new_list, description="relations reported as someone's claim: never journaled as asserted"
    )

    def extend(self, other: ExtractionResult) -> None:
        self.assertions.extend(other.assertions)
        self.abstentions.extend(other.abstentions)
        self.attributed.extend(other.attributed)


@dataclass
class _SentenceCtx:
    doc_id: str
    sentence: SectionSentence
    sentences: list[SectionSentence]
    headings: list[Heading]

    def span(self) -> EvidenceSpan:
        s = self.sentence
        return EvidenceSpan(
            doc_id=self.doc_id,
            section=s.section.title if s.section else "",
            char_start=s.start,
            char_end=s.end,
            text=s.text,
        )


def extract(text: str, doc_id: str = "doc") -> ExtractionResult:
    """Run the pattern extractor over a document."""
    sentences, headings = segment(text)
    result = ExtractionResult()
    for sentence in sentences:
        result.extend(_sentence(_SentenceCtx(doc_id, sentence, sentences, headings)))
    return result


# ------------------------------------------------------------------ one sentence

_LEAD_CLAUSE = re.compile(r"^(?P<lead>[^,]{1,90}?),\s*(?P<rest>.+)$", re.DOTALL)


def _sentence(ctx: _SentenceCtx) -> ExtractionResult:
    out = ExtractionResult()
    text = ctx.sentence.text.rstrip(" .!?")
    default = find(DEFAULT_CUES, text)
    exception = find(EXCEPTION_CUES, text)
    scope = SCOPE_CUES.search(text)
    alt_weak = find(ALTERNATIVE_WEAK, text)
    main, qualifier, lead = _main_clause(text)
    preds = _predicates(main)
    subject_text = _subject_of(main, preds[0][1]) if preds else ""
    pronoun = bool(preds) and PRONOUN_SUBJECT.match(subject_text.strip()) is not None
    alternative = _alternative_cue(main, preds)
    listy = bool(preds) and _is_list(_object_of(main, preds[0][1], preds[0][0]))
    cued = bool(default or exception or scope or alt_weak or alternative or pronoun or listy)
    if not cued:
        return out  # no discursive cue: explicit statements are not this extractor's job
    markers = tuple(
        dict.fromkeys(
            default
            + exception
            + alt_weak
            + ([scope.group(0).lower()] if scope else [])
            + ([alternative] if alternative else [])
        )
    )
    span = ctx.span()

    def abstain(reason: DiscursiveAbstainReason, detail: str, candidate: str | None = None) -> ExtractionResult:
        out.abstentions.append(
            Abstention(reason=reason, detail=detail, span=span, candidate=candidate, markers=markers)
        )
        return out

    type2 = find(TYPE2_CUES, text)
    if type2:
        return abstain(
            A.TYPE2_RISK, f"deduction/hedge/world-knowledge cue {type2!r}: the relation would be inferred, not stated"
        )
    types = {p.relation for p, _ in preds}
    forbidden = types & FORBIDDEN_DISCURSIVE
    if forbidden:
        t = sorted(forbidden, key=lambda r: r.value)[0]
        return abstain(
            A.WHITELIST_VIOLATION,
            f"{t.value} may not be asserted discursively (V1 whitelist)",
            candidate=f"? {t.value} ?",
        )
    if len(types) > 1:
        return abstain(A.AMBIGUOUS_PREDICATE, f"several relation predicates {sorted(x.value for x in types)}")

    if not preds:
        if alternative or alt_weak:
            return _alternatives(ctx, main, qualifier, markers, out, abstain)
        return abstain(
            A.AMBIGUOUS_PREDICATE, f"discursive cue {list(markers)} but no predicate naming a whitelisted relation type"
        )
    pred, match = preds[0]
    subject = subject_text
    obj = _object_of(main, match, pred)
    if pred.inverse:
        subject, obj = obj, subject
    spans: list[EvidenceSpan] = [span]
    anchor: str | None = None
    basis: DiscursiveBasis | None = None
    # the riskiest device decides the basis: COREF > SCOPE > ENUMERATION > DEFAULT > EXCEPTION > ALTERNATIVE
    if PRONOUN_SUBJECT.match(subject.strip()) or PRONOUN_SUBJECT.match(obj.strip()):
        pronoun_text = subject if PRONOUN_SUBJECT.match(subject.strip()) else obj
        resolved = _resolve_coref(ctx)
        if isinstance(resolved, Abstention):
            return abstain(resolved.reason, resolved.detail)
        antecedent, antecedent_span = resolved
        anchor = f"{pronoun_text.strip()} → {antecedent}"
        if pronoun_text is subject:
            subject = antecedent
        else:
            obj = antecedent
        spans.append(antecedent_span)
        basis = DiscursiveBasis.COREF
    elif scope:
        anchored = _resolve_scope(ctx, scope)
        if isinstance(anchored, str):
            return abstain(A.SCOPE_BREAK, anchored)
        anchor = anchored.title
        spans.append(
            EvidenceSpan(
                doc_id=ctx.doc_id,
                section=anchored.title,
                char_start=anchored.start,
                char_end=anchored.end,
                text=anchored.title,
            )
        )
        basis = DiscursiveBasis.SCOPE
    items = _list_items(obj)
    complete: bool | None = None
    if len(items) >= 3:
        complete = not OPEN_LIST.search(obj)
        basis = basis or DiscursiveBasis.ENUMERATION
    elif OR_WORD.search(obj) or OR_WORD.search(subject):
        return abstain(
            A.WEAK_BUNDLE,
            "disjunctive argument: the evidence does not say for which option the relation holds",
            candidate=f"{subject} {pred.relation.value} {obj}",
        )
    else:
        items = [obj]
    if basis is None:
        if default:
            basis = DiscursiveBasis.DEFAULT
        elif exception:
            basis = DiscursiveBasis.EXCEPTION
        elif alt_weak or alternative:
            return _alternatives(ctx, main, qualifier, markers, out, abstain)
        else:  # pragma: no cover - cued guarantees one of the above
            return abstain(A.AMBIGUOUS_PREDICATE, "no discursive basis identified")
    bundle = EvidenceBundle(spans=tuple(spans))
    violation = discursive_whitelist(pred.relation, bundle.text)
    if violation is not None:
        return abstain(violation.reason, violation.detail, candidate=f"{subject} {pred.relation.value} {obj}")
    if not normalize_entity(subject) or not items or not all(normalize_entity(i) for i in items):
        return abstain(A.WEAK_BUNDLE, "subject or object could not be delimited in the evidence")
    for item in items:
        if pred.inverse and len(items) > 1:  # a list on the subject side of an inverse form
            s, o = item, subject
        else:
            s, o = subject, item
        out.assertions.append(
            RawAssertion(
                subject=_clean(s),
                relation=pred.relation,
                object=_clean(o),
                kind=AssertionKind.DISCURSIVE,
                basis=basis,
                method=ExtractionMethod.PATTERN,
                bundle=bundle,
                markers=markers,
                anchor=anchor,
                enumeration_complete=complete,
                qualifier=qualifier or _lead_qualifier(lead),
            )
        )
    return out


# ------------------------------------------------------------------ clauses


def _lead_qualifier(lead: str | None) -> str | None:
    """A leading condition ('Unless otherwise agreed', 'À défaut d'accord') qualifies the relation;
    a bare 'By default' carries no condition."""
    if not lead or lead.strip().lower() in ("by default", "par défaut") or SCOPE_CUES.match(lead):
        return None
    return lead.strip()


def _main_clause(text: str) -> tuple[str, str | None, str | None]:
    """(main clause, trailing exception qualifier, leading cue clause)."""
    lead = None
    main = text
    m = _LEAD_CLAUSE.match(text)
    if m and (
        DEFAULT_CUES.match(m["lead"])
        or EXCEPTION_CUES.match(m["lead"])
        or SCOPE_CUES.match(m["lead"])
        or TYPE2_CUES.match(m["lead"])
    ):
        lead, main = m["lead"].strip(), m["rest"]
    qualifier = None
    for cue in EXCEPTION_CUES.finditer(main):
        if cue.start() > 0:
            qualifier = main[cue.start() :].strip(" ,")
            main = main[: cue.start()].rstrip(" ,")
            break
    return main.strip(), qualifier, lead


def _predicates(clause: str) -> list[tuple[Predicate, re.Match[str]]]:
    found: list[tuple[Predicate, re.Match[str]]] = []
    for pred in PREDICATES:
        for m in pred.pattern.finditer(clause):
            if m.start() == 0:
                continue  # a predicate needs a subject before it
            if any(m.start() < o.end() and o.start() < m.end() for _, o in found):
                continue
            found.append((pred, m))
    found.sort(key=lambda pm: pm[1].start())
    return found


def _subject_of(clause: str, match: re.Match[str]) -> str:
    return clause[: match.start()].strip(" ,")


def _object_of(clause: str, match: re.Match[str], pred: Predicate) -> str:
    obj = clause[match.end() :].strip(" ,:")
    obj = re.split(r"\s*;\s*|\s*,\s*(?:which|who|that|qui|dont)\b", obj, maxsplit=1)[0]
    if pred.relation in (RelationType.REPLACES, RelationType.DEPRECATES):
        obj = TEMPORAL_CUT.sub("", obj)
    return obj.strip(" ,.")


_LIST = re.compile(r"^(?P<head>.+?,.+?)(?:,)?\s+(?:and|et|or|ou)\s+(?P<last>[^,]+)$", re.IGNORECASE | re.DOTALL)


def _is_list(obj: str) -> bool:
    return _LIST.match(obj) is not None or obj.lower().startswith(("the following:", "les suivants :", "suivants"))


def _list_items(obj: str) -> list[str]:
    body = re.sub(r"^(?:the following|les (?:éléments )?suivants)\s*:\s*", "", obj, flags=re.IGNORECASE)
    m = _LIST.match(body)
    if not m:
        return [obj] if ":" not in obj else []
    items = [i for i in re.split(r"\s*,\s*", m["head"]) if i] + [m["last"]]
    return [
        re.sub(
            r"^(?:including|such as|notamment|dont|comme|tels? que|telles? que|par exemple)\s+",
            "",
            i.strip(),
            flags=re.IGNORECASE,
        )
        for i in items
    ]


def _clean(name: str) -> str:
    """Drop a leading preposition/partitive article left from the clause (au, aux, à la, d', ...)."""
    text = name.strip(' ,.;:«»"')
    m = PREPOSITION.match(text)
    if m and m.end() < len(text):
        text = text[m.end() :]
    return text.strip()


# ------------------------------------------------------------------ alternatives


def _alternative_cue(main: str, preds: list) -> str | None:
    """The strong 'or' cue of a choice, or None. An 'or' counts only inside a choice (may/can/either/
    payable/peut/soit or the same preposition on both sides): elsewhere it is a mere disjunction."""
    if SOIT_SOIT.search(main):
        return "soit"
    m = OR_WORD.search(main)
    if not m:
        return None
    cue = m.group(0).strip().lower()
    cue = "ou" if cue.startswith("ou") else cue
    if re.search(r"\beither\b", main[: m.start()], re.IGNORECASE):
        return cue
    if CHOICE.search(main[: m.start()]):
        return cue
    right = PREPOSITION.match(main[m.end() :])
    if right and FAMILY_ANYWHERE.get(prep_family(right["p"]), re.compile("^$")).search(main[: m.start()]):
        return cue
    return None


def _alternatives(
    ctx: _SentenceCtx, main: str, qualifier: str | None, markers: tuple[str, ...], out: ExtractionResult, abstain
) -> ExtractionResult:  # type: ignore[no-untyped-def]
    pairs: list[tuple[str, str]] = []
    soit = SOIT_SOIT.search(main)
    if soit:
        pairs.append((soit["a"], soit["b"]))
    else:
        splitter = OR_WORD.search(main) if _alternative_cue(main, []) else ALTERNATIVE_WEAK.search(main)
        if splitter is None:
            return abstain(A.AMBIGUOUS_PREDICATE, "alternative cue without two options")
        left, right = main[: splitter.start()], main[splitter.end() :]
        right_opt = CLAUSE_END.split(right, maxsplit=1)[0]
        prep = PREPOSITION.match(right_opt)
        left_opts: list[str] = []
        if prep:
            fam = FAMILY_ANYWHERE.get(prep_family(prep["p"]))
            hits = list(fam.finditer(left)) if fam else []
            if hits:
                left_opts = [left[hits[-1].end() :]]
                # 'by post, by fax or by email': earlier options of the same list, separated by commas
                for before, after in zip(reversed(hits[:-1]), reversed(hits[1:])):
                    between = left[before.end() : after.start()]
                    if not between.rstrip().endswith(","):
                        break
                    left_opts.insert(0, between.rstrip(" ,"))
        if not left_opts:
            left_opts = [_walk_back(left)]
            if _starts_with_determiner(left_opts[0]) != _starts_with_determiner(right_opt):
                return abstain(
                    A.WEAK_BUNDLE,
                    f"options are not parallel ({left_opts[0]!r} / {right_opt!r}): "
                    "the first option cannot be delimited",
                    candidate=f"{left_opts[0]} ALTERNATIVE_TO {right_opt}",
                )
        options = left_opts + [right_opt]
        pairs.extend((options[i], options[j]) for i in range(len(options)) for j in range(i + 1, len(options)))
    span = ctx.span()
    bundle = EvidenceBundle(spans=(span,))
    for a, b in pairs:
        a, b = _clean(re.sub(r"^(?:either|soit)\s+", "", a.strip(), flags=re.IGNORECASE)), _clean(b)
        if not (option_identified(a) and option_identified(b)) or len(a.split()) > 10 or len(b.split()) > 10:
            abstain(
                A.WEAK_BUNDLE,
                f"alternative whose two options are not both identified ({a!r} / {b!r})",
                candidate=f"{a} ALTERNATIVE_TO {b}",
            )
            continue
        out.assertions.append(
            RawAssertion(
                subject=a,
                relation=RelationType.ALTERNATIVE_TO,
                object=b,
                kind=AssertionKind.DISCURSIVE,
                basis=DiscursiveBasis.ALTERNATIVE,
                method=ExtractionMethod.PATTERN,
                bundle=bundle,
                markers=markers,
                qualifier=qualifier,
            )
        )
    return out


def _starts_with_determiner(phrase: str) -> bool:
    words = phrase.strip().split()
    return bool(words) and (words[0].lower() in DETERMINERS or words[0].lower().startswith(("l'", "l’")))


def _walk_back(left: str) -> str:
    """The noun phrase just before 'or': back to a determiner (kept), a preposition, a modal or a comma."""
    tokens = re.findall(r"[\w'’\-]+|[^\w\s]", left)
    taken: list[str] = []
    for tok in reversed(tokens):
        low = tok.lower()
        if (
            not re.match(r"[\w'’\-]", tok)
            or low in MODALS_AND_COPULAS
            or PREPOSITION.fullmatch(low + " ")
            or PREPOSITION.fullmatch(low)
        ):
            break
        taken.append(tok)
        if low in DETERMINERS or low.endswith(("'", "’")) or len(taken) >= 6:
            break
    return " ".join(reversed(taken))


# ------------------------------------------------------------------ scope and coreference

_DEICTIC = re.compile(r"\b(?:this|the present|présent|présente|cette|ce)\b", re.IGNORECASE)


def _resolve_scope(ctx: _SentenceCtx, scope: re.Match[str]) -> Heading | str:
    """The heading the scope refers to, or why it cannot be anchored (SCOPE_BREAK)."""
    ref = scope.group("ref")
    number = re.search(r"(\d[\w.\-]*|\b[IVXLC]+\b)\s*$", ref)
    if number is None or _DEICTIC.search(scope.group(0)):
        if ctx.sentence.section is None:
            return f"scope '{scope.group(0)}' but the sentence is in no section: no anchor"
        return ctx.sentence.section
    wanted = number.group(1).lower().rstrip(".")
    for h in ctx.headings:
        if (heading_number := h.number()) and heading_number.rstrip(".") == wanted:
            return h
    return f"scope '{scope.group(0)}' names a section that is not in the document"


_ANTECEDENT = re.compile(
    r"^(?:the|le|la|les|l['’]|this|ce|cette)\s*(?P<np>[^,;]{2,60}?)\s+(?:is|are|was|were|has|have|shall|must|may|will|"
    r"appears?|figure(?:nt)?|est|sont|a|ont|doit|doivent|peut|peuvent|se\s|s['’]|forme|constitue|remains?|reste)\b",
    re.IGNORECASE,
)


def _resolve_coref(ctx: _SentenceCtx) -> tuple[str, EvidenceSpan] | Abstention:
    idx = ctx.sentence.index
    span = ctx.span()
    if idx == 0:
        return Abstention(reason=A.COREF_UNRESOLVED, detail="pronoun subject with no previous sentence", span=span)
    prev = ctx.sentences[idx - 1]
    if prev.section != ctx.sentence.section:
        return Abstention(reason=A.SCOPE_BREAK, detail="antecedent would lie across a section boundary", span=span)
    m = _ANTECEDENT.match(prev.text)
    if m is None or PRONOUN_SUBJECT.match(m["np"].strip()):
        return Abstention(
            reason=A.COREF_UNRESOLVED,
            detail=f"no definite noun phrase to resolve the pronoun in «{prev.text[:80]}»",
            span=span,
        )
    if re.search(r"\s(?:and|et)\s", m["np"]):
        return Abstention(reason=A.COREF_UNRESOLVED, detail=f"several candidate antecedents in «{m['np']}»", span=span)
    antecedent = prev.text[: m.end("np")]
    return antecedent, EvidenceSpan(
        doc_id=ctx.doc_id,
        section=prev.section.title if prev.section else "",
        char_start=prev.start,
        char_end=prev.end,
        text=prev.text,
    )
