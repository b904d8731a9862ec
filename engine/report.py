"""The HTML report of a case: verdict, proof tree, posterior per narrative, EIG ranking (inline SVG,
no CDN), the facts with links to their exact spans, and every cited document with those spans
highlighted. Self-contained: one file that opens offline.

Span anchors: each grounding span gets an id ``span-N``; the document text is cut at every span
boundary and each piece is wrapped in ``<mark class="span-N span-M">`` for the spans covering it, so
overlapping spans stay exact (the test re-joins the pieces and compares with the document text).
"""

from __future__ import annotations

import html
from typing import Any

from jinja2 import Environment, select_autoescape

from lexlogic.engine.documents.model import Document

TEMPLATE = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>lexlogic — {{ case_id }}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
h1{font-size:1.5em} .verdict{padding:1em;border-radius:6px;background:#eef}
.liable{background:#fde8e8} .notliable{background:#e8f7e8}
ul.proof{list-style:none;padding-left:1.2em} .holds{color:#176f2c} .fails{color:#a11}
.kind{font-size:.8em;color:#666} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
pre.doc{white-space:pre-wrap;background:#fafafa;border:1px solid #ddd;padding:1em;font-size:.9em}
mark{background:#fff3a8} mark:target,mark.hl{background:#ffb347}
</style></head><body>
<h1>Analyse — {{ case_id }}</h1>
<section class="verdict {{ verdict_class }}" id="verdict">
<h2>Verdict : {{ verdict.label }}</h2>
<p>{{ verdict.summary or "" }}</p>
<p>P(responsabilité) = {{ "%.2f"|format(verdict.probability or 0) }} — statut : <b>{{ status }}</b>{% if message %} — {{ message }}{% endif %}</p>
{% if verdict.damages_range_eur %}<p>Dommages-intérêts (fourchette) : {{ verdict.damages_range_eur|join(" – ") }} €</p>{% endif %}
{% if verdict.applicable_law %}<p>Texte applicable : {{ verdict.applicable_law }}</p>{% endif %}
{% if question %}<p><b>Question en attente :</b> {{ question.question }} ({{ question.fact }})</p>{% endif %}
<p class="kind">{{ method }}</p>
</section>
<h2>Postérieur par récit</h2>{{ posterior_svg|safe }}
<h2>Questions classées par gain d'information attendu (EIG)</h2>{{ eig_svg|safe }}
<h2>Arbre de preuve</h2>{{ proof_html|safe }}
<h2>Faits retenus</h2>
<table id="facts"><tr><th>Fait</th><th>Valeur</th><th>Récit</th><th>Confiance</th><th>Sources</th></tr>
{% for f in facts %}<tr class="fact" data-fact="{{ f.name }}"><td>{{ f.name }}</td><td>{{ f.value }}</td><td>{{ f.world }}</td><td>{{ f.confidence }}</td>
<td>{% for g in f.links %}<a class="ground" href="#{{ g.anchor }}" data-doc="{{ g.doc }}" data-start="{{ g.start }}" data-end="{{ g.end }}" data-quote="{{ g.quote }}">{{ g.doc }}{% if g.page %} p.{{ g.page }}{% endif %} [{{ g.start }}:{{ g.end }}]</a><br>{% endfor %}
{% for n in f.other %}<span class="kind">{{ n }}</span><br>{% endfor %}</td></tr>{% endfor %}
</table>
<h2>Pièces citées</h2>
{% for d in documents %}<section class="document" id="doc-{{ d.id }}"><h3>{{ d.id }} — {{ d.title or "" }} <span class="kind">({{ d.kind }}, {{ d.media_type }})</span></h3>
<pre class="doc" data-doc="{{ d.id }}">{{ d.body|safe }}</pre></section>{% endfor %}
</body></html>"""


def _bars(items: list[tuple[str, float]], unit: str = "", vmax: float | None = None) -> str:
    if not items:
        return "<p class='kind'>(aucune donnée)</p>"
    vmax = vmax or max(v for _, v in items) or 1.0
    h, w, lw = 22, 560, 260
    rows = []
    for i, (label, v) in enumerate(items):
        y = i * h + 4
        bw = max(1.0, (w - lw - 70) * v / vmax)
        rows.append(
            f"<text x='0' y='{y + 14}' font-size='12'>{html.escape(label[:42])}</text>"
            f"<rect x='{lw}' y='{y}' width='{bw:.1f}' height='{h - 6}' fill='#4a6fa5'/>"
            f"<text x='{lw + bw + 5:.1f}' y='{y + 14}' font-size='12'>{v:.3f}{unit}</text>"
        )
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' width='{w}' height='{len(items) * h + 8}' "
        f"role='img'>{''.join(rows)}</svg>"
    )


class _Spans:
    """Allocates one anchor per distinct (document, start, end)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, int, int], str] = {}

    def anchor(self, doc: str, start: int, end: int) -> str:
        return self.ids.setdefault((doc, start, end), f"span-{len(self.ids)}")


def _link(spans: _Spans, g: dict[str, Any], docs: dict[str, Document]) -> dict[str, Any] | None:
    if g.get("kind", "document") != "document" or g.get("document_id") not in docs or g.get("char_start") is None:
        return None
    return {
        "anchor": spans.anchor(g["document_id"], g["char_start"], g["char_end"]),
        "doc": g["document_id"],
        "start": g["char_start"],
        "end": g["char_end"],
        "page": g.get("page"),
        "quote": g.get("quote", ""),
    }


def _proof_html(node: dict[str, Any] | None, spans: _Spans, docs: dict[str, Document]) -> str:
    if not node:
        return "<p class='kind'>(pas d'arbre de preuve)</p>"
    cls = "holds" if node.get("holds", True) else "fails"
    mark = "✔" if node.get("holds", True) else "✘"
    value = node.get("value")
    val = "" if value in (None, True) else f" = {html.escape(str(value))}"
    src = "".join(f"<div class='kind'>§ {html.escape(s.get('reference', ''))}</div>" for s in node.get("sources", []))
    links = []
    for g in node.get("grounding", []):
        link = _link(spans, g, docs)
        if link:
            links.append(
                f"<a class='ground' href='#{link['anchor']}' data-doc='{link['doc']}' "
                f"data-start='{link['start']}' data-end='{link['end']}'>↳ {html.escape(link['doc'])} "
                f"«{html.escape(link['quote'][:80])}»</a>"
            )
        elif g.get("note") or g.get("kind"):
            links.append(
                f"<span class='kind'>↳ {html.escape(str(g.get('kind')))} {html.escape(str(g.get('note') or ''))}</span>"
            )
    kids = "".join(_proof_html(c, spans, docs) for c in node.get("children", []))
    note = f" <span class='kind'>{html.escape(node['note'])}</span>" if node.get("note") else ""
    return (
        f"<ul class='proof'><li class='{cls}'>{mark} {html.escape(node.get('label') or node.get('atom', ''))}{val} "
        f"<span class='kind'>[{html.escape(str(node.get('kind', 'rule')))}"
        f"{(' ' + html.escape(node['rule_id'])) if node.get('rule_id') else ''}]</span>{note}{src}"
        f"{'<br>'.join([''] + links)}{kids}</li></ul>"
    )


def _highlight(doc: Document, spans: _Spans) -> str:
    mine = [(s, e, a) for (d, s, e), a in spans.ids.items() if d == doc.id]
    cuts = sorted({0, len(doc.text), *[s for s, _, _ in mine], *[e for _, e, _ in mine]})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        covering = [anc for s, e, anc in mine if s <= a and b <= e]
        piece = html.escape(doc.text[a:b])
        if covering:
            ids = " ".join(anc for s, e, anc in mine if s == a and anc in covering)
            first = "".join(f"<a id='{anc}'></a>" for s, e, anc in mine if s == a and anc in covering)
            out.append(f"{first}<mark class='{' '.join(covering)}' data-start='{a}' data-end='{b}'>{piece}</mark>")
            del ids
        else:
            out.append(piece)
    return "".join(out)


def render_report(state: dict[str, Any], documents: list[Document]) -> str:
    docs = {d.id: d for d in documents}
    spans = _Spans()
    ev = state.get("evaluation") or {}  # the typed Verdict, serialised
    prob = ev.get("probability") or {}
    verdict = {
        "label": ev.get("label") or state.get("status", "?"),
        "summary": ev.get("summary"),
        "probability": prob.get("p_target") or 0.0,
        "damages_range_eur": ev.get("remedy_range"),
        "applicable_law": ev.get("applicable_law"),
        "liable": ev.get("label") == "LIABLE",
    }
    facts = []
    for name, fv in ((state.get("case_file") or {}).get("facts") or {}).items():
        readings = [fv, *fv.get("alternatives", [])] if isinstance(fv, dict) else [{"value": fv}]
        for r in readings:
            links, other = [], []
            for g in r.get("grounding", []):
                link = _link(spans, g, docs)
                links.append(link) if link else other.append(f"{g.get('kind')}: {g.get('note') or ''}")
            facts.append(
                {
                    "name": name,
                    "value": r.get("value"),
                    "world": r.get("world", "SHARED"),
                    "confidence": r.get("confidence", 1.0),
                    "links": links,
                    "other": other,
                }
            )
    for name, value in (state.get("answers") or {}).items():
        facts.append(
            {
                "name": name,
                "value": value,
                "world": "SHARED",
                "confidence": 1.0,
                "links": [],
                "other": ["réponse de l'utilisateur"],
            }
        )
    proof_html = _proof_html(ev.get("proof") or ev.get("why_not"), spans, docs)
    posterior = [("P(conclusion principale)", float(prob["p_target"]))] if prob.get("p_target") is not None else []
    posterior += [(f"{w} (P récit)", float(p)) for w, p in (prob.get("p_narrative") or {}).items()]
    posterior += [
        (f"{w} : P(responsabilité | récit)", float(p))
        for w, p in (prob.get("p_target_by_narrative") or {}).items()
        if p is not None
    ]
    eig = [(f"{q['fact']}", float(q.get("eig", 0.0))) for q in (ev.get("questions") or [])]
    cited = [d for d in documents if any(k[0] == d.id for k in spans.ids)]
    env = Environment(autoescape=select_autoescape(default=True))
    return env.from_string(TEMPLATE).render(
        case_id=state.get("case_id"),
        verdict=verdict,
        status=state.get("status"),
        message=state.get("message"),
        verdict_class="liable" if verdict.get("liable") else "notliable",
        method=prob.get("method", ""),
        question=state.get("pending_question"),
        posterior_svg=_bars(posterior, vmax=1.0),
        eig_svg=_bars(eig, " bit"),
        proof_html=proof_html,
        facts=facts,
        documents=[
            {
                "id": d.id,
                "title": d.title,
                "kind": d.kind.value,
                "media_type": d.media_type,
                "body": _highlight(d, spans),
            }
            for d in cited
        ],
    )
