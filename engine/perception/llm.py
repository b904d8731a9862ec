"""LLM perception: any OpenAI-compatible endpoint reads the documents and returns facts as JSON.

The model must quote its evidence; the engine, not the model, computes the grounding: each quote is
located in the document text (exact, then whitespace-insensitive). A reply with an unknown fact, a
value of the wrong type or a quote not found in the document is rejected and the reasons are sent
back for a bounded number of retries. Nothing ungrounded enters the case.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.documents.model import Document
from lexlogic.engine.perception.model import Ambiguity, Finding, Perception
from lexlogic.logic.facts import DateInterval, DatePrecision, World
from lexlogic.logic.pack import RulePack

MAX_CHARS_PER_DOC = 6000


class LLMEvidence(BaseModel):
    document_id: str
    quote: str = Field(description="verbatim text copied from the document")


class LLMReading(BaseModel):
    value: Any
    confidence: float = Field(default=0.8, ge=0, le=1)
    world: World = World.SHARED
    evidence: list[LLMEvidence] = Field(min_length=1)
    note: str | None = None
    alleged_by: Literal["claimant", "defence"] | None = Field(
        default=None, description="set when only that party's own document asserts it (never proven by itself)"
    )
    precision: Literal["day", "month", "year"] | None = Field(
        default=None, description="a date known to the month (value YYYY-MM) or the year (value YYYY)"
    )


class LLMFact(BaseModel):
    fact: str
    readings: list[LLMReading] = Field(min_length=1, description="several readings = an ambiguity")


class LLMExtraction(BaseModel):
    facts: list[LLMFact]


def locate(doc: Document, quote: str) -> tuple[int, int] | None:
    """Span of ``quote`` in the document: exact, else with any whitespace run matching any other."""
    i = doc.text.find(quote)
    if i >= 0:
        return i, i + len(quote)
    words = quote.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), doc.text)
    return (m.start(), m.end()) if m else None


def _check_value(spec: Any, value: Any) -> Any:
    try:
        from lexlogic.logic.facts import check_value

        return check_value(spec, value)
    except ImportError:  # pragma: no cover - the lead's module is present in this tree
        return value


def ground_extraction(extraction: LLMExtraction, docs: list[Document], pack: RulePack) -> tuple[Perception, list[str]]:
    """Turn a validated reply into findings; returns the problems that make it unacceptable."""
    specs = dict(pack.facts)
    by_id = {d.id: d for d in docs}
    p, problems = Perception(), []
    for i, f in enumerate(extraction.facts):
        if f.fact not in specs:
            problems.append(f"facts[{i}]: unknown fact '{f.fact}'")
            continue
        amb_id = f"llm-{f.fact}" if len(f.readings) > 1 else None
        readings = []
        for j, r in enumerate(f.readings):
            interval = None
            if r.precision in ("month", "year") and isinstance(r.value, str):
                interval = _interval(r.value, r.precision)
                if interval is None:
                    problems.append(f"facts[{i}].readings[{j}].value: a {r.precision} is YYYY-MM or YYYY")
                    continue
            try:
                value = _check_value(specs[f.fact], interval_value(interval) if interval else r.value)
            except ValueError as exc:
                problems.append(f"facts[{i}].readings[{j}].value: {exc}")
                continue
            grounding = []
            for e in r.evidence:
                doc = by_id.get(e.document_id)
                span = locate(doc, e.quote) if doc else None
                if doc is None or span is None:
                    problems.append(f"facts[{i}].readings[{j}]: quote not found in '{e.document_id}': {e.quote[:60]!r}")
                    continue
                grounding.append(doc.ground(*span))
            if grounding:
                finding = Finding(
                    fact=f.fact,
                    value=value,
                    confidence=r.confidence,
                    world=r.world,
                    grounding=grounding,
                    note=r.note,
                    ambiguity=amb_id,
                    source="llm",
                    allegation="alleged" if r.alleged_by else None,
                    alleged_by=r.alleged_by,
                    interval=interval,
                )
                if r.alleged_by:
                    finding.world = World.of_party(r.alleged_by)
                readings.append(finding)
                p.add(finding)
        if amb_id and len(readings) > 1:
            p.ambiguities.append(
                Ambiguity(
                    id=amb_id,
                    statement=readings[0].grounding[0],
                    question=f"Quelle lecture retenir pour « {f.fact} » ?",
                    readings=readings,
                )
            )
    return p, problems


def perceive_with_llm(client: Any, docs: list[Document], pack: RulePack, max_rounds: int = 3) -> Perception:
    """Ask, validate (schema by ``complete_json``, grounding and types here), retry with the reasons.
    The facts, their questions and the domain's title are the case's pack's (``pack``, passed in)."""
    rule_pack = pack
    specs = dict(rule_pack.facts)
    questions = _questions(rule_pack.root)
    vocab = "\n".join(
        f"- {name} ({_describe(s)})" + (f" — {questions[name]}" if name in questions else "")
        for name, s in specs.items()
    )
    corpus = "\n\n".join(f"=== document_id: {d.id} ===\n{d.text[:MAX_CHARS_PER_DOC]}" for d in docs)
    messages: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": f"Tu extrais des faits d'un dossier : {rule_pack.manifest.title}. "
            "Réponds en JSON seulement, selon le schéma. Chaque lecture cite au moins une preuve : "
            "document_id et citation VERBATIM. Une déclaration ambiguë donne plusieurs lectures, "
            "chacune dans un monde (NARRATIVE_A demanderesse, NARRATIVE_B défense). Ce qu'une partie affirme "
            "dans son propre document (note, conclusions, courriel) ou ce qu'une décision rapporte qu'elle soutient "
            "porte alleged_by (claimant|defence) : c'est une allégation, jamais un fait établi. Une négation ou "
            "une hypothèse ne donne jamais le fait positif. Une date connue au mois ou à l'année porte precision "
            "(month|year) et la valeur YYYY-MM ou YYYY, jamais le 1er.",
        },
        {"role": "user", "content": f"Vocabulaire des faits :\n{vocab}\n\nDossier :\n{corpus}"},
    ]
    last: list[str] = []
    for _ in range(max_rounds):
        extraction = client.complete_json(messages, LLMExtraction)
        perception, problems = ground_extraction(extraction, docs, rule_pack)
        if not problems:
            for d in docs:
                from lexlogic.logic.ontology import Evidence, EvidenceKind

                perception.ontology.evidence.append(Evidence(kind=EvidenceKind.OTHER, document_id=d.id, title=d.title))
            return perception
        last = problems
        messages = messages + [
            {"role": "assistant", "content": extraction.model_dump_json()},
            {
                "role": "user",
                "content": "Réponse rejetée :\n"
                + "\n".join(problems)
                + "\nCorrige et renvoie tout le JSON (citations verbatim, faits du vocabulaire).",
            },
        ]
    from lexlogic.bridges.llm import LLMError

    raise LLMError(f"no grounded extraction after {max_rounds} rounds: {'; '.join(last)}")


def _describe(spec: Any) -> str:
    if isinstance(spec, dict):
        return f"{spec.get('type')}: {spec.get('label')}"
    return f"{spec.type.value}: {spec.label}" + (f" {spec.values}" if spec.values else "")


def _questions(root: Any) -> dict[str, str]:
    """The pack's extraction questions (the same ``extraction.yaml`` the offline reader uses)."""
    try:
        from lexlogic.logic.extraction import load_extraction

        spec = load_extraction(root)
    except Exception:  # no spec: the facts' labels alone
        return {}
    return {name: fs.question for name, fs in (spec.facts.items() if spec else []) if fs.question}


def _interval(value: str, precision: str) -> DateInterval | None:
    from lexlogic.engine.text.dates import interval_of

    m = re.fullmatch(r"(\d{4})(?:-(\d{2}))?", value.strip())
    if m is None or (precision == "month") != bool(m.group(2)):
        return None
    try:
        day = date(int(m.group(1)), int(m.group(2) or 1), 1)
    except ValueError:
        return None
    return interval_of(day, DatePrecision(precision))


def interval_value(interval: DateInterval) -> str:
    """The ISO value the logic reads for an interval: its middle (the interval itself travels beside it)."""
    return (interval.start + (interval.end - interval.start) / 2).isoformat()


def extract(docs: list[Document], pack: RulePack, client: Any) -> Perception:
    """The LLM path behind the same entry point as the offline one (the client is built at the edge)."""
    from lexlogic.bridges.llm import LLMError

    if client is None:
        raise LLMError("no LLM endpoint configured (LEXLOGIC_LLM_BASE_URL)")
    return perceive_with_llm(client, docs, pack)
