"""A pack's rule table in Markdown: each rule next to its legal source and validity dates.

Generated from the files themselves (`lexlogic docs rules/PACK`), so it cannot drift from the rules;
the test suite checks that the committed RULES.md is current.
"""

from __future__ import annotations

from pathlib import Path

from lexlogic.engine.packs.library import load_folder
from lexlogic.logic.parameters import render


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def pack_table(root: Path) -> str:
    """RULES.md: checks, rules, computations, parameters, sources, burden defaults (labels rendered)."""
    loaded = load_folder(root)
    pack, program = loaded.pack, loaded.program
    lines = [
        f"# {pack.manifest.title} — règles, sources, validité",
        "",
        f"Pack `{pack.name}` version {pack.manifest.version} ({pack.manifest.jurisdiction}). "
        "Généré par `lexlogic docs` à partir des fichiers du pack : ne pas éditer à la main.",
        "",
        "Statut des sources : V = vue dans un commentaire publié ; M = de mémoire, à revérifier sur Légifrance / Judilibre.",
        "",
    ]
    for paragraph in pack.manifest.docs:  # the pack's own notes (versions of the text, …)
        lines += [render(paragraph, pack.parameters), ""]
    lines += [
        "## Ordre des contrôles",
        "",
        "| # | contrôle | conclusion | nature |",
        "|---|---|---|---|",
    ]
    for i, c in enumerate(pack.manifest.checks, start=1):
        lines.append(f"| {i} | {_cell(c.label)} | `{c.outcome}` | {c.kind} |")
    lines += ["", "## Règles ASP", "", "| règle | libellé | fichier | sources | en vigueur |", "|---|---|---|---|---|"]
    for rule in program.rules:
        if not rule.meta:
            continue
        m = rule.meta
        srcs = "; ".join(_cell(src.cite()) if (src := pack.source(s)) else s for s in m.sources)
        validity = f"{m.valid_from or '—'} → {m.valid_to or '—'}"
        lines.append(f"| `{m.id}` | {_cell(m.label)} | {Path(m.file).name}:{m.line} | {srcs} | {validity} |")
    lines += [
        "",
        "## Calculs JSON-Logic",
        "",
        "| calcul | valeur | libellé | entrées requises | sources |",
        "|---|---|---|---|---|",
    ]
    for comp in pack.computations:
        srcs = "; ".join(_cell(src.reference) if (src := pack.source(s)) else s for s in comp.sources)
        lines.append(
            f"| `{comp.id}` | `{comp.output}` | {_cell(comp.label)} | {', '.join(comp.inputs) or '—'} | {srcs} |"
        )
    lines += ["", "## Sources", "", "| id | référence | version | en vigueur | statut |", "|---|---|---|---|---|"]
    for sid, s in pack.manifest.sources.items():
        lines.append(
            f"| `{sid}` | {_cell(s.reference)} | {_cell(s.version or '—')} | "
            f"{s.valid_from or '—'} → {s.valid_to or '—'} | {s.status or '—'} |"
        )
    if pack.parameters:
        lines += [
            "",
            "## Paramètres datés (parameters.yaml)",
            "",
            "| paramètre | libellé | valeur | en vigueur | référence |",
            "|---|---|---|---|---|",
        ]
        for name, prm in pack.parameters.items():
            for period in sorted(prm.values, key=lambda q: str(q.valid_from or "")):
                src = pack.source(period.reference or prm.reference)
                lines.append(
                    f"| `{name}` | {_cell(prm.label)} | {_cell(prm.show(period.value))} | "
                    f"{period.valid_from or '—'} → {period.valid_to or '—'} | "
                    f"{_cell(src.reference) if src else period.reference or prm.reference} |"
                )
    lines += [
        "",
        f"## {pack.manifest.burden.title}",
        "",
        "| fait | valeur présumée | charge de la preuve |",
        "|---|---|---|",
    ]
    for name, f in pack.facts.items():
        if f.default is not None:
            lines.append(f"| `{name}` | {f.default} | {f.burden} |")
    return "\n".join(lines) + "\n"
