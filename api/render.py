"""Terminal rendering of an analysis: verdict, checks in order, proofs, why-not, questions."""

from __future__ import annotations

from typing import Any

from lexlogic.engine.analysis import Analysis

_MARK = {"yes": "OUI", "no": "NON", "unknown": "INCONNU"}


def render_analysis(result: Analysis, prob: Any = None) -> str:
    lines: list[str] = []
    lines.append(f"Affaire {result.case_id} — pack {result.pack}")
    lines.append(f"VERDICT : {result.verdict}")
    lines.append(result.summary)
    if result.applicable_law:
        lines.append(f"Texte appliqué : {result.applicable_law}")
    lines.append("")
    lines.append("Contrôles (fins de non-recevoir d'abord) :")
    for c in result.checks:
        flag = "  ← décisif" if c.id == result.decisive_check else ""
        lines.append(f"  [{_MARK[c.status]:>7}] {c.label}{flag}")
        o = result.outcomes.get(c.outcome)
        if o is not None and o.status == "unknown":
            if o.missing:
                lines.append(f"            faits manquants : {', '.join(o.missing)}")
            for r in o.open_reasons:
                lines.append(f"            ouvert : {r}")
    dmg = result.outcomes.get(result.remedy) if result.remedy else None
    if dmg is not None and dmg.value:
        lines.append(f"  Dommages-intérêts : {dmg.value[0]:,.0f} € – {dmg.value[1]:,.0f} €".replace(",", " "))
    main = result.outcomes.get(next(iter(result.outcomes), ""), None)
    if main is not None and main.proof is not None and main.status == "yes":
        lines.append("")
        lines.append("Preuve :")
        lines.append(main.proof.render(1))
    if result.why_not is not None:
        lines.append("")
        if main is not None and main.status == "unknown":
            lines.append("Issue ouverte — l'une des complétions possibles des faits manquants :")
        else:
            lines.append("Pourquoi pas (conclusion principale) :")
        lines.append(result.why_not.render(1))
    if result.questions and prob is None:
        lines.append("")
        lines.append("Questions à poser (faits manquants décisifs) :")
        for q in result.questions:
            lines.append(f"  - [{q['fact']}] {q['question']} (coût {q['cost']})")
    return "\n".join(lines)
