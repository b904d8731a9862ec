"""The offline judge: compares a claim with each candidate memory on what legal claims turn on.

A candidate counts only if it is about the same thing (enough of the claim's content words, and enough
embedding similarity); then it SUPPORTS when every date/amount/duration/percentage/count the claim states
is stated compatibly, CONTRADICTS when one differs or the polarity (negation, antonym) or the acting party
differs, and is NEUTRAL when a detail is missing or the modality differs ("a menacé de rompre" does not
confirm "a rompu"). Over the candidates: supports and contradicts → AMBIGUOUS; supports → VERIFIED;
contradicts → CONTRADICTED; else UNKNOWN.
"""

from __future__ import annotations

from dataclasses import dataclass

from lexlogic.engine.claims import facets as fx
from lexlogic.engine.claims.models import Candidate, Judgement, Stance, Status


@dataclass(frozen=True)
class Thresholds:
    """Calibrated on tests/claims/data/eval_fr.jsonl (see notes/issue-10.md)."""

    min_similarity: float = 0.78  # below: the memory is not about the claim at all (e5 cosines of unrelated
    # French legal sentences sit around 0.75-0.85, so the lexical coverage below does most of the work)
    min_coverage: float = 0.5  # share of the claim's content words found in the sentence
    contradict_coverage: float = 0.6  # a contradiction needs the sentence to be squarely on the claim
    support_coverage_no_facet: float = 0.75  # a claim with no number must be echoed closely


@dataclass
class StanceReading:
    stance: Stance
    nuance: str
    sentence: str
    coverage: float


def _compatible_numbers(a: float, b: float) -> bool:
    return abs(a - b) <= max(0.005 * max(abs(a), abs(b)), 1e-6)


def _compare_numbers(claim: fx.Facets, doc: fx.Facets) -> tuple[list[str], list[str], list[str]]:
    """(matched, conflicting, missing) descriptions for each numeric facet the claim states."""
    matched, conflicts, missing = [], [], []

    def check(name: str, cvals: list, dvals: list, same, show) -> None:  # type: ignore[no-untyped-def]
        if not cvals:
            return
        if not dvals:
            missing.append(name)
            return
        bad = [c for c in cvals if not any(same(c, d) for d in dvals)]
        if bad:
            conflicts.append(
                f"{name}: affirmé {', '.join(show(c) for c in bad)}, la pièce dit {', '.join(show(d) for d in dvals)}"
            )
        else:
            matched.append(name)

    for c in claim.dates:  # a date is compared only with the dates that play the same role
        # A memory dating an act ("PV de livraison du 15 mars") dates the claim's event when the claim's
        # verb is that act ("a livré ... le 15 mars"); an object's date ("facture du 30 juin") is not the
        # date of another act about it ("a relancé ... la facture").
        comparable = [
            d
            for d in doc.dates
            if c.comparable(d) or (c.role == "event" and d.role.startswith("of:") and d.role[3:] in claim.verbs)
        ]
        check("date", [c], comparable, lambda a, b: a.compatible(b), str)
    check(
        "montant",
        claim.amounts,
        doc.amounts,
        lambda c, d: _compatible_numbers(c[0], d[0]) and (not c[1] or not d[1] or c[1] == d[1]),
        lambda v: f"{v[0]:,.0f} € {v[1].upper()}".strip().replace(",", " "),
    )
    check("durée", claim.durations, doc.durations, _compatible_numbers, lambda v: f"{v:g} mois")
    check("pourcentage", claim.percents, doc.percents, _compatible_numbers, lambda v: f"{v:g} %")
    for key, value in claim.counts.items():
        check(
            f"nombre ({key})",
            [value],
            [doc.counts[key]] if key in doc.counts else [],
            _compatible_numbers,
            lambda v: f"{v:g}",
        )
    return matched, conflicts, missing


def _has(stems: set[str], prefixes: set[str]) -> bool:
    return any(s.startswith(p) for s in stems for p in prefixes)


def _antonym_hits(claim: set[str], doc: set[str]) -> list[tuple[set[str], set[str]]]:
    hits = []
    for left, right in fx.ANTONYMS:
        for a, b in ((left, right), (right, left)):
            if _has(claim, a) and not _has(claim, b) and _has(doc, b) and not _has(doc, a):
                hits.append((a, b))
    return hits


def read_candidate(
    claim: fx.Facets, sentence: str, similarity: float, known: set[str], th: Thresholds, whole: bool = False
) -> StanceReading:
    """One sentence (or, ``whole``, a whole memory: then only numbers may contradict, since a negation
    elsewhere in the memory is about something else)."""
    doc = fx.read(sentence, known)
    content = claim.content
    shared = content & doc.content
    antonyms = _antonym_hits(content, doc.content)
    coverage = (len(shared) + len(antonyms)) / max(len(content), 1)
    shared_n = len(shared) + len(antonyms)
    if similarity < th.min_similarity or coverage < th.min_coverage or shared_n < min(2, len(content)):
        return StanceReading(
            Stance.IRRELEVANT,
            f"hors sujet (similarité {similarity:.2f}, recouvrement {coverage:.0%})",
            sentence,
            coverage,
        )
    matched, conflicts, missing = _compare_numbers(claim, doc)
    if not whole:
        neg_c, neg_d = bool(claim.negated & shared), bool(doc.negated & shared)
        if (
            not neg_c
            and not neg_d
            and coverage >= 0.8
            and claim.sentence_negated != doc.sentence_negated
            and not (claim.negated or doc.negated)
        ):  # negation found but its scope was not read
            neg_c, neg_d = claim.sentence_negated, doc.sentence_negated
        if neg_c != neg_d:
            conflicts.append(
                "polarité : "
                + (
                    "l'affirmation nie ce que la pièce affirme"
                    if neg_c
                    else "la pièce nie ce que l'affirmation affirme"
                )
            )
        for a, b in antonyms:
            conflicts.append(f"sens opposé : « {'/'.join(sorted(a))} » contre « {'/'.join(sorted(b))} »")
        # Who acted is the weakest reading (first party named): it needs the sentence squarely on the claim.
        if (
            coverage >= th.contradict_coverage
            and claim.agent
            and doc.agent
            and claim.agent != doc.agent
            and (claim.agent not in doc.parties or doc.agent not in claim.parties)
        ):
            conflicts.append(f"partie agissante : affirmé {claim.agent}, la pièce dit {doc.agent}")
    if claim.modality != doc.modality:  # a threat is not a rupture, a faculty is not a fact: not evidence
        return StanceReading(
            Stance.NEUTRAL,
            f"modalité différente ({', '.join(sorted(claim.modality)) or 'fait'} "
            f"contre {', '.join(sorted(doc.modality)) or 'fait'})",
            sentence,
            coverage,
        )
    if conflicts:
        return StanceReading(Stance.CONTRADICTS, "; ".join(conflicts), sentence, coverage)
    if missing:
        return StanceReading(Stance.NEUTRAL, f"la pièce ne précise pas : {', '.join(missing)}", sentence, coverage)
    if not matched and coverage < th.support_coverage_no_facet:
        return StanceReading(
            Stance.NEUTRAL, f"proche mais pas explicite (recouvrement {coverage:.0%})", sentence, coverage
        )
    what = ", ".join(matched) if matched else "termes"
    return StanceReading(Stance.SUPPORTS, f"concorde ({what}; recouvrement {coverage:.0%})", sentence, coverage)


_RANK = {Stance.CONTRADICTS: 3, Stance.SUPPORTS: 3, Stance.NEUTRAL: 1, Stance.IRRELEVANT: 0}


def best_reading(claim: fx.Facets, text: str, similarity: float, known: set[str], th: Thresholds) -> StanceReading:
    """Read each sentence of the memory and keep the most telling one (decisive, then best covered)."""
    spans = fx.sentences(text)
    readings = [read_candidate(claim, text[s:e], similarity, known, th) for s, e in spans]
    if not readings:
        return StanceReading(Stance.IRRELEVANT, "mémoire vide", "", 0.0)
    best = max(readings, key=lambda r: (_RANK[r.stance], r.coverage))
    if best.stance in (Stance.SUPPORTS, Stance.CONTRADICTS) or len(spans) < 2:
        return best
    # No single sentence settles it: read the memory as a whole (a letter's date heads its body).
    whole = read_candidate(claim, text.strip(), similarity, known, th, whole=True)
    return whole if whole.stance in (Stance.SUPPORTS, Stance.CONTRADICTS) else best


def aggregate(stances: list[Stance]) -> Status:
    supports = Stance.SUPPORTS in stances
    contradicts = Stance.CONTRADICTS in stances
    if supports and contradicts:
        return Status.AMBIGUOUS
    if supports:
        return Status.VERIFIED
    if contradicts:
        return Status.CONTRADICTED
    return Status.UNKNOWN


class OfflineJudge:
    name = "offline"

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.thresholds = thresholds or Thresholds()

    def judge(self, claim: str, candidates: list[Candidate]) -> Judgement:
        known: set[str] = set()
        for c in candidates:
            known |= fx.read(c.memory.text).parties
        claim_facets = fx.read(claim, known)
        known |= claim_facets.parties
        readings = [best_reading(claim_facets, c.memory.text, c.similarity, known, self.thresholds) for c in candidates]
        stances = [r.stance for r in readings]
        return Judgement(
            status=aggregate(stances),
            stances=stances,
            nuances=[r.nuance for r in readings],
            sentences=[r.sentence for r in readings],
        )
