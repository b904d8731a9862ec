"""The parties' written submissions into the case: claims checked against the dossier, arguments weighed.

For each party's submission: its factual claims are extracted and verified against the dossier's
evidence memory (semantic search, then the judge); each claim is also analysed for fallacies, and a
fallacious argument moves the case less (its reliability prior is lowered). The verification results
become case updates (engine.claims.case_updates): a VERIFIED claim raises the prior of its fact, a
CONTRADICTED one lowers it or opens two readings, an AMBIGUOUS one opens two readings — each with the
evidence span as grounding. A claim no piece supports (UNKNOWN) changes nothing: saying is not proving.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.documents.model import Document
from lexlogic.logic.facts import CaseFile, World, check_value, parse_case
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack

Party = Literal["claimant", "defence"]
OTHER = {"NARRATIVE_A": "NARRATIVE_B", "NARRATIVE_B": "NARRATIVE_A"}


class ClaimReport(BaseModel):
    party: Party
    claim: str
    status: str
    fact: str | None = None
    effect: str = ""
    reliability: float = 1.0
    fallacies: list[str] = Field(default_factory=new_list)


class SubmissionsReport(BaseModel):
    claims: list[ClaimReport] = Field(default_factory=new_list)
    unmapped: list[str] = Field(default_factory=new_list)


def _reliability(claim: str, fallacy_check: bool, llm: Any) -> tuple[float, list[str]]:
    if not fallacy_check:
        return 1.0, []
    from lexlogic.engine.fallacies.analyse import analyse as analyse_fallacies
    from lexlogic.engine.fallacies.analyse import make_navigator
    from lexlogic.engine.fallacies.case import penalised_prior

    found = analyse_fallacies(claim, navigator=make_navigator("auto", llm)).confirmed
    names = [f"{f.name_fr} ({f.confidence:.2f})" for f in found]
    return penalised_prior(1.0, [f.confidence for f in found]), names


def weigh_submissions(
    pack: RulePack,
    case: CaseFile,
    documents: Sequence[Document],
    submissions: Sequence[tuple[Party, str]],
    *,
    index_dir: Path,
    fallacy_check: bool = True,
    llm: Any = None,
) -> tuple[CaseFile, SubmissionsReport]:
    """A new case with the submissions' verified claims applied (typed again against the pack: CaseFileError
    with its JSON path), and what was done with each claim. ``llm``: the edge's ``LLMClient`` when an endpoint
    is configured (claims, judge, fallacies), else None."""
    from lexlogic.engine.claims.case_updates import load_map, match_fact, updates_for
    from lexlogic.engine.claims.extract import extract_claims
    from lexlogic.engine.claims.retrieval import HybridMemory
    from lexlogic.engine.claims.verify import default_judge, verify_all

    stored = case.model_dump(mode="json")  # the claims' updates are written in the case file's JSON form
    facts: dict[str, Any] = stored["facts"]
    report = SubmissionsReport()
    memory = HybridMemory.open(index_dir, list(documents))  # sentence passages, BM25 + e5 (issue 19)
    judge = default_judge(llm)
    rules = load_map(pack)  # the case's pack's claim→fact map (rules/<pack>/claims.yaml)
    for party, text in submissions:
        claims = extract_claims(text, llm)
        results = verify_all(memory, claims, judge=judge) if claims else []
        updates = updates_for(results, rules)
        report.unmapped.extend(updates.unmapped)
        by_claim: dict[str, ClaimReport] = {}
        for r in results:
            rule = match_fact(r.claim, rules)
            reliability, names = _reliability(r.claim, fallacy_check, llm)
            by_claim[r.claim] = ClaimReport(
                party=party,
                claim=r.claim,
                status=r.status.value,
                fact=rule.fact if rule else None,
                reliability=reliability,
                fallacies=names,
                effect="aucun : aucune pièce ne le confirme" if r.status.value == "UNKNOWN" else "",
            )
        world = World.of_party(party).value
        for up in updates.priors:
            rep = by_claim[up.claim]
            spec = pack.facts.get(up.fact)
            try:
                value = check_value(spec, up.value) if spec and up.value is not None else None
            except ValueError:
                value = None
            if spec is None or value is None:
                rep.effect = "valeur non exploitable pour le pack"
                continue
            # a fallacious argument moves the prior less: pull it towards 1/2 by its reliability
            p = 0.5 + (up.probability - 0.5) * rep.reliability
            current = facts.get(up.fact)
            current_value = current.get("value") if isinstance(current, dict) else current
            grounding = [g.model_dump(mode="json") for g in up.grounding]
            if current is None:
                facts[up.fact] = {"value": value, "confidence": round(p, 4), "world": "SHARED", "grounding": grounding}
                rep.effect = f"{up.fact} = {value} (prior {p:.2f})"
            elif current_value == value:
                entry = current if isinstance(current, dict) else {"value": current}
                entry["confidence"] = round(
                    max(float(entry.get("confidence", 1.0)), p)
                    if p >= 0.5
                    else min(float(entry.get("confidence", 1.0)), p),
                    4,
                )
                entry.setdefault("grounding", []).extend(grounding)
                facts[up.fact] = entry
                rep.effect = (
                    f"{up.fact} = {value} : prior {'relevé' if p >= 0.5 else 'abaissé'} à {entry['confidence']:.2f}"
                )
            elif p >= 0.5:  # a verified claim against the file's value: two readings
                facts[up.fact] = {
                    "value": value,
                    "confidence": round(p, 4),
                    "world": world,
                    "grounding": grounding,
                    "alternatives": [{"value": current_value, "confidence": round(1 - p, 4), "world": OTHER[world]}],
                }
                rep.effect = f"{up.fact} : deux lectures ({value} / {current_value})"
            else:
                rep.effect = f"{up.fact} : contredit, la valeur du dossier ({current_value}) est maintenue"
        for amb in updates.ambiguities:
            rep = by_claim[amb.claim]
            spec = pack.facts.get(amb.fact)
            try:
                a = check_value(spec, amb.world_a.value) if spec and amb.world_a.value is not None else None
                b = check_value(spec, amb.world_b.value) if spec and amb.world_b.value is not None else None
            except ValueError:
                a = b = None
            if spec is None or a is None or b is None or a == b:
                rep.effect = "ambiguïté non exploitable pour le pack"
                continue
            facts[amb.fact] = {
                "value": a,
                "confidence": round(0.5 * rep.reliability, 4) or 0.05,
                "world": world,
                "grounding": [g.model_dump(mode="json") for g in amb.world_a.grounding],
                "alternatives": [
                    {
                        "value": b,
                        "confidence": 0.5,
                        "world": OTHER[world],
                        "grounding": [g.model_dump(mode="json") for g in amb.world_b.grounding],
                    }
                ],
            }
            rep.effect = f"{amb.fact} : deux lectures ({a} / {b})"
        report.claims.extend(by_claim.values())
    return parse_case(stored, pack, "<submissions>"), report
