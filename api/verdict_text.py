"""Terminal rendering of a typed verdict: status, checks in order, proof, why-not, questions."""

from __future__ import annotations

from lexlogic.engine.verdict_model import Verdict, VerdictStatus

_MARK = {"yes": "OUI", "no": "NON", "unknown": "INCONNU"}
_STATUS = {
    VerdictStatus.VERDICT: "verdict",
    VerdictStatus.NEEDS_INFORMATION: "information nécessaire",
    VerdictStatus.INCONSISTENT: "faits incohérents",
}


def _euros(x: float) -> str:
    return f"{x:,.0f} €".replace(",", " ")


def render_verdict(v: Verdict) -> str:
    lines: list[str] = [f"Affaire {v.case_id} — pack {v.pack}", f"VERDICT : {v.label.value}", v.summary]
    if v.applicable_law:
        lines.append(f"Texte appliqué : {v.applicable_law}")
    lines += ["", "Contrôles (fins de non-recevoir d'abord) :"]
    for c in v.checks:
        flag = "  ← décisif" if c.id == v.decisive_check else ""
        lines.append(f"  [{_MARK[c.status]:>7}] {c.label}{flag}")
        o = v.outcomes.get(c.outcome)
        if o is not None and o.status == "unknown":
            if o.missing:
                lines.append(f"            faits manquants : {', '.join(o.missing)}")
            for r in o.open_reasons:
                lines.append(f"            ouvert : {r}")
    if v.remedy_range:
        lines.append(f"  Dommages-intérêts : {_euros(v.remedy_range[0])} – {_euros(v.remedy_range[1])}")
    target = v.outcomes.get(v.target)
    if v.proof is not None and target is not None and target.status == "yes":
        lines += ["", "Preuve :", v.proof.render(1)]
    if v.why_not is not None:
        lines.append("")
        if target is not None and target.status == "unknown":
            lines.append("Issue ouverte — l'une des complétions possibles des faits manquants :")
        else:
            lines.append("Pourquoi pas (conclusion principale) :")
        lines.append(v.why_not.render(1))
    p = v.probability
    lines.append("")
    if p.p_target is not None:
        by = ", ".join(f"{k}: {'—' if x is None else f'{x:.3f}'}" for k, x in p.p_target_by_narrative.items())
        lines.append(
            f"Statut : {_STATUS[v.status]} — P({v.target}) = {p.p_target:.3f}"
            + (f" ± {p.error:.3f}" if p.error else "")
            + f" [{p.method}, {p.n_worlds} mondes]"
            + (f" ; par récit : {by}" if by else "")
        )
    else:
        lines.append(f"Statut : {_STATUS[v.status]}")
    for c in p.collapsed:
        lines.append(f"Récit {c.narrative.value} écarté (probabilité {c.probability:.4f} < {c.epsilon})")
    if v.questions:
        lines.append("Questions classées par information attendue / coût :")
        for q in v.questions[:5]:
            eig = f"EIG {q.eig:.3f} bit, " if q.eig is not None else ""
            util = f", utilité {q.utility:.3f}" if q.utility is not None else ""
            lines.append(f"  - [{q.fact}] {q.question}  ({eig}coût {q.cost:g}{util})")
    return "\n".join(lines)
