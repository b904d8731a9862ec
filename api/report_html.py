"""The HTML report (one self-contained file that opens offline and prints on A4) rendered from the
engine's ``ReportData``: markup, charts and where a lawyer reads a source live here, not in the engine.

Span anchors: each grounding span gets an id ``span-N``; the document text is cut at every span boundary
and each piece is wrapped in ``<mark class="span-N span-M">`` for the spans covering it, so overlapping
spans stay exact (a test re-joins the pieces and compares them with the document text).
"""

from __future__ import annotations

import html
from typing import Any

from jinja2 import Environment, select_autoescape

from lexlogic.api.sources import source_url
from lexlogic.engine.documents.model import Document
from lexlogic.engine.present.report import Bar, CitedDocument, Passage, ProofLine, ReportData, Spread, report_data
from lexlogic.engine.text import formatting
from lexlogic.logic.pack import RulePack

STYLE = """
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em;color:#1f2937;overflow-wrap:anywhere}
h1{font-size:1.35em;margin:.2em 0 .6em} h2{font-size:1.15em} h3{font-size:1em}
.verdict{padding:.8em 1em;border-radius:6px;background:#eef;border-left:6px solid #4a6fa5}
.verdict h2{margin:.1em 0 .4em;font-size:1.2em} .verdict p{margin:.3em 0}
.tone-red{background:#fde8e8;border-color:#b03030} .tone-green{background:#e8f7e8;border-color:#2c7a3c}
.tone-blue{background:#e8f0fd;border-color:#1d4ed8} .tone-neutral{background:#f1f5f9;border-color:#64748b}
.tone-open{background:#fff6dd;border-color:#8a6500} .verdict.tentative{border-left-style:dashed}
.prob{font-size:1.15em}
ul.proof{list-style:none;padding-left:1.1em;margin:.1em 0} .holds{color:#176f2c} .fails{color:#a11} .unknown{color:#7a5800} .tentative{color:#5a4a8a}
.kind{font-size:.85em;color:#4b5563}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%} td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
td.passages a{white-space:nowrap}
pre.doc{white-space:pre-wrap;overflow-wrap:anywhere;background:#fafafa;border:1px solid #ddd;padding:.8em;font-size:.88em}
mark{background:#fff3a8} mark:target,mark.hl{background:#ffb347}
ol.reasons{padding-left:1.3em} ol.reasons li{margin:.4em 0} ol.reasons ul{margin:.2em 0;color:#374151;font-size:.95em}
.charts{display:flex;flex-wrap:wrap;gap:1.5em} .charts>div{flex:1 1 300px;min-width:0}
svg.chart{width:100%;height:auto;max-width:560px}
a{color:#1d4ed8}
@media (max-width:600px){body{font-size:14px;padding:.6em} td,th{padding:2px 4px}
 table.facts thead{display:none} table.facts tr{display:block;border-bottom:1px solid #ccc;padding:.3em 0}
 table.facts td{display:block;border:0;padding:1px 0} table.facts td::before{content:attr(data-h) " : ";color:#4b5563}}
@page{size:A4;margin:15mm 12mm}
@media print{body{margin:0;max-width:none;padding:0;font-size:10.5pt} details{display:block} details>summary{display:none}
 .documents{break-before:page} a{color:inherit;text-decoration:none} .noprint{display:none}
 tr,li,.verdict{break-inside:avoid} svg.chart{max-width:16cm}}
"""

TEMPLATE = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ r.title }} — {{ r.case_id }}</title>
<style>{{ style|safe }}</style></head><body>
<h1>{{ r.title }} — affaire {{ r.case_id }}</h1>
<section class="verdict {{ verdict_class }}" id="verdict" aria-labelledby="headline">
<h2 id="headline">{{ r.status_text }} : {{ r.headline }}</h2>
{% if r.probability %}<p class="prob" id="probability">Probabilité ({{ r.target_label }}) : <b>{{ r.probability }}</b> <span class="kind">{{ r.method }}</span></p>{% endif %}
{% if r.remedy_text %}<p>{{ r.remedy_text }}</p>{% endif %}
{% for d in r.distributions %}<p>{{ d.text }}</p>{% endfor %}
{% if r.applicable_law %}<p>Texte applicable : {{ r.applicable_law }}</p>{% endif %}
{% if r.question %}<p id="question"><b>Question en attente :</b> {{ r.question }}</p>{% endif %}
{% if message %}<p class="kind">{{ message }}</p>{% endif %}
</section>
<h2>Motifs</h2>
<ol class="reasons" id="reasons">{% for x in r.reasons %}<li class="{{ x.css }}">{{ x.mark }} {{ x.sentence }}
{% if x.facts %}<ul>{% for f in x.facts %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}</li>{% endfor %}</ol>
{% if r.set_aside %}<p><b>Règles hors de leur période de validité (non appliquées) :</b></p><ul id="set-aside">{% for x in r.set_aside %}<li>{{ x }}</li>{% endfor %}</ul>{% endif %}
{% if r.missing %}<p><b>Ce qui manque :</b> {{ r.missing|join("; ") }}</p>{% endif %}
<h2>Graphiques</h2>
<div class="charts"><div><h3>Probabilité par récit</h3>{{ posterior_svg|safe }}</div>
<div><h3>Questions classées par gain d'information attendu</h3>{{ eig_svg|safe }}</div>
{% if distribution_svg %}<div><h3>Distributions (p10 – médiane – p90)</h3>{{ distribution_svg|safe }}</div>{% endif %}</div>
<details id="proof"><summary>{{ r.proof_title }}</summary>{{ proof_html|safe }}
{% if sources %}<h3>Sources</h3><ol>{% for s in sources %}<li id="source-{{ loop.index }}">{% if s.url %}<a href="{{ s.url }}">{{ s.cite }}</a>{% else %}{{ s.cite }}{% endif %}</li>{% endfor %}</ol>{% endif %}
</details>
<h2>Faits</h2>
<div class="table-wrap"><table id="facts" class="facts"><thead><tr><th>Fait</th><th>Valeur</th><th>Statut</th><th>Allégué par</th><th>Passages</th></tr></thead><tbody>
{% for f in facts %}<tr class="fact" data-fact="{{ f.name }}"><td data-h="Fait">{{ f.label }}</td><td data-h="Valeur">{{ f.value }}</td><td data-h="Statut">{{ f.status }}</td><td data-h="Allégué par">{{ f.by }}</td>
<td class="passages" data-h="Passages">{% for g in f.groups %}{% if not loop.first %}<br>{% endif %}{% if g.links|length == 1 %}<a class="ground" href="#{{ g.links[0].anchor }}" data-doc="{{ g.links[0].doc }}" data-start="{{ g.links[0].start }}" data-end="{{ g.links[0].end }}" data-quote="{{ g.links[0].quote }}" title="« {{ g.links[0].quote }} »">{{ g.where }}</a>{% else %}{{ g.where }} : passages{% for x in g.links %} <a class="ground" href="#{{ x.anchor }}" data-doc="{{ x.doc }}" data-start="{{ x.start }}" data-end="{{ x.end }}" data-quote="{{ x.quote }}" title="« {{ x.quote }} »">{{ loop.index }}</a>{% endfor %}{% endif %}{% endfor %}</td></tr>
{% endfor %}</tbody></table></div>
<section class="documents"><h2>Pièces citées</h2>
{% for d in documents %}<section class="document" id="doc-{{ d.id }}"><h3>{{ d.id }} — {{ d.title or "" }} <span class="kind">({{ d.kind }}, {{ d.media_type }})</span></h3>
<pre class="doc" data-doc="{{ d.id }}">{{ d.body|safe }}</pre></section>{% endfor %}</section>
</body></html>"""


class _Spans:
    """Allocates one anchor per distinct (document, start, end)."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, int, int], str] = {}

    def anchor(self, p: Passage) -> dict[str, Any]:
        a = self.ids.setdefault((p.doc, p.start, p.end), f"span-{len(self.ids)}")
        return {"anchor": a, "doc": p.doc, "start": p.start, "end": p.end, "page": p.page, "quote": p.quote}


class _ProofHtml:
    """The proof tree in HTML: each shared subtree once, sources as numbered notes, no identifiers."""

    def __init__(self, spans: _Spans) -> None:
        self.spans = spans
        self.sources: dict[str, dict[str, Any]] = {}
        self.seen: set[str] = set()

    def note(self, cite: str, url: str | None) -> int:
        if cite not in self.sources:
            self.sources[cite] = {"cite": cite, "url": url, "n": len(self.sources) + 1}
        return int(self.sources[cite]["n"])

    def html(self, node: ProofLine | None) -> str:
        if node is None:
            return "<p class='kind'>(pas d'arbre de preuve)</p>"
        label = html.escape(node.label)
        if node.key in self.seen and node.children:
            return f"<ul class='proof'><li class='{node.css}'>{node.mark} {label} <span class='kind'>(voir plus haut)</span></li></ul>"
        self.seen.add(node.key)
        notes = "".join(
            f"<sup><a href='#source-{n}'>[{n}]</a></sup>"
            for s in node.sources
            for n in [self.note(s.cite, source_url(s.reference, s.kind, s.url))]
        )
        warn = f" <span class='kind'>({html.escape(node.note)})</span>" if node.note else ""
        links = []
        for p in node.passages:
            link = self.spans.anchor(p)
            links.append(
                f"<a class='ground' href='#{link['anchor']}' data-doc='{html.escape(p.doc)}' "
                f"data-start='{p.start}' data-end='{p.end}'>↳ {html.escape(p.doc)} « {html.escape(p.quote[:80])} »</a>"
            )
        links += [f"<span class='kind'>↳ {html.escape(n)}</span>" for n in node.notes]
        kids = "".join(self.html(c) for c in node.children)
        return (
            f"<ul class='proof'><li class='{node.css}'>{node.mark} {label}{notes}{warn}"
            f"{'<br>'.join([''] + links)}{kids}</li></ul>"
        )


def _highlight(doc: CitedDocument, spans: _Spans) -> str:
    mine = [(s, e, a) for (d, s, e), a in spans.ids.items() if d == doc.id]
    cuts = sorted({0, len(doc.text), *[s for s, _, _ in mine], *[e for _, e, _ in mine]})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        covering = [anc for s, e, anc in mine if s <= a and b <= e]
        piece = html.escape(doc.text[a:b])
        if covering:
            first = "".join(f"<a id='{anc}'></a>" for s, e, anc in mine if s == a and anc in covering)
            out.append(f"{first}<mark class='{' '.join(covering)}' data-start='{a}' data-end='{b}'>{piece}</mark>")
        else:
            out.append(piece)
    return "".join(out)


def _bars_svg(items: list[Bar], unit: str = "", vmax: float | None = None) -> str:
    if not items:
        return "<p class='kind'>(aucune donnée)</p>"
    vmax = vmax or max(b.value for b in items) or 1.0
    h, w, lw = 22, 560, 260
    rows = []
    for i, b in enumerate(items):
        y = i * h + 4
        bw = max(1.0, (w - lw - 70) * b.value / vmax)
        short = b.label if len(b.label) <= 40 else b.label[:39] + "…"
        rows.append(
            f"<text x='0' y='{y + 14}' font-size='12'><title>{html.escape(b.label)}</title>{html.escape(short)}</text>"
            f"<rect x='{lw}' y='{y}' width='{bw:.1f}' height='{h - 6}' fill='#4a6fa5'/>"
            f"<text x='{lw + bw + 5:.1f}' y='{y + 14}' font-size='12'>{formatting.number(b.value, 3)}{unit}</text>"
        )
    height = len(items) * h + 8
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' viewBox='0 0 {w} {height}' width='{w}' "
        f"height='{height}' role='img' aria-label='{html.escape('; '.join(b.label for b in items))}'>{''.join(rows)}</svg>"
    )


def _spreads_svg(items: list[Spread]) -> str:
    if not items:
        return ""
    rows, w, lw = [], 560, 250
    for i, d in enumerate(items):
        y, scale = i * 34 + 6, (w - lw - 20) / (d.p90 or 1.0)
        rows.append(
            f"<text x='0' y='{y + 14}' font-size='12'>{html.escape(d.label)}</text>"
            f"<line x1='{lw + d.p10 * scale:.1f}' x2='{lw + d.p90 * scale:.1f}' y1='{y + 10}' y2='{y + 10}' "
            f"stroke='#4a6fa5' stroke-width='6'/><circle cx='{lw + d.p50 * scale:.1f}' cy='{y + 10}' r='6' fill='#b03030'/>"
        )
    height = len(items) * 34 + 8
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' viewBox='0 0 {w} {height}' width='{w}' "
        f"height='{height}' role='img' aria-label='distributions'>{''.join(rows)}</svg>"
    )


def _fact_groups(data: ReportData, spans: _Spans) -> list[dict[str, Any]]:
    """Each fact's passages grouped by document and page: the place named once, then numbered links."""
    rows = []
    for f in data.facts:
        groups: dict[tuple[str, int | None], list[dict[str, Any]]] = {}
        for p in f.passages:
            link = spans.anchor(p)
            if all(x["anchor"] != link["anchor"] for x in groups.get((p.doc, p.page), [])):
                groups.setdefault((p.doc, p.page), []).append(link)
        shown = [
            {"where": f"{doc}{f' p. {page}' if page else ''}", "links": links} for (doc, page), links in groups.items()
        ]
        rows.append({**f.model_dump(), "groups": shown})
    return rows


def render_html(data: ReportData) -> str:
    """The report page of ``data`` (the engine's words and figures), self-contained."""
    spans = _Spans()
    prover = _ProofHtml(spans)
    proof_html = prover.html(data.proof)
    facts = _fact_groups(data, spans)
    message = data.message
    if message and data.question and (data.question in message or message in data.question):
        message = None  # the question is said once
    documents = [
        {**d.model_dump(), "body": _highlight(d, spans)} for d in data.documents if any(k[0] == d.id for k in spans.ids)
    ]
    env = Environment(autoescape=select_autoescape(default=True))
    return env.from_string(TEMPLATE).render(
        r=data,
        style=STYLE,
        verdict_class=f"tone-{data.tone}" + (" tentative" if data.tentative else ""),  # the pack's polarity
        message=message,
        posterior_svg=_bars_svg(data.posterior, vmax=1.0),
        eig_svg=_bars_svg(data.eig, " bit"),
        distribution_svg=_spreads_svg(data.distributions),
        proof_html=proof_html,
        sources=sorted(prover.sources.values(), key=lambda s: int(s["n"])),
        facts=facts,
        documents=documents,
    )


def render_report(state: dict[str, Any], documents: list[Document], pack: RulePack | None = None) -> str:
    """The report of a run's state (its persisted Verdict): printable, offline, never stronger than the verdict.
    ``pack``: the verdict's pack (its labels in the proof)."""
    return render_html(report_data(state, documents, pack))
