"""The verdict in words: one vocabulary for the CLI, the JSON, the report and the page.

Why in the engine: every face shows the same sentences, so they are built once, from the pack's templates
(``RulePack.outcome_sentence``), labels and value types — the engine itself names no legal domain. An
outcome that is not established is never worded as established: its state is ``non établi``,
``indéterminé`` or ``à apprécier par le juge`` (the judge's appreciation), never a proof.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine import formatting
from lexlogic.logic.grounding import SourceKind
from lexlogic.logic.pack import RulePack
from lexlogic.logic.proof import NodeKind, ProofNode

State = Literal["établi", "non établi", "indéterminé", "à apprécier par le juge"]
STATUS_WORDS = {
    "verdict": "Verdict",
    "needs_information": "Information nécessaire",
    "inconsistent": "Faits incohérents",
}
NARRATIVE_WORDS = {
    "SHARED": "faits communs",
    "NARRATIVE_A": "récit de la demanderesse",
    "NARRATIVE_B": "récit de la défense",
}
MAX_FACTS_PER_REASON = 4


class Evidence(BaseModel):
    """What grounds a fact, merged per document: one line per document with its number of passages."""

    document: str | None = None
    pages: list[int] = Field(default_factory=list)
    passages: int = 0
    quote: str | None = Field(default=None, description="the first passage quoted")
    origin: str = Field(description="document | réponse | fichier de faits | non allégué | interprétation …")

    def text(self) -> str:
        if self.document:
            pages = f" p. {', '.join(str(p) for p in self.pages)}" if self.pages else ""
            count = f", {self.passages} passages" if self.passages > 1 else ""
            quote = f" « {_short(self.quote)} »" if self.quote and self.passages == 1 else ""
            return f"{self.document}{pages}{count}{quote}"
        return self.origin


class FactLine(BaseModel):
    fact: str
    label: str
    value: str
    evidence: list[Evidence] = Field(default_factory=list)
    interpretation: bool = Field(default=False, description="a dynamic rule's interpretation, not hard law")

    def text(self) -> str:
        where = "; ".join(e.text() for e in self.evidence)
        mark = " (interprétation, pas une règle de droit)" if self.interpretation else ""
        return f"{self.label} : {self.value}{mark}" + (f" — {where}" if where else "")


class Reason(BaseModel):
    """One step of the legal syllogism, in words."""

    check: str
    outcome: str
    state: State
    sentence: str
    facts: list[FactLine] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="legal sources cited by the deciding rule")
    decisive: bool = False


class MissingFact(BaseModel):
    fact: str
    label: str
    question: str | None = None


def _short(text: str | None, n: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def state_of(status: str, open_reasons: list[str] | None = None) -> State:
    if status == "yes":
        return "établi"
    if status == "no":
        return "non établi"
    return "à apprécier par le juge" if open_reasons else "indéterminé"


def sentence(pack: RulePack, outcome: str, state: State, values: dict[str, Any] | None = None) -> str:
    """The pack's sentence for an outcome in that state (templates; the label with its state otherwise)."""
    if state in ("établi", "non établi"):
        try:
            return pack.outcome_sentence(outcome, state == "établi", values or {}, render=formatting.prose)
        except Exception:
            pass
    label = pack.label_of(outcome) if hasattr(pack, "label_of") else outcome
    spec = pack.manifest.outcomes.get(outcome)
    if spec is not None and getattr(spec, "question", None):
        return f"{spec.question} — {state}"
    return f"{state[:1].upper()}{state[1:]} : {label[:1].lower()}{label[1:]}"


def evidence_of(node: ProofNode) -> list[Evidence]:
    """The grounding of a fact, merged per document (a CSV's twelve cells become one line)."""
    docs: OrderedDict[str, Evidence] = OrderedDict()
    others: list[Evidence] = []
    for g in node.grounding:
        if g.kind is SourceKind.DOCUMENT and g.document_id:
            e = docs.setdefault(g.document_id, Evidence(document=g.document_id, origin="document"))
            e.passages += 1
            if g.page is not None and g.page not in e.pages:
                e.pages.append(g.page)
            e.quote = e.quote or g.quote
        elif g.kind is SourceKind.USER_ANSWER:
            others.append(Evidence(origin="réponse donnée"))
        elif g.kind is SourceKind.CASE_FILE:
            others.append(Evidence(origin="dossier de faits"))
        elif g.kind is SourceKind.PRIOR:
            others.append(Evidence(origin=g.note or "présomption du pack"))
        elif g.kind is SourceKind.DYNAMIC_RULE:
            others.append(Evidence(origin="interprétation d'une règle dynamique"))
        elif g.kind is SourceKind.REPAIR:
            others.append(Evidence(origin="réparation de typage (pas une donnée)"))
        elif g.kind is SourceKind.PARAMETER and g.note:
            others.append(Evidence(origin=g.note))
    unique: list[Evidence] = []
    for e in others:
        if all(e.origin != u.origin for u in unique):
            unique.append(e)
    return [*docs.values(), *unique]


def fact_lines(pack: RulePack, tree: ProofNode | None, limit: int = MAX_FACTS_PER_REASON) -> list[FactLine]:
    """The facts a conclusion rests on (the leaves of its tree), once each, documents first."""
    if tree is None:
        return []
    seen: dict[str, FactLine] = {}
    for node in tree.walk():
        if node.kind not in (NodeKind.FACT, NodeKind.DYNAMIC, NodeKind.ASSUMPTION) or node.atom in seen:
            continue
        name = node.atom.split("(")[0]
        spec = pack.facts.get(name)
        if spec is None:
            continue
        value = node.value if node.value is not None else node.holds
        seen[node.atom] = FactLine(
            fact=name,
            label=spec.label,
            value=formatting.value(spec, value),
            evidence=evidence_of(node),
            interpretation=node.kind is NodeKind.DYNAMIC,
        )
    lines = sorted(seen.values(), key=lambda f: 0 if any(e.document for e in f.evidence) else 1)
    return lines[:limit]


def reasons(pack: RulePack, verdict: Any) -> list[Reason]:
    """The decisive steps: each settled check in the pack's order (defeaters that do not apply are one
    reason together, their labels joined by « ; » since a label may hold a comma; notes that do not apply are
    left out), and the checks still open."""
    values = {k: v.value for k, v in verdict.values.items()}
    out: list[Reason] = []
    cleared: list[str] = []
    for c in verdict.checks:
        o = verdict.outcomes.get(c.outcome)
        if o is None:
            continue
        state = state_of(o.status, o.open_reasons)
        if c.kind == "defeater" and o.status == "no":
            cleared.append(c.label)
            continue
        if c.kind == "note" and o.status == "no":  # a remark that does not apply says nothing
            continue
        if c.kind == "remedy":
            continue
        tree = o.proof if o.status == "yes" and c.outcome != verdict.target else None
        rule_sources = [s.reference for s in (tree.sources if tree else [])]
        out.append(
            Reason(
                check=c.id,
                outcome=c.outcome,
                state=state,
                sentence=sentence(pack, c.outcome, state, values),
                facts=fact_lines(pack, tree),
                sources=list(OrderedDict.fromkeys(rule_sources)),
                decisive=c.id == verdict.decisive_check,
            )
        )
    if cleared:
        out.insert(
            0,
            Reason(
                check="defeaters",
                outcome="",
                state="non établi",
                sentence="Écartés : " + " ; ".join(x[:1].lower() + x[1:] for x in cleared),
            ),
        )
    return out


def headline(pack: RulePack, verdict: Any) -> str:
    """The verdict in one sentence, never stronger than the symbolic label."""
    label = verdict.label.value if hasattr(verdict.label, "value") else str(verdict.label)
    if label == "LIABLE":
        return sentence(pack, verdict.target, "établi")
    if label == "NOT_LIABLE":
        return sentence(pack, verdict.target, "non établi")
    if label == "INCONSISTENT":
        return "Les faits sont incompatibles avec les règles du pack : aucune issue cohérente"
    target = verdict.outcomes.get(verdict.target)
    state = state_of("unknown", target.open_reasons if target else None)
    return sentence(pack, verdict.target, state)


def missing(pack: RulePack, verdict: Any) -> list[MissingFact]:
    out = []
    for name in verdict.missing_facts:
        spec = pack.facts.get(name)
        if spec is not None and not spec.appreciation:
            out.append(MissingFact(fact=name, label=spec.label, question=spec.question))
    return out


def remedy_text(pack: RulePack, verdict: Any) -> str | None:
    """The remedy in the pack's own sentence (its range, or what it still lacks); conditional — « Si … : » —
    while the target is not established, so an amount is never read as awarded when liability is open."""
    remedy = verdict.outcomes.get(verdict.remedy) if verdict.remedy else None
    low, high = verdict.remedy_range or (None, None)
    labels = [pack.label_of(m) for m in (remedy.missing if remedy is not None else []) or []]
    missing = [x[:1].lower() + x[1:] for x in labels]  # inside a sentence: « manquent nature de la rupture »
    text = pack.remedy_sentence(low, high, missing, money=formatting.money)
    if text is None and low is not None and high is not None:
        label = pack.label_of(verdict.remedy) if verdict.remedy else "Réparation"
        text = f"{label} : {formatting.money_range(low, high)}"
    if text is None:
        return None
    label = verdict.label.value if hasattr(verdict.label, "value") else str(verdict.label)
    if label == "NOT_LIABLE":
        return None
    if label != "LIABLE":
        target = pack.target_label or pack.label_of(verdict.target)
        return f"Si {target} : {text[:1].lower()}{text[1:]}"
    return text


PROOF_TITLE = {
    "yes": "Preuve de la conclusion (arbre complet)",
    "no": "Pourquoi la conclusion n'est pas établie (arbre complet)",
    "unknown": "Ce qui fonderait la conclusion — non établie : elle tiendrait si les points marqués « ? » se "
    "réglaient comme indiqué",
}


def open_facts(values: dict[str, Any]) -> set[str]:
    """The values a verdict still lacks (unknown, or open to the judge's appreciation)."""
    out = set()
    for name, info in values.items():
        status = info.get("status") if isinstance(info, dict) else getattr(info, "status", None)
        if str(getattr(status, "value", status)) in ("unknown", "open"):
            out.add(name)
    return out


def rests_on_open(node: Any, open_names: set[str] | None) -> bool:
    """Whether a proof node holds (or fails) only under a reading of an open point: it is, or has below it,
    a default or missing leaf about a fact still open. Such a node is shown « ? », never ✔ or ✘."""
    if not open_names:
        return False
    if assumes_open(node, open_names):
        return True
    children = node.get("children") if isinstance(node, dict) else getattr(node, "children", None)
    return any(rests_on_open(c, open_names) for c in children or [])


def assumes_open(node: Any, open_names: set[str] | None) -> bool:
    """Whether a proof node is the default or missing leaf that assumes how an open point turns out."""
    if not open_names:
        return False
    get = node.get if isinstance(node, dict) else lambda key: getattr(node, key, None)
    kind = get("kind")
    name = str(get("atom") or "").removeprefix("not ").split("(")[0]
    return str(getattr(kind, "value", kind)) in ("assumption", "missing") and name in open_names
