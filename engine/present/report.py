"""The report of a case as DATA: verdict words, proof tree with labels and groundings, facts with their
passages, charts' figures and the cited documents. No HTML here: ``lexlogic.api.report_html`` renders it
(and decides where a lawyer reads a source: Légifrance, Judilibre), so the engine knows no markup or site.

Why a separate shape from the Verdict: the report needs the proof tree already worded (labels from the
pack, values formatted in French, « ? » where a node rests on a point still open) and the documents a
passage cites; the renderer then only lays them out.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.documents.model import Document
from lexlogic.engine.text import formatting
from lexlogic.engine.text.inference_words import method_phrase
from lexlogic.engine.verdict import wording
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import RulePack

WORLD_WORDS = {"SHARED": "—", "NARRATIVE_A": "demanderesse", "NARRATIVE_B": "défense"}
MARKS = {"établi": ("✔", "holds"), "non établi": ("✘", "fails"), "indéterminé": ("?", "unknown")}
TENTATIVE = ("◇", "tentative")  # retenu / écarté sur lecture (à confirmer): never ✔ or ✘
KIND_NOTES = {
    "dynamic": "interprétation d'une règle dynamique, pas une règle de droit",
    "repair": "réparation de typage, pas une donnée",
    "missing": "fait manquant",
}


class SourceRef(BaseModel):
    """A legal source as the pack cites it; ``url`` only when the pack gives one."""

    cite: str
    reference: str = ""
    kind: str | None = None
    url: str | None = None


class Passage(BaseModel):
    """A span of a document that grounds a fact (characters ``start``–``end`` of the document's text)."""

    doc: str
    start: int
    end: int
    page: int | None = None
    quote: str = ""


class ProofLine(BaseModel):
    """One node of the proof tree, worded: ``mark`` ✔ / ✘ / ?, its label, sources, passages, children."""

    key: str = Field(description="identity of the node (a shared subtree is shown once)")
    css: Literal["holds", "fails", "unknown", "tentative"]
    mark: str
    label: str
    sources: list[SourceRef] = Field(default_factory=new_list)
    note: str | None = None
    passages: list[Passage] = Field(default_factory=new_list)
    notes: list[str] = Field(default_factory=new_list, description="groundings that are not document spans")
    children: list[ProofLine] = Field(default_factory=new_list)


class ReasonLine(BaseModel):
    mark: str
    css: str
    sentence: str
    facts: list[str] = Field(default_factory=new_list)


class ReportFact(BaseModel):
    name: str
    label: str
    value: str
    status: str
    by: str
    passages: list[Passage] = Field(default_factory=new_list)


class Bar(BaseModel):
    label: str
    value: float


class Spread(BaseModel):
    label: str
    p10: float
    p50: float
    p90: float
    text: str = Field(description="the same figures in words")


class CitedDocument(BaseModel):
    id: str
    title: str | None = None
    kind: str
    media_type: str
    text: str


class ReportData(BaseModel):
    """Everything the report shows, in words and figures."""

    title: str
    case_id: str | None = None
    status_text: str
    headline: str
    label: str | None = None
    tone: str = Field(default="neutral", description="the verdict's colour in the pack's polarity (Verdict.tone)")
    tentative: bool = Field(default=False, description="the target rests on readings to confirm")
    target_label: str
    probability: str | None = None
    method: str = ""
    remedy_text: str | None = None
    distributions: list[Spread] = Field(default_factory=new_list)
    applicable_law: str | None = None
    question: str | None = None
    message: str | None = None
    reasons: list[ReasonLine] = Field(default_factory=new_list)
    missing: list[str] = Field(default_factory=new_list)
    set_aside: list[str] = Field(default_factory=new_list, description="dated rules not applied (outside their period)")
    posterior: list[Bar] = Field(default_factory=new_list)
    eig: list[Bar] = Field(default_factory=new_list)
    proof_title: str
    proof: ProofLine | None = None
    facts: list[ReportFact] = Field(default_factory=new_list)
    documents: list[CitedDocument] = Field(default_factory=new_list)


def _passage(g: dict[str, Any], docs: dict[str, Document]) -> Passage | None:
    if g.get("kind", "document") != "document" or g.get("document_id") not in docs or g.get("char_start") is None:
        return None
    return Passage(
        doc=g["document_id"], start=g["char_start"], end=g["char_end"], page=g.get("page"), quote=g.get("quote", "")
    )


class _Proof:
    """The proof tree worded: labels from the pack, values in French, « ? » on what rests on an open point."""

    def __init__(
        self, docs: dict[str, Document], pack: Any, still_open: set[str], shaky: set[str] | None = None
    ) -> None:
        self.docs, self.pack, self.open = docs, pack, still_open
        self.shaky = shaky or set()  # what holds only on the machine's readings: « ◇ », never ✔ or ✘

    def label(self, node: dict[str, Any]) -> str:
        atom = str(node.get("atom", ""))
        text = str(node.get("label") or (self.pack.label_of(atom) if self.pack is not None else atom))
        if text.startswith("absence de : "):
            absent = text[len("absence de : ") :]
            if self.pack is not None and absent == atom.removeprefix("not "):
                absent = self.pack.label_of(absent)
            text = "Aucun élément n'établit : " + absent
        value = node.get("value")
        if value in (None, True):
            return text
        spec = self.pack.facts.get(atom.split("(")[0]) if self.pack is not None else None
        shown = formatting.number(value) if isinstance(value, float) and spec is None else formatting.value(spec, value)
        return f"{text} : {shown}"

    def line(self, node: dict[str, Any]) -> ProofLine:
        holds = node.get("holds", True)
        # one reading of a point still open (?), or a machine reading to confirm (◇): never shown as proven
        mark, css = wording.proof_mark(node, self.open, self.shaky)
        read = str(node.get("kind")) == "fact" and str(node.get("atom", "")).split("(")[0] in self.shaky
        sources = []
        for s in node.get("sources", []):
            cite = str(s.get("reference", "")) + (f" ({s['version']})" if s.get("version") else "")
            sources.append(
                SourceRef(cite=cite, reference=str(s.get("reference") or ""), kind=s.get("kind"), url=s.get("url"))
            )
        passages, notes = [], []
        for g in node.get("grounding", []):
            p = _passage(g, self.docs)
            if p is not None:
                passages.append(p)
            elif g.get("note"):
                notes.append(str(g["note"]))
        if read and passages:
            notes.append("lu dans les passages cités (à confirmer)")
        return ProofLine(
            key=f"{node.get('atom')}|{holds}|{node.get('rule_id')}|{node.get('kind')}",
            css=css,  # type: ignore[arg-type]
            mark=mark,
            label=self.label(node),
            sources=sources,
            note=KIND_NOTES.get(str(node.get("kind", "rule"))),
            passages=passages,
            notes=notes,
            children=[self.line(c) for c in node.get("children", [])],
        )


def _fact_lines(ev: dict[str, Any], docs: dict[str, Document]) -> list[ReportFact]:
    """The verdict's facts table (``Verdict.facts``: the same rows as the page) with their passages."""
    rows = []
    for row in ev.get("facts") or []:
        passages = [p for g in row.get("passages") or [] if (p := _passage({**g, "kind": "document"}, docs))]
        rows.append(
            ReportFact(
                name=str(row.get("fact")),
                label=str(row.get("label") or row.get("fact")),
                value=str(row.get("value", "")),
                status=str(row.get("status", "")),
                by=row.get("by") or "—",
                passages=passages,
            )
        )
    return rows


def _spreads(prob: dict[str, Any]) -> list[Spread]:
    """The number distributions the verdict carries (labels and units are the pack's outputs)."""
    out = []
    for d in prob.get("distributions") or []:
        if d.get("p10") is None or d.get("p50") is None or d.get("p90") is None:
            continue
        label = str(d.get("label") or d.get("name"))
        unit = d.get("unit") or ""
        fmt = formatting.money_estimate if unit == "EUR" else (lambda x, u=unit: formatting.value(None, x, u))
        text = f"{label} : médiane {fmt(d['p50'])}, 8 chances sur 10 entre {fmt(d['p10'])} et {fmt(d['p90'])}"
        out.append(Spread(label=label, p10=float(d["p10"]), p50=float(d["p50"]), p90=float(d["p90"]), text=text))
    return out


def _reasons(ev: dict[str, Any]) -> list[ReasonLine]:
    reasons = []
    for r in ev.get("reasons") or []:
        said = str(r.get("state"))
        mark, css = MARKS.get(said, TENTATIVE if said.endswith("(à confirmer)") else ("⚖", "unknown"))
        if r.get("check") == "defeaters":
            mark = "–"
        facts_text = []
        for f in r.get("facts") or []:
            where = "; ".join(
                (e.get("document") or e.get("origin") or "")
                + (f" p. {', '.join(str(p) for p in e['pages'])}" if e.get("pages") else "")
                for e in f.get("evidence") or []
            )
            if f.get("read"):
                facts_text.append(f"{f['label']} : {f['value']} — lu dans {where or 'les pièces'} (à confirmer)")
            else:
                facts_text.append(f"{f['label']} : {f['value']}" + (f" — {where}" if where else ""))
        reasons.append(ReasonLine(mark=mark, css=css, sentence=r.get("sentence", ""), facts=facts_text))
    return reasons


def _bars(ev: dict[str, Any], prob: dict[str, Any], pack: Any) -> tuple[list[Bar], list[Bar]]:
    posterior = (
        [Bar(label="P(conclusion principale)", value=float(prob["p_target"]))]
        if prob.get("p_target") is not None
        else []
    )
    posterior += [
        Bar(label=f"P({WORLD_WORDS.get(w, w)})", value=float(p)) for w, p in (prob.get("p_narrative") or {}).items()
    ]
    posterior += [
        Bar(label=f"P(conclusion | {WORLD_WORDS.get(w, w)})", value=float(p))
        for w, p in (prob.get("p_target_by_narrative") or {}).items()
        if p is not None
    ]
    eig = []
    for q in ev.get("questions") or []:
        if q.get("eig") is None:
            continue
        spec = pack.facts.get(q["fact"]) if pack is not None else None
        eig.append(Bar(label=spec.label if spec is not None else q["fact"], value=float(q["eig"])))
    return posterior, eig


def _cited(documents: list[Document], proof: ProofLine | None, facts: list[ReportFact]) -> list[CitedDocument]:
    """The documents a passage of the proof or of the facts table cites, in the dossier's order."""
    used: set[str] = {p.doc for f in facts for p in f.passages}
    stack = [proof] if proof else []
    while stack:
        n = stack.pop()
        used |= {p.doc for p in n.passages}
        stack += n.children
    return [
        CitedDocument(id=d.id, title=d.title, kind=d.kind.value, media_type=d.media_type, text=d.text)
        for d in documents
        if d.id in used
    ]


def _probability_text(prob: dict[str, Any], ev: dict[str, Any]) -> str | None:
    """The percentage, or what the model has nothing to weigh with (then no percentage)."""
    p = prob.get("p_target")
    if p is None:
        return None
    if prob.get("unweighed") and 0.0 < float(p) < 1.0:
        labels = {r.get("fact"): r.get("label") for r in [*(ev.get("facts") or []), *(ev.get("missing") or [])]}
        names = ", ".join(str(labels.get(f) or f) for f in prob["unweighed"])
        return f"non chiffrée en l'état — rien pour peser : {names}"
    return formatting.probability(float(p))


def _method_text(prob: dict[str, Any]) -> str:
    """« (calcul exact, 1 monde) » or « estimée par échantillonnage (± 0,4 point à 95 %, …) »: never more
    than the method knows (``engine.text.inference_words``)."""
    return method_phrase(prob)


def report_data(state: dict[str, Any], documents: list[Document], pack: RulePack | None = None) -> ReportData:
    """The report of a run's state (its persisted Verdict): never stronger than the verdict. ``pack``: the
    verdict's pack (its labels in the proof), passed by the caller."""
    docs = {d.id: d for d in documents}
    ev = state.get("evaluation") or {}  # the typed Verdict, serialised
    prob = ev.get("probability") or {}
    target_status = ((ev.get("outcomes") or {}).get(ev.get("target") or "") or {}).get("status")
    proof_node = ev.get("proof") if target_status == "yes" else ev.get("why_not")
    still_open = wording.open_facts(ev.get("values") or {}) if target_status not in ("yes", "no") else set()
    proof = _Proof(docs, pack, still_open, wording.unestablished(ev)).line(proof_node) if proof_node else None
    facts = _fact_lines(ev, docs)
    posterior, eig = _bars(ev, prob, pack)
    question = state.get("pending_question") or ev.get("best_question")
    return ReportData(
        title=pack.manifest.title if pack is not None else "Analyse",
        case_id=state.get("case_id"),
        status_text=ev.get("status_text") or state.get("status", ""),
        headline=ev.get("headline") or ev.get("summary") or "",
        label=ev.get("label"),
        tone=ev.get("tone") or "neutral",
        tentative=not ((ev.get("outcome_knowledge") or {}).get(ev.get("target") or "") or {}).get("on_record", True),
        target_label=ev.get("target_label") or ev.get("target") or "",
        probability=_probability_text(prob, ev),
        method=_method_text(prob),
        remedy_text=ev.get("remedy_text"),
        distributions=_spreads(prob),
        applicable_law=ev.get("applicable_law"),
        question=(question or {}).get("question") if isinstance(question, dict) else None,
        message=state.get("message") or None,
        reasons=_reasons(ev),
        missing=[m.get("label") for m in ev.get("missing") or []],
        set_aside=ev.get("set_aside_rules") or [],
        posterior=posterior,
        eig=eig,
        proof_title=wording.PROOF_TITLE.get(str(target_status), wording.PROOF_TITLE["unknown"]),
        proof=proof,
        facts=facts,
        documents=_cited(documents, proof, facts),
    )
