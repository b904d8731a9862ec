"""The verdict for a terminal: short by default (what a lawyer reads in one minute), the whole proof on
``--proof`` — each shared subtree once, legal sources as numbered notes, grounding merged per document.
Identifiers (rule ids, fact names) appear only with ``--debug``."""

from __future__ import annotations

from lexlogic.engine.text import formatting
from lexlogic.engine.text.inference_words import method_phrase
from lexlogic.engine.verdict.model import Verdict
from lexlogic.engine.verdict.wording import (
    PROOF_TITLE,
    Reason,
    assumes_open,
    evidence_of,
    open_facts,
    proof_mark,
    unestablished,
)
from lexlogic.logic.pack import RulePack
from lexlogic.logic.proof import NodeKind, ProofNode

MARK = {"établi": "✔", "non établi": "✘", "indéterminé": "?", "à apprécier par le juge": "⚖"}
TENTATIVE_MARK = "◇"  # holds (or fails) only on the machine's readings or an interpretation: to be confirmed


def _probability_line(v: Verdict) -> str | None:
    p = v.probability
    if p.p_target is None:
        return None
    name = v.target_label or v.target
    if p.unweighed and 0.0 < p.p_target < 1.0:  # a percentage would weigh what the model cannot weigh
        labels = [pack_label(v, f) for f in p.unweighed]
        return f"  Probabilité ({name}) : non chiffrée en l'état — rien pour peser : {', '.join(labels)}"
    how = method_phrase(p.model_dump(mode="json"))  # a sampled P is « estimée par échantillonnage (± x) »
    return f"  Probabilité ({name}) : {formatting.probability(p.p_target)} {how}".rstrip()


def pack_label(v: Verdict, fact: str) -> str:
    """A fact's label as the verdict's facts table or missing list words it (its name otherwise)."""
    labels = {r.fact: r.label for r in v.facts} | {m.fact: m.label for m in v.missing}
    if fact in labels:
        return labels[fact][:1].lower() + labels[fact][1:]
    return fact.replace("_", " ")


def _distribution_lines(v: Verdict) -> list[str]:
    """The number distributions, named by the pack's outputs (their label and unit)."""
    out = []
    for d in v.probability.distributions:
        if d is None or d.p10 is None or d.p50 is None or d.p90 is None:
            continue

        def fmt(x: float, unit: str = d.unit) -> str:
            return formatting.money_estimate(x) if unit == "EUR" else formatting.value(None, x, unit)

        out.append(
            f"  {d.label or 'Distribution'} : médiane {fmt(d.p50)} (8 chances sur 10 entre {fmt(d.p10)} et {fmt(d.p90)})"
        )
    return out


def _reason_lines(r: Reason, debug: bool) -> list[str]:
    tag = f"  [{r.check}]" if debug else ""
    mark = "–" if r.check == "defeaters" else MARK.get(r.state, TENTATIVE_MARK)
    lines = [f"  {mark} {r.sentence}{tag}"]
    for f in r.facts:
        lines.append(f"      · {f.text()}" + (f"  [{f.fact}]" if debug else ""))
    return lines


def render_verdict(v: Verdict, pack: RulePack | None = None, *, proof: bool = False, debug: bool = False) -> str:
    """The default view (≤ 60 lines for a case like the example); the full proof with ``proof=True``."""
    title = pack.manifest.title if pack is not None else v.pack
    lines: list[str] = [f"{title} — affaire {v.case_id}"]
    if v.applicable_law:
        lines.append(f"Texte applicable : {v.applicable_law}")
    lines += ["", f"{v.status_text.upper() or v.status.value} : {v.headline or v.summary}"]
    for extra in (_probability_line(v), v.remedy_text and f"  {v.remedy_text}"):
        if extra:
            lines.append(extra)
    lines += _distribution_lines(v)
    if len(v.worlds) > 1:
        lines.append(
            "  Selon les récits : "
            + " ; ".join(
                f"{'demanderesse' if w.world.value == 'NARRATIVE_A' else 'défense' if w.world.value == 'NARRATIVE_B' else 'commun'}"
                f" {formatting.probability(w.weight)}"
                + (f" (P {formatting.probability(w.p_target)})" if w.p_target is not None else "")
                for w in v.worlds
            )
        )
    lines += ["", "Motifs :"]
    for r in v.reasons:
        lines += _reason_lines(r, debug)
    if v.set_aside_rules:
        lines += ["", "Règles hors de leur période de validité (non appliquées) :"]
        lines += [f"  – {r}" for r in v.set_aside_rules]
    if v.missing:
        lines += ["", "Ce qui manque : " + "; ".join(m.label for m in v.missing[:6])]
    if v.best_question is not None:
        q = v.best_question
        eig = f" (gain d'information attendu {formatting.number(q.eig, 3)} bit)" if q.eig else ""
        lines.append(f"Question suivante : {q.question}{eig}" + (f"  [{q.fact}]" if debug else ""))
    if proof:
        status = v.outcomes[v.target].status if v.target in v.outcomes else "unknown"
        tree = v.proof if v.proof is not None and status == "yes" else v.why_not
        lines += ["", PROOF_TITLE.get(status, PROOF_TITLE["unknown"]) + " :"]
        if tree is not None:
            still_open = open_facts(v.values) if status == "unknown" else None
            lines += render_proof(tree, pack, debug=debug, open_facts=still_open, shaky=unestablished(v))
    else:
        lines += ["", "(preuve complète : --proof)"]
    return "\n".join(lines)


def _node_text(n: ProofNode, pack: RulePack | None) -> str:
    label = n.label or (pack.label_of(n.atom) if pack is not None else n.atom)
    if label.startswith("absence de : "):
        absent = label[len("absence de : ") :]
        if pack is not None and absent == n.atom.removeprefix("not "):  # a bare identifier: its label
            absent = pack.label_of(absent)
        label = "Aucun élément n'établit : " + absent
    name = n.atom.split("(")[0]
    spec = pack.facts.get(name) if pack is not None else None
    if n.value is None or n.value is True:
        return label
    param = pack.parameters.get(name) if pack is not None and pack.parameters else None
    if param is not None:  # a legal parameter: its value with its unit (« 12 mois »), its period in the note
        return f"{label} : {param.show(n.value)}"
    unit = _computed_unit(pack, name) if spec is None else None
    if unit is not None:
        shown = formatting.value(None, n.value, unit)
    elif isinstance(n.value, float) and spec is None:
        shown = formatting.number(n.value)
    else:
        shown = formatting.value(spec, n.value)
    return f"{label} : {shown}"


KIND_NOTE = {
    NodeKind.DYNAMIC: " (interprétation d'une règle dynamique, pas une règle de droit)",
    NodeKind.REPAIR: " (réparation de typage, pas une donnée)",
    NodeKind.MISSING: " (fait manquant)",
}


def _computed_unit(pack: RulePack | None, name: str) -> str | None:
    """The unit a computed value is written with, from its computation's declared type."""
    if pack is None:
        return None
    comp = next((c for c in pack.computations if c.output == name), None)
    kind = getattr(getattr(comp, "type", None), "value", getattr(comp, "type", None))
    return {"months": "mois", "amount": "EUR", "percent": "%"}.get(str(kind)) if comp is not None else None


def _kind_note(n: ProofNode, pack: RulePack | None) -> str:
    """What kind of leaf this is; a missing fact that is the judge's appreciation is not a missing fact."""
    if n.kind is NodeKind.MISSING and pack is not None:
        spec = pack.facts.get(n.atom.split("(")[0])
        if spec is not None and spec.appreciation:
            return " (à apprécier par le juge)"
    return KIND_NOTE.get(n.kind, "")


def render_proof(
    tree: ProofNode,
    pack: RulePack | None = None,
    *,
    debug: bool = False,
    open_facts: set[str] | None = None,
    shaky: set[str] | None = None,
) -> list[str]:
    """The whole tree once: a subtree already printed is referred to, sources are numbered notes.

    ``open_facts``: for a conclusion that is not established, the facts still unknown; the tree is then one
    possible reading, and a leaf that assumes how an open fact turns out is marked « ? », never ✔.
    ``shaky``: what holds only on readings (``wording.unestablished``): marked « ◇ », never ✔ or ✘."""
    sources: dict[str, int] = {}
    printed: dict[str, int] = {}
    lines: list[str] = []

    def key(n: ProofNode) -> str:
        return f"{n.atom}|{n.holds}|{n.rule_id}|{n.kind.value}"

    def visit(n: ProofNode, depth: int) -> None:
        pad = "  " * (depth + 1)
        mark = proof_mark(n, open_facts, shaky)[0]
        k = key(n)
        if k in printed and n.children:
            lines.append(f"{pad}{mark} {_node_text(n, pack)} (voir plus haut, ligne {printed[k]})")
            return
        refs = []
        for s in n.sources:
            refs.append(sources.setdefault(s.cite(), len(sources) + 1))
        note = "".join(f"[{r}]" for r in refs)
        ident = f"  [{n.rule_id or n.atom}]" if debug else ""
        hyp = (
            " (hypothèse : point encore ouvert)"
            if n.kind is NodeKind.ASSUMPTION and assumes_open(n, open_facts)
            else ""
        )
        lines.append(f"{pad}{mark} {_node_text(n, pack)}{_kind_note(n, pack)}{hyp} {note}".rstrip() + ident)
        printed[k] = len(lines)
        read = n.kind is NodeKind.FACT and n.atom.split("(")[0] in (shaky or set())
        for e in evidence_of(n):
            said = f"lu dans {e.text()} (à confirmer)" if read and e.document else e.text()
            lines.append(f"{pad}    ↳ {said}")
        if n.note and n.kind is not NodeKind.RULE:
            lines.append(f"{pad}    ({n.note})")
        for child in n.children:
            visit(child, depth + 1)

    visit(tree, 0)
    if sources:
        lines += ["", "Sources :"] + [f"  [{i}] {cite}" for cite, i in sources.items()]
    return lines
