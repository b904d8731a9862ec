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

from lexlogic.engine.text import formatting
from lexlogic.logic.grounding import SourceKind
from lexlogic.logic.memos import Memos
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack
from lexlogic.logic.proof import NodeKind, ProofNode

State = Literal[
    "établi",
    "non établi",
    "retenu sur lecture (à confirmer)",
    "écarté sur lecture (à confirmer)",
    "retenu sur interprétation (à confirmer)",
    "écarté sur interprétation (à confirmer)",
    "indéterminé",
    "à apprécier par le juge",
]
SETTLED = ("établi", "non établi")
# a state that holds only on the machine's readings (or a dynamic interpretation): never ✔ or ✘
TENTATIVE: dict[tuple[str, str], State] = {
    ("yes", "read"): "retenu sur lecture (à confirmer)",
    ("no", "read"): "écarté sur lecture (à confirmer)",
    ("yes", "interpretation"): "retenu sur interprétation (à confirmer)",
    ("no", "interpretation"): "écarté sur interprétation (à confirmer)",
}
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


class DocumentGrounds(BaseModel):
    """What grounds a fact, merged per document: one line per document with its number of passages."""

    document: str | None = None
    pages: list[int] = Field(default_factory=new_list)
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
    evidence: list[DocumentGrounds] = Field(default_factory=new_list)
    interpretation: bool = Field(default=False, description="a dynamic rule's interpretation, not hard law")
    read: bool = Field(default=False, description="read by the machine in the pieces: to be confirmed")

    def text(self) -> str:
        where = "; ".join(e.text() for e in self.evidence)
        mark = " (interprétation, pas une règle de droit)" if self.interpretation else ""
        if self.read:
            return f"{self.label} : {self.value} — lu dans {where or 'les pièces'} (à confirmer)"
        return f"{self.label} : {self.value}{mark}" + (f" — {where}" if where else "")


class Reason(BaseModel):
    """One step of the legal syllogism, in words."""

    check: str
    outcome: str
    state: State
    sentence: str
    facts: list[FactLine] = Field(default_factory=new_list)
    sources: list[str] = Field(default_factory=new_list, description="legal sources cited by the deciding rule")
    decisive: bool = False


class MissingFact(BaseModel):
    fact: str
    label: str
    question: str | None = None


def _short(text: str | None, n: int = 90) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def state_of(status: str, open_reasons: list[str] | None = None, knowledge: Any = None) -> State:
    """An outcome's state in words; ``knowledge`` (its ``Knowledge``) keeps one that rests on readings or
    interpretations from being worded « établi »."""
    if status in ("yes", "no") and knowledge is not None and not knowledge.on_record:
        basis = str(getattr(knowledge.basis, "value", knowledge.basis))
        return TENTATIVE[(status, "interpretation" if basis == "interpretation" else "read")]
    if status == "yes":
        return "établi"
    if status == "no":
        return "non établi"
    return "à apprécier par le juge" if open_reasons else "indéterminé"


def sentence(pack: RulePack, outcome: str, state: State, values: dict[str, Any] | None = None) -> str:
    """The pack's sentence for an outcome in that state (templates; the label with its state otherwise); a
    tentative state says on what it rests."""
    if state in SETTLED:
        try:
            return pack.outcome_sentence(outcome, state == "établi", values or {}, render=formatting.prose)
        except Exception:
            pass
    elif state.startswith(("retenu", "écarté")):
        holds = state.startswith("retenu")
        on = "lecture des pièces" if "lecture" in state else "interprétation d'une règle dynamique"
        try:
            said = pack.outcome_sentence(outcome, holds, values or {}, render=formatting.prose)
        except Exception:
            label = pack.label_of(outcome)
            said = f"{'Retenu' if holds else 'Écarté'} : {label[:1].lower()}{label[1:]}"
        return f"{said} — sur {on}, à confirmer"
    label = pack.label_of(outcome) if hasattr(pack, "label_of") else outcome
    spec = pack.manifest.outcomes.get(outcome)
    if spec is not None and getattr(spec, "question", None):
        return f"{spec.question} — {state}"
    return f"{state[:1].upper()}{state[1:]} : {label[:1].lower()}{label[1:]}"


def evidence_of(node: ProofNode) -> list[DocumentGrounds]:
    """The grounding of a fact, merged per document (a CSV's twelve cells become one line)."""
    docs: OrderedDict[str, DocumentGrounds] = OrderedDict()
    others: list[DocumentGrounds] = []
    for g in node.grounding:
        if g.kind is SourceKind.DOCUMENT and g.document_id:
            e = docs.setdefault(g.document_id, DocumentGrounds(document=g.document_id, origin="document"))
            e.passages += 1
            if g.page is not None and g.page not in e.pages:
                e.pages.append(g.page)
            e.quote = e.quote or g.quote
        elif g.kind is SourceKind.USER_ANSWER:
            others.append(DocumentGrounds(origin="réponse donnée"))
        elif g.kind is SourceKind.CASE_FILE:
            others.append(DocumentGrounds(origin="dossier de faits"))
        elif g.kind is SourceKind.PRIOR:
            others.append(DocumentGrounds(origin=g.note or "présomption du pack"))
        elif g.kind is SourceKind.DYNAMIC_RULE:
            others.append(DocumentGrounds(origin="interprétation d'une règle dynamique"))
        elif g.kind is SourceKind.REPAIR:
            others.append(DocumentGrounds(origin="réparation de typage (pas une donnée)"))
        elif g.kind is SourceKind.PARAMETER and g.note:
            others.append(DocumentGrounds(origin=g.note))
    unique: list[DocumentGrounds] = []
    for e in others:
        if all(e.origin != u.origin for u in unique):
            unique.append(e)
    return [*docs.values(), *unique]


LINES_SIZE = 256


def fact_lines(
    pack: RulePack,
    tree: ProofNode | None,
    limit: int = MAX_FACTS_PER_REASON,
    read: set[str] | None = None,
    memos: Memos | None = None,
) -> list[FactLine]:
    """The facts a conclusion rests on (the leaves of its tree), once each, documents first; ``read``: the
    facts the machine read (worded « lu dans … (à confirmer) »). Kept for the same objects (pack, tree) and
    read facts: a what-if that moves a prior shares the memo's trees (≈ 9 % of its CPU when rebuilt), by the
    owner of ``memos`` (none: computed). A fresh list each call; its lines are shared, never mutated."""
    if tree is None:
        return []
    if memos is None:
        return list(_fact_lines(pack, tree, limit, read))
    table = memos.identity("verdict.fact_lines", LINES_SIZE)
    lines = table.get((pack, tree), (limit, frozenset(read or ())), lambda: _fact_lines(pack, tree, limit, read))
    return list(lines)


def _fact_lines(pack: RulePack, tree: ProofNode, limit: int, read: set[str] | None) -> list[FactLine]:
    """``fact_lines`` computed (the leaves of ``tree``, documents first)."""
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
            read=name in (read or set()),
        )
    lines = sorted(seen.values(), key=lambda f: 0 if any(e.document for e in f.evidence) else 1)
    return lines[:limit]


def read_facts(verdict: Any) -> set[str]:
    """The facts of a verdict that the machine read (not established)."""
    # a str enum: ``==`` compares its value, without the enum's ``.value`` descriptor (~40 % of ``reasons``)
    return {n for n, k in (getattr(verdict, "knowledge", None) or {}).items() if k.status == "read"}


def reasons(pack: RulePack, verdict: Any, memos: Memos | None = None) -> list[Reason]:
    """The decisive steps: each settled check in the pack's order (defeaters examined and set aside are one
    reason together, their labels joined by « ; » since a label may hold a comma — those set aside only on
    the machine's readings another; notes that do not apply are left out), and the checks still open."""
    values = {k: v.value for k, v in verdict.values.items()}
    known = getattr(verdict, "outcome_knowledge", None) or {}
    read = read_facts(verdict)
    out: list[Reason] = []
    cleared: dict[State, list[str]] = {}
    for c in verdict.checks:
        o = verdict.outcomes.get(c.outcome)
        if o is None:
            continue
        state = state_of(o.status, o.open_reasons, known.get(c.outcome))
        if c.kind == "defeater" and o.status == "no":
            cleared.setdefault(state, []).append(c.label)
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
                facts=fact_lines(pack, tree, read=read, memos=memos),
                sources=list(OrderedDict.fromkeys(rule_sources)),
                decisive=c.id == verdict.decisive_check,
            )
        )
    for state, labels in sorted(cleared.items(), key=lambda kv: kv[0] != "non établi", reverse=True):
        head = defeaters_heading(pack, state)
        out.insert(
            0,
            Reason(
                check="defeaters",
                outcome="",
                state=state,
                sentence=f"{head} : " + " ; ".join(x[:1].lower() + x[1:] for x in labels),
            ),
        )
    return out


DEFEATERS_TENTATIVE = {
    "écarté sur lecture (à confirmer)": "sur lecture des pièces (à confirmer)",
    "écarté sur interprétation (à confirmer)": "sur interprétation (à confirmer)",
}


def defeaters_heading(pack: RulePack, state: str) -> str:
    """The pack's own heading for its defeaters set aside (« Fins de non-recevoir examinées et écartées »),
    followed, when they are set aside only on readings or an interpretation, by what they rest on."""
    head = pack.manifest.defeaters_heading
    return head if state == "non établi" else f"{head} {DEFEATERS_TENTATIVE.get(state, f'({state})')}"


def tone(pack: RulePack, verdict: Any) -> str:
    """The verdict's colour in the pack's polarity (a holding liability is red, a valid withdrawal is not):
    the holding/failing colour only when the symbolic label settles the target, « open » otherwise."""
    label = str(getattr(verdict.label, "value", verdict.label))
    colours = pack.manifest.target_colours
    if label == "LIABLE":
        return colours.holds
    if label == "NOT_LIABLE":
        return colours.fails
    return "open" if label == "UNDETERMINED" else "neutral"


def headline(pack: RulePack, verdict: Any) -> str:
    """The verdict in one sentence, never stronger than the symbolic label."""
    label = verdict.label.value if hasattr(verdict.label, "value") else str(verdict.label)
    knowledge = (getattr(verdict, "outcome_knowledge", None) or {}).get(verdict.target)
    if label in ("LIABLE", "NOT_LIABLE"):
        return sentence(pack, verdict.target, state_of("yes" if label == "LIABLE" else "no", None, knowledge))
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
    seen = {m.fact for m in out}
    return out + [m for m in missing_after_target(pack, verdict) if m.fact not in seen]


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


def unestablished(verdict: Any) -> set[str]:
    """The names (facts, computed values, outcomes) a verdict holds only on readings, interpretations or
    the judge's appreciation: a proof node about one of them, or resting on one, is never ✔ or ✘."""
    get = verdict.get if isinstance(verdict, dict) else lambda key: getattr(verdict, key, None)
    out: set[str] = set()
    for field in ("knowledge", "outcome_knowledge"):
        for name, k in (get(field) or {}).items():
            k = k if isinstance(k, dict) else k.model_dump(mode="json")
            if not k.get("on_record") and k.get("basis") != "unknown":
                out.add(name)
    return out


def rests_on_reading(node: Any, shaky: set[str] | None) -> bool:
    """Whether a proof node is, or rests on, a statement that is not established (see ``unestablished``)."""
    if not shaky:
        return False
    get = node.get if isinstance(node, dict) else lambda key: getattr(node, key, None)
    if str(get("atom") or "").removeprefix("not ").split("(")[0] in shaky:
        return True
    return any(rests_on_reading(c, shaky) for c in get("children") or [])


def proof_mark(node: Any, open_names: set[str] | None, shaky: set[str] | None) -> tuple[str, str]:
    """(mark, css class) of a proof node: « ? » on an open point, « ◇ » on a reading to confirm, ✔/✘ only
    for what given and answered facts establish."""
    if rests_on_open(node, open_names):
        return "?", "unknown"
    holds = node.get("holds", True) if isinstance(node, dict) else node.holds
    if rests_on_reading(node, shaky):
        return "◇", "tentative"
    return ("✔", "holds") if holds else ("✘", "fails")


def set_aside_rules(pack: RulePack, values: dict[str, Any]) -> list[str]:
    """The dated rules the case's relevant date puts outside their period: not applied, and said so."""
    from lexlogic.logic.parameters import render
    from lexlogic.logic.validity import period_text

    out = []
    for atom, rule in pack.dated_rules.items():
        info = values.get(atom)
        if info is None or getattr(info, "value", None) is not False:
            continue
        spec = pack.facts.get(rule["date"])
        when = spec.label if spec is not None else rule["date"]
        day = getattr(values.get(rule["date"]), "value", None)
        label = render(rule["label"], pack.parameters)
        out.append(
            f"{label[:1].upper()}{label[1:]} — non appliquée : en vigueur {period_text(rule['from'], rule['to'])}, "
            f"hors de cette période à la date retenue ({when[:1].lower()}{when[1:]} : {formatting.value(spec, day)})"
        )
    return out


def status_text(verdict: Any) -> str:
    """The badge: never stronger than the headline. A verdict whose target stays open is the judge's
    appreciation or an uncertain outcome; one resting on readings is a verdict to confirm."""
    status = str(getattr(verdict.status, "value", verdict.status))
    label = str(getattr(verdict.label, "value", verdict.label))
    if status != "verdict":
        return STATUS_WORDS[status]
    target = verdict.outcomes.get(verdict.target)
    if label == "UNDETERMINED":
        return "À apprécier par le juge" if target is not None and target.open_reasons else "Issue incertaine"
    known = (getattr(verdict, "outcome_knowledge", None) or {}).get(verdict.target)
    if known is not None and not known.on_record:
        return "Verdict à confirmer"
    return STATUS_WORDS[status]


def missing_after_target(pack: RulePack, verdict: Any) -> list[MissingFact]:
    """Once the target is settled (yes), what the remedy still lacks is what to ask."""
    target = verdict.outcomes.get(verdict.target)
    remedy = verdict.outcomes.get(verdict.remedy) if verdict.remedy else None
    if target is None or target.status != "yes" or remedy is None or remedy.status == "yes":
        return []
    out = []
    for name in remedy.missing:
        spec = pack.facts.get(name)
        if spec is not None and not spec.appreciation:
            out.append(MissingFact(fact=name, label=spec.label, question=spec.question))
    return out
