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
from urllib.parse import quote_plus

from jinja2 import Environment, select_autoescape

from lexlogic.engine import formatting, wording
from lexlogic.engine.documents.model import Document
from lexlogic.engine.verdict_service import load_pack

TEMPLATE = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>{{ title }} — {{ case_id }}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.4}
h1{font-size:1.5em} .verdict{padding:1em 1.2em;border-radius:6px;background:#eef;border-left:6px solid #4a6fa5}
.verdict-holds{background:#fde8e8;border-color:#b03030} .verdict-fails{background:#e8f7e8;border-color:#2c7a3c}
.open{background:#fff6dd;border-color:#c08a00}
ul.proof{list-style:none;padding-left:1.2em} .holds{color:#176f2c} .fails{color:#a11} .unknown{color:#8a6500}
.kind{font-size:.85em;color:#666} table{border-collapse:collapse;width:100%} td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}
pre.doc{white-space:pre-wrap;background:#fafafa;border:1px solid #ddd;padding:1em;font-size:.9em}
mark{background:#fff3a8} mark:target,mark.hl{background:#ffb347}
ol.reasons li{margin:.4em 0} ol.reasons ul{margin:.2em 0;color:#444;font-size:.95em}
.charts{display:flex;flex-wrap:wrap;gap:2em}
@media print{body{margin:0;max-width:none} details{display:block} details>summary{display:none}
 .documents{break-before:page} a{color:inherit;text-decoration:none} .noprint{display:none}}
</style></head><body>
<h1>{{ title }} — affaire {{ case_id }}</h1>
<section class="verdict {{ verdict_class }}" id="verdict">
<h2 id="headline">{{ status_text }} : {{ headline }}</h2>
{% if probability %}<p>Probabilité ({{ target_label }}) : <b>{{ probability }}</b> <span class="kind">{{ method }}</span></p>{% endif %}
{% if remedy_text %}<p>{{ remedy_text }}</p>{% endif %}
{% for d in distributions %}<p>{{ d }}</p>{% endfor %}
{% if applicable_law %}<p>Texte applicable : {{ applicable_law }}</p>{% endif %}
{% if question %}<p><b>Question en attente :</b> {{ question }}</p>{% endif %}
{% if message %}<p class="kind">{{ message }}</p>{% endif %}
</section>
<h2>Motifs</h2>
<ol class="reasons" id="reasons">{% for r in reasons %}<li class="{{ r.css }}">{{ r.mark }} {{ r.sentence }}
{% if r.facts %}<ul>{% for f in r.facts %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}</li>{% endfor %}</ol>
{% if missing %}<p><b>Ce qui manque :</b> {{ missing|join("; ") }}</p>{% endif %}
<h2>Graphiques</h2>
<div class="charts"><div><h3>Probabilité par récit</h3>{{ posterior_svg|safe }}</div>
<div><h3>Questions classées par gain d'information attendu</h3>{{ eig_svg|safe }}</div>
{% if distribution_svg %}<div><h3>Distributions (p10 – médiane – p90)</h3>{{ distribution_svg|safe }}</div>{% endif %}</div>
<details id="proof"><summary>{{ proof_title }}</summary>{{ proof_html|safe }}
{% if sources %}<h3>Sources</h3><ol>{% for s in sources %}<li id="source-{{ loop.index }}">{% if s.url %}<a href="{{ s.url }}">{{ s.cite }}</a>{% else %}{{ s.cite }}{% endif %}</li>{% endfor %}</ol>{% endif %}
</details>
<h2>Faits</h2>
<table id="facts"><tr><th>Fait</th><th>Valeur</th><th>Statut</th><th>Allégué par</th><th>Passages</th></tr>
{% for f in facts %}<tr class="fact" data-fact="{{ f.name }}"><td>{{ f.label }}</td><td>{{ f.value }}</td><td>{{ f.status }}</td><td>{{ f.by }}</td>
<td>{% for g in f.links %}<a class="ground" href="#{{ g.anchor }}" data-doc="{{ g.doc }}" data-start="{{ g.start }}" data-end="{{ g.end }}" data-quote="{{ g.quote }}">{{ g.doc }}{% if g.page %} p. {{ g.page }}{% endif %}</a><br>{% endfor %}
{% for n in f.other %}<span class="kind">{{ n }}</span><br>{% endfor %}</td></tr>{% endfor %}
</table>
<section class="documents"><h2>Pièces citées</h2>
{% for d in documents %}<section class="document" id="doc-{{ d.id }}"><h3>{{ d.id }} — {{ d.title or "" }} <span class="kind">({{ d.kind }}, {{ d.media_type }})</span></h3>
<pre class="doc" data-doc="{{ d.id }}">{{ d.body|safe }}</pre></section>{% endfor %}</section>
</body></html>"""


WORLD_WORDS = {"SHARED": "—", "NARRATIVE_A": "demanderesse", "NARRATIVE_B": "défense"}
MARKS = {"établi": ("✔", "holds"), "non établi": ("✘", "fails"), "indéterminé": ("?", "unknown")}


def source_url(source: dict[str, Any]) -> str | None:
    """Where a lawyer reads the source: its own URL, else Légifrance (articles) or Judilibre (decisions)."""
    if source.get("url"):
        return str(source["url"])
    ref = str(source.get("reference") or "")
    if not ref:
        return None
    if source.get("kind") == "decision" or ref.lower().startswith(("cass", "ca ", "cour")):
        return "https://www.courdecassation.fr/recherche-judilibre?search_api_fulltext=" + quote_plus(ref)
    return "https://www.legifrance.gouv.fr/search/all?query=" + quote_plus(ref)


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
            f"<text x='0' y='{y + 14}' font-size='12'><title>{html.escape(label)}</title>"
            f"{html.escape(label if len(label) <= 40 else label[:39] + '…')}</text>"
            f"<rect x='{lw}' y='{y}' width='{bw:.1f}' height='{h - 6}' fill='#4a6fa5'/>"
            f"<text x='{lw + bw + 5:.1f}' y='{y + 14}' font-size='12'>{formatting.number(v, 3)}{unit}</text>"
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


class _Proof:
    """The proof tree in HTML: each shared subtree once, sources as numbered notes, no identifiers."""

    def __init__(self, spans: _Spans, docs: dict[str, Document], pack: Any, still_open: set[str] | None = None) -> None:
        self.spans, self.docs, self.pack = spans, docs, pack
        self.open = still_open or set()
        self.sources: dict[str, dict[str, Any]] = {}
        self.seen: set[str] = set()

    def note(self, s: dict[str, Any]) -> int:
        cite = str(s.get("reference", ""))
        if s.get("version"):
            cite += f" ({s['version']})"
        if cite not in self.sources:
            self.sources[cite] = {"cite": cite, "url": source_url(s), "n": len(self.sources) + 1}
        return int(self.sources[cite]["n"])

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
        spec = self.pack.facts.get(str(node.get("atom", "")).split("(")[0]) if self.pack is not None else None
        shown = formatting.number(value) if isinstance(value, float) and spec is None else formatting.value(spec, value)
        return f"{text} : {shown}"

    def html(self, node: dict[str, Any] | None) -> str:
        if not node:
            return "<p class='kind'>(pas d'arbre de preuve)</p>"
        holds = node.get("holds", True)
        cls, mark = ("holds", "✔") if holds else ("fails", "✘")
        if wording.rests_on_open(node, self.open):  # one reading of a point still open: never shown as proven
            cls, mark = "unknown", "?"
        key = f"{node.get('atom')}|{holds}|{node.get('rule_id')}|{node.get('kind')}"
        label = html.escape(self.label(node))
        if key in self.seen and node.get("children"):
            return f"<ul class='proof'><li class='{cls}'>{mark} {label} <span class='kind'>(voir plus haut)</span></li></ul>"
        self.seen.add(key)
        notes = "".join(
            f"<sup><a href='#source-{self.note(s)}'>[{self.note(s)}]</a></sup>" for s in node.get("sources", [])
        )
        kind = str(node.get("kind", "rule"))
        warn = {
            "dynamic": " <span class='kind'>(interprétation d'une règle dynamique, pas une règle de droit)</span>",
            "repair": " <span class='kind'>(réparation de typage, pas une donnée)</span>",
            "missing": " <span class='kind'>(fait manquant)</span>",
        }.get(kind, "")
        links = []
        for g in node.get("grounding", []):
            link = _link(self.spans, g, self.docs)
            if link:
                links.append(
                    f"<a class='ground' href='#{link['anchor']}' data-doc='{link['doc']}' "
                    f"data-start='{link['start']}' data-end='{link['end']}'>↳ {html.escape(link['doc'])} "
                    f"« {html.escape(link['quote'][:80])} »</a>"
                )
            elif g.get("note"):
                links.append(f"<span class='kind'>↳ {html.escape(str(g.get('note')))}</span>")
        kids = "".join(self.html(c) for c in node.get("children", []))
        return (
            f"<ul class='proof'><li class='{cls}'>{mark} {label}{notes}{warn}"
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


def _fact_rows(ev: dict[str, Any], spans: _Spans, docs: dict[str, Document]) -> list[dict[str, Any]]:
    """The verdict's facts table (``Verdict.facts``: the same rows as the page), with span anchors."""
    rows = []
    for row in ev.get("facts") or []:
        links = [
            link
            for p in row.get("passages") or []
            if (link := _link(spans, {"kind": "document", "document_id": p.get("document"), **p}, docs))
        ]
        rows.append({**row, "name": row.get("fact"), "by": row.get("by") or "—", "links": links, "other": []})
    return rows


def _distribution_svg(prob: dict[str, Any]) -> tuple[str, list[str]]:
    """The number distributions the verdict carries (labels and units are the pack's outputs)."""
    items, lines = [], []
    for d in prob.get("distributions") or []:
        if d.get("p10") is None or d.get("p50") is None or d.get("p90") is None:
            continue
        label = str(d.get("label") or d.get("name"))
        fmt = (
            formatting.money
            if d.get("unit") == "EUR"
            else (lambda x, u=d.get("unit") or "": formatting.value(None, x, u))
        )
        items.append((label, float(d["p10"]), float(d["p50"]), float(d["p90"])))
        lines.append(f"{label} : médiane {fmt(d['p50'])}, 8 chances sur 10 entre {fmt(d['p10'])} et {fmt(d['p90'])}")
    if not items:
        return "", lines
    rows, w, lw = [], 560, 250
    for i, (label, lo, mid, hi) in enumerate(items):
        y, scale = i * 34 + 6, (w - lw - 20) / (hi or 1.0)
        rows.append(
            f"<text x='0' y='{y + 14}' font-size='12'>{html.escape(label)}</text>"
            f"<line x1='{lw + lo * scale:.1f}' x2='{lw + hi * scale:.1f}' y1='{y + 10}' y2='{y + 10}' "
            f"stroke='#4a6fa5' stroke-width='6'/><circle cx='{lw + mid * scale:.1f}' cy='{y + 10}' r='6' fill='#b03030'/>"
        )
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' width='{w}' height='{len(items) * 34 + 8}' "
        f"role='img'>{''.join(rows)}</svg>"
    )
    return svg, lines


def render_report(state: dict[str, Any], documents: list[Document]) -> str:
    """The report of a run's state (its persisted Verdict): printable, offline, never stronger than the verdict."""
    docs = {d.id: d for d in documents}
    spans = _Spans()
    ev = state.get("evaluation") or {}  # the typed Verdict, serialised
    prob = ev.get("probability") or {}
    pack = None
    if ev.get("pack"):
        try:
            pack = load_pack(str(ev["pack"]))[0]
        except Exception:
            pack = None
    label = ev.get("label")
    verdict_class = {"LIABLE": "verdict-holds", "NOT_LIABLE": "verdict-fails"}.get(str(label), "open")
    target_status = ((ev.get("outcomes") or {}).get(ev.get("target") or "") or {}).get("status")
    proof = ev.get("proof") if target_status == "yes" else ev.get("why_not")
    proof_title = wording.PROOF_TITLE.get(str(target_status), wording.PROOF_TITLE["unknown"])
    still_open = wording.open_facts(ev.get("values") or {}) if target_status not in ("yes", "no") else set()
    prover = _Proof(spans, docs, pack, still_open)
    proof_html = prover.html(proof)
    facts = _fact_rows(ev, spans, docs)
    posterior = [("P(conclusion principale)", float(prob["p_target"]))] if prob.get("p_target") is not None else []
    posterior += [(f"P({WORLD_WORDS.get(w, w)})", float(p)) for w, p in (prob.get("p_narrative") or {}).items()]
    posterior += [
        (f"P(conclusion | {WORLD_WORDS.get(w, w)})", float(p))
        for w, p in (prob.get("p_target_by_narrative") or {}).items()
        if p is not None
    ]
    eig = []
    for q in ev.get("questions") or []:
        if q.get("eig") is None:
            continue
        spec = pack.facts.get(q["fact"]) if pack is not None else None
        eig.append((spec.label if spec is not None else q["fact"], float(q["eig"])))
    distribution_svg, distributions = _distribution_svg(prob)
    reasons = []
    for r in ev.get("reasons") or []:
        mark, css = MARKS.get(r.get("state"), ("⚖", "unknown"))
        if r.get("check") == "defeaters":
            mark = "–"
        facts_text = []
        for f in r.get("facts") or []:
            where = "; ".join(
                (e.get("document") or e.get("origin") or "")
                + (f" p. {', '.join(str(p) for p in e['pages'])}" if e.get("pages") else "")
                for e in f.get("evidence") or []
            )
            facts_text.append(f"{f['label']} : {f['value']}" + (f" — {where}" if where else ""))
        reasons.append({"mark": mark, "css": css, "sentence": r.get("sentence", ""), "facts": facts_text})
    question = state.get("pending_question") or ev.get("best_question")
    p_target = prob.get("p_target")
    env = Environment(autoescape=select_autoescape(default=True))
    return env.from_string(TEMPLATE).render(
        title=pack.manifest.title if pack is not None else "Analyse",
        case_id=state.get("case_id"),
        status_text=ev.get("status_text") or state.get("status", ""),
        headline=ev.get("headline") or ev.get("summary") or "",
        verdict_class=verdict_class,
        target_label=ev.get("target_label") or ev.get("target") or "",
        probability=formatting.probability(float(p_target)) if p_target is not None else None,
        method=f"({prob.get('method', '')}, {prob.get('n_worlds') or 0} mondes)" if prob.get("method") else "",
        remedy_text=ev.get("remedy_text"),
        distributions=distributions,
        applicable_law=ev.get("applicable_law"),
        question=(question or {}).get("question") if isinstance(question, dict) else None,
        message=state.get("message"),
        reasons=reasons,
        missing=[m.get("label") for m in ev.get("missing") or []],
        posterior_svg=_bars(posterior, vmax=1.0),
        eig_svg=_bars(eig, " bit"),
        distribution_svg=distribution_svg,
        proof_title=proof_title,
        proof_html=proof_html,
        sources=sorted(prover.sources.values(), key=lambda s: int(s["n"])),
        facts=facts,
        documents=[
            {
                "id": d.id,
                "title": d.title,
                "kind": d.kind.value,
                "media_type": d.media_type,
                "body": _highlight(d, spans),
            }
            for d in documents
            if any(k[0] == d.id for k in spans.ids)
        ],
    )
