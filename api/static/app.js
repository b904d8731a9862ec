// The glass-box page: plain JS + SVG, no build, no CDN. Talks to /v1 with the key kept in localStorage.
// One render function (render) is fed by the verdict JSON: the header, the summary, every node's state,
// the explanation, the facts table, the question and the sliders are redrawn from it after every slider
// move or answer. The words come from the verdict (headline, status_text, reasons, outcome_states, facts,
// choice_labels, slider labels); the page only formats numbers (fr-FR) and never names an internal id.
"use strict";
const $ = (s) => document.querySelector(s);
const NS = "http://www.w3.org/2000/svg";
const state = {
  key: "", caseId: "", verdict: null, graph: null, priors: {}, weights: {}, timer: null, renders: 0,
  collapsed: new Set(), view: { k: 1, x: 0, y: 0 }, box: { w: 1, h: 1 }, pos: {}, sens: {}, rankToken: 0,
  criticalOn: false,
};
// the narratives as the verdict's words name them (engine.wording.NARRATIVE_WORDS)
const NARRATIVE = { SHARED: "faits communs", NARRATIVE_A: "récit de la demanderesse", NARRATIVE_B: "récit de la défense" };
const NODE_NARRATIVE = { A: "récit de la demanderesse", B: "récit de la défense" };

function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function h(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v; else if (k === "data") Object.assign(e.dataset, v); else e[k] = v;
  }
  e.append(...children.filter((c) => c != null));
  return e;
}

async function api(path, opts = {}) {
  const r = await fetch(path, { ...opts, headers: { "X-API-Key": state.key, "Content-Type": "application/json", ...(opts.headers || {}) } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) { throw new Error(body.detail || body.title || r.statusText); }
  return body;
}

function setStatus(msg) { $("#status").textContent = msg; }

// ---------------------------------------------------------------- numbers (fr-FR, as engine.formatting)
const PCT = new Intl.NumberFormat("fr-FR", { style: "percent", maximumFractionDigits: 1 });
const pct = (p) => (p == null ? "—" : PCT.format(p));
const num = (x, d = 1) => new Intl.NumberFormat("fr-FR", { maximumFractionDigits: d }).format(x);
const money = (x) => new Intl.NumberFormat("fr-FR", { style: "currency", currency: "EUR", maximumFractionDigits: 0 }).format(x);
const amount = (x, unit) => (unit === "EUR" ? money(x) : unit === "mois" ? `${num(x)} mois` : `${num(x)}${unit ? " " + unit : ""}`);
const sentence = (s) => { s = (s || "").trim(); return s && !/[.!?…]$/.test(s) ? s + "." : s; };

// ---------------------------------------------------------------- the one render
function render(v) {
  v.outcome_states ||= {}; v.facts ||= []; // a verdict saved before these fields existed
  state.verdict = v;
  renderHeader(v);
  renderSummary(v);
  renderNodeStates(v);
  renderOutlineStates(v);
  renderExplain(v);
  renderFacts(v);
  renderQuestion(v);
  renderSliders(v);
  renderCharts(v);
  state.renders += 1;
  document.body.dataset.renders = String(state.renders);
}

function renderHeader(v) {
  const btn = $("#verdict");
  // the colour is the pack's polarity (Verdict.tone), dashed while the target rests on readings to confirm
  const tentative = v.outcome_knowledge?.[v.target]?.on_record === false;
  btn.className = `tone-${v.tone || "neutral"}${tentative ? " tentative" : ""}${state.criticalOn ? " active" : ""}`;
  $("#verdict-label").textContent = v.status_text;
  $("#headline").textContent = v.headline;
  const p = v.probability.p_target;
  $("#prob").dataset.p = p == null ? "" : String(p);
  const unweighed = (v.probability.unweighed || []).length > 0 && p != null && p > 0 && p < 1; // nothing to weigh with
  $("#prob").textContent = p == null ? `P(${v.target_label}) indisponible`
    : unweighed ? `P(${v.target_label}) non chiffrée en l'état (rien pour peser : ${v.probability.unweighed.map((f) => (factRows(v, f)[0] || v.missing.find((m) => m.fact === f) || { label: f }).label).join(", ")})`
    : `P(${v.target_label}) = ${pct(p)}`;
}

function renderSummary(v) {
  const pr = v.probability, p = pr.p_target;
  const parts = [sentence(v.headline)];
  if (p != null) {
    const by = Object.entries(pr.p_target_by_narrative || {}).map(([w, x]) =>
      `${NARRATIVE[w] || w} (poids ${pct(pr.p_narrative?.[w])}) : ${x == null ? "écarté" : pct(x)}`);
    parts.push(`Probabilité (${v.target_label}) : ${pct(p)}${by.length ? " — " + by.join(" ; ") : ""}.`);
  }
  // the distributions under the pack's labels (its outputs): median, and 8 chances in 10 between p10 and p90
  const dists = (pr.distributions || []).filter((d) => d && d.p50 != null && d.label);
  for (const d of dists) {
    const cond = d.condition ? ` (si ${v.target_label})` : "";
    parts.push(`${d.label}${cond} : ${amount(d.p50, d.unit)} (${amount(d.p10, d.unit)} à ${amount(d.p90, d.unit)}).`);
  }
  if (!dists.some((d) => d.given_target) && v.remedy_text) parts.push(sentence(v.remedy_text));
  if (v.missing.length) parts.push(`Reste à établir : ${v.missing.map((m) => m.label).join(", ")}.`);
  $("#summary").textContent = parts.join(" ");
  $("#summary").dataset.p = p == null ? "" : String(p);
}

// ---------------------------------------------------------------- what a node says, from the verdict
const baseAtom = (atom) => (atom || "").split("(")[0].trim();
const FLIP = { "établi": "non établi", "non établi": "établi",
  "retenu sur lecture (à confirmer)": "écarté sur lecture (à confirmer)", "écarté sur lecture (à confirmer)": "retenu sur lecture (à confirmer)",
  "retenu sur interprétation (à confirmer)": "écarté sur interprétation (à confirmer)", "écarté sur interprétation (à confirmer)": "retenu sur interprétation (à confirmer)" };

function factRows(v, fact) { return (v.facts || []).filter((r) => r.fact === fact); }

function nodeInfo(n, v) {
  const pr = v.probability;
  if (n.kind === "verdict") return { state: v.outcome_states[v.target], p: pr.p_target, outcome: v.target };
  const atom = baseAtom(n.atom), negated = atom.startsWith("not "), name = atom.replace(/^not /, "");
  if (n.kind !== "evidence" && name in (v.outcome_states || {})) {
    let st = v.outcome_states[name], p = pr.p_outcomes?.[name];
    if (negated) { st = FLIP[st] || st; p = p == null ? p : 1 - p; }
    if (st === "établi" && !n.holds) return {}; // this rule is not the one that establishes it
    return { state: st, p, outcome: negated ? null : name };
  }
  if (n.kind === "fact") {
    const rows = factRows(v, name);
    if (!rows.length) return {};
    const mine = rows.filter((r) => !r.by || r.by === NODE_NARRATIVE[n.narrative]);
    const use = mine.length ? mine : rows;
    return { value: use.map((r) => r.value).join(" / "), status: use[0].status, row: use[0] };
  }
  return {};
}

const stateClass = (st) => ({ "établi": "s-yes", "non établi": "s-no", "indéterminé": "s-unknown", "à apprécier par le juge": "s-judge" }[st]
  || (String(st || "").endsWith("(à confirmer)") ? "s-tentative" : "")); // retenu / écarté sur lecture: never a proof

function renderNodeStates(v) {
  for (const g of document.querySelectorAll("#graph .node")) {
    const n = state.byId[g.dataset.id]; if (!n) continue;
    const info = nodeInfo(n, v);
    const line = g.querySelector("text.state");
    if (info.outcome) g.dataset.outcome = info.outcome; else delete g.dataset.outcome;
    g.classList.remove("s-yes", "s-no", "s-unknown", "s-judge", "s-tentative", "f-unknown");
    if (info.state) {
      g.classList.add(stateClass(info.state));
      g.dataset.state = info.state;
      g.dataset.p = info.p == null ? "" : String(info.p);
      if (line) line.textContent = info.state + (info.p == null ? "" : ` · P = ${pct(info.p)}`);
      if (line) clip(line, NODE_W - 28);
    } else if (info.value != null) {
      if (info.status === "inconnu") g.classList.add("f-unknown");
      g.dataset.state = info.status;
      if (line) { line.textContent = `= ${info.value}`; clip(line, NODE_W - 28); } // the whole value: side panel
    } else if (line) {
      line.textContent = "";
    }
  }
}

// ---------------------------------------------------------------- explain, facts, question
// where a lawyer reads a source (as engine.report.source_url): Judilibre for decisions, Légifrance otherwise
function sourceUrl(ref) {
  const q = encodeURIComponent(ref.split(" [")[0].replace(/ \((ord|loi|décret)[^)]*\)/g, "")).replace(/%20/g, "+");
  return /^(cass|ca |cour)/i.test(ref) ? `https://www.courdecassation.fr/recherche-judilibre?search_api_fulltext=${q}`
    : `https://www.legifrance.gouv.fr/search/all?query=${q}`;
}
function sourceLinks(refs) {
  const span = h("span", { class: "sources" }, " (");
  refs.forEach((ref, i) => {
    if (i) span.append(" ; ");
    span.append(h("a", { href: sourceUrl(ref), target: "_blank", rel: "noopener", textContent: ref }));
  });
  span.append(")");
  return span;
}

function renderExplain(v) {
  const ol = $("#explain"); ol.innerHTML = "";
  for (const r of v.reasons) {
    const facts = h("ul", { class: "reason-facts" });
    for (const f of r.facts) {
      const docs = f.evidence.map((e) => e.document ? `${e.document}${e.pages.length ? " p. " + e.pages.join(", ") : ""}${e.passages > 1 ? ` (${e.passages} passages)` : ""}` : e.origin).join(" ; ");
      const li = h("li", { class: "fact-link", title: "voir les pièces", data: { fact: f.fact } }, `${f.label} : ${f.value}`,
        docs ? h("span", { class: "docs" }, f.read ? ` — lu dans ${docs} (à confirmer)` : ` — ${docs}`) : null);
      li.addEventListener("click", () => openFact(f.fact));
      facts.append(li);
    }
    ol.append(h("li", { class: `reason ${stateClass(r.state)}${r.decisive ? " decisive" : ""}`, data: { state: r.state } },
      h("span", { class: "badge" }, r.state), " ", sentence(r.sentence),
      r.sources.length ? sourceLinks(r.sources) : null, r.facts.length ? facts : null));
  }
}

function renderFacts(v) {
  const body = $("#facts-table tbody"); body.innerHTML = "";
  for (const r of v.facts || []) {
    const pass = h("td", { class: "passages" });
    if (r.passages.length) {
      const a = h("button", { type: "button", class: "link", textContent: `${r.passages.length} passage${r.passages.length > 1 ? "s" : ""}` });
      a.addEventListener("click", () => openFact(r.fact, r));
      pass.append(a);
    } else pass.textContent = "—";
    const check = h("td", { class: "check" }, r.confirm ? confirmControls(r) : "");
    body.append(h("tr", { class: r.status === "inconnu" ? "unknown" : "", data: { fact: r.fact } },
      h("td", {}, r.label), h("td", {}, r.value), h("td", {}, r.status), h("td", {}, r.by || "—"), pass, check));
  }
}

// a fact read by the machine: « Confirmer » posts the reading as the user's answer, « Corriger » lets the user
// type or pick the value; both through POST …/answers, then the verdict is reloaded
function confirmControls(r) {
  const c = r.confirm, box = h("div", { class: "confirm" });
  const ok = h("button", { type: "button", class: "confirm-btn", textContent: "Confirmer" });
  ok.setAttribute("aria-label", `Confirmer la lecture : ${r.label} — ${r.value}`);
  ok.addEventListener("click", () => postAnswer(r.fact, c.value, r.value, r.label));
  const fix = h("button", { type: "button", class: "correct-btn", textContent: "Corriger" });
  fix.setAttribute("aria-label", `Corriger la lecture : ${r.label}`);
  fix.setAttribute("aria-expanded", "false");
  fix.addEventListener("click", () => {
    const open = box.querySelector("form");
    if (open) { open.remove(); fix.setAttribute("aria-expanded", "false"); return; }
    box.append(correctionForm(r)); fix.setAttribute("aria-expanded", "true");
    box.querySelector("form .correct-value").focus();
  });
  box.append(ok);
  if (c.value === null || typeof c.value !== "object") box.append(fix); // a table of amounts per year: confirm only
  return box;
}

function correctionForm(r) {
  const c = r.confirm, form = h("form", { class: "correct-form" });
  let field;
  if (c.choices.length) {
    field = h("select", { class: "correct-value" });
    c.choices.forEach((o, i) => field.append(h("option", { value: JSON.stringify(o), textContent: c.choice_labels[i] ?? String(o) })));
    const other = c.choices.findIndex((o) => JSON.stringify(o) !== JSON.stringify(c.value));
    if (other >= 0) field.selectedIndex = other; // a correction is another value than the one read
  } else {
    const type = c.type === "date" ? "date" : c.type === "str" ? "text" : "number";
    field = h("input", { class: "correct-value", type });
    if (type === "number") field.step = "any";
    if (c.value != null) field.value = String(c.value);
  }
  field.setAttribute("aria-label", `Valeur corrigée : ${r.label}`);
  const save = h("button", { type: "submit", textContent: "Enregistrer" });
  form.append(field, save);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (field.tagName === "SELECT") return postAnswer(r.fact, JSON.parse(field.value), field.options[field.selectedIndex].textContent, r.label);
    if (field.value === "") { field.setCustomValidity("une valeur"); field.reportValidity(); return; }
    const value = field.type === "number" ? Number(field.value) : field.value;
    return postAnswer(r.fact, value, field.value, r.label);
  });
  return form;
}

function renderQuestion(v) {
  const q = v.best_question || v.questions[0];
  const text = $("#question-text"), input = $("#answer-input");
  $("#answer-btn").disabled = !q;
  if (!q) { text.textContent = "Aucune question en attente."; delete text.dataset.fact; input.innerHTML = ""; return; }
  const choices = q.choices?.length ? q.choices : q.options;
  const key = JSON.stringify([q.fact, choices]);
  if (input.dataset.key === key) return; // the same question: keep the lawyer's selection
  input.dataset.key = key; input.innerHTML = "";
  text.textContent = q.question || (factRows(v, q.fact)[0] || {}).label || "";
  text.dataset.fact = q.fact;
  if (q.eig != null) text.append(h("span", { class: "note" }, ` (gain d'information attendu : ${num(q.eig, 2)} bit)`));
  if (choices.length || q.type === "bool") {
    const labels = q.choices?.length ? q.choice_labels : choices.map((o) => (o === true ? "oui" : o === false ? "non" : String(o)));
    const list = choices.length ? choices : [true, false];
    const sel = h("select", { id: "answer-value", data: { type: q.type || "" } });
    sel.setAttribute("aria-label", text.textContent || "réponse");
    list.forEach((o, i) => sel.append(h("option", { value: JSON.stringify(o), textContent: labels[i] ?? (o === true ? "oui" : o === false ? "non" : String(o)) })));
    input.append(sel);
    return;
  }
  const box = h("input", { id: "answer-value", type: q.type === "date" ? "date" : q.type === "str" ? "text" : "number", data: { type: q.type || "" } });
  box.setAttribute("aria-label", text.textContent || "réponse");
  if (box.type === "number") box.step = "any";
  input.append(box);
}

function answerValue() {
  const box = $("#answer-value");
  if (box.tagName === "SELECT") return JSON.parse(box.value);
  return box.type === "number" ? Number(box.value) : box.value;
}
function answerText() { // the answer as the lawyer reads it (the select's label, a date or a quantity in words)
  const box = $("#answer-value"), type = box.dataset.type;
  if (box.tagName === "SELECT") return box.options[box.selectedIndex].textContent;
  if (box.type === "date" && box.value) {
    return new Date(box.value + "T00:00:00").toLocaleDateString("fr-FR", { day: "numeric", month: "long", year: "numeric" });
  }
  if (box.type === "number" && box.value !== "") {
    const x = Number(box.value);
    return type === "months" ? `${num(x)} mois` : type === "amount" ? money(x) : type === "percent" ? `${num(x)} %` : num(x, 3);
  }
  return box.value;
}

$("#answer-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const fact = $("#question-text").dataset.fact;
  if (!fact) return;
  const label = (factRows(state.verdict, fact)[0] || {}).label || $("#question-text").textContent;
  await postAnswer(fact, answerValue(), answerText(), label);
});

async function postAnswer(fact, value, text, label) { // the one way an answer reaches the case
  state.rankToken += 1; // the ranking of the old hypotheses stops: the answer's analysis goes first
  try {
    setStatus("réponse enregistrée, analyse…");
    await api(`/v1/cases/${encodeURIComponent(state.caseId)}/answers`, { method: "POST", body: JSON.stringify({ answers: { [fact]: value } }) });
    state.priors = {}; state.weights = {};
    await loadCase(state.caseId);
    setStatus(`Réponse enregistrée — ${label} : ${text}`);
  } catch (e) { setStatus(`erreur : ${e.message}`); }
}

// ---------------------------------------------------------------- charts
function renderCharts(v) {
  const pr = v.probability;
  $("#prob-detail").textContent = `${v.status_text} · incertitude ${pr.entropy == null ? "—" : num(pr.entropy, 3)} bit (seuil ${pr.entropy_threshold == null ? "—" : num(pr.entropy_threshold, 2)})`;
  $("#prob-detail").dataset.entropy = pr.entropy == null ? "" : String(pr.entropy);
  $("#prob-method").textContent = pr.method;
  // the server's words for how P was computed (« calcul exact … » / « estimée par échantillonnage (± …) »)
  $("#prob-note").textContent = `Modèle probabiliste : ${pr.method_text || `${pr.n_worlds ?? "?"} monde${pr.n_worlds === 1 ? "" : "s"}`}. ` +
    "Les faits incertains sont des variables (a priori du pack), chaque ambiguïté oppose le récit de la demanderesse à celui de la défense ; probabilités et preuve viennent des mêmes règles.";
  const svg = $("#posterior-chart"); svg.innerHTML = "";
  const rows = [{ name: "ensemble", p: pr.p_target, w: null, cls: "bar-s" }].concat(
    Object.entries(pr.p_target_by_narrative || {}).map(([w, x]) => ({ name: NARRATIVE[w] || w, p: x, w: pr.p_narrative?.[w], cls: w === "NARRATIVE_A" ? "bar-a" : "bar-b" })));
  rows.forEach((r, i) => {
    const y = 4 + i * 30;
    el("text", { x: 0, y: y + 9, class: "chart-label" }, svg).textContent = r.name;
    el("rect", { x: 150, y, width: Math.max(1, 180 * (r.p ?? 0)), height: 10, class: r.cls }, svg);
    el("text", { x: 335, y: y + 9, class: "chart-label" }, svg).textContent = r.p == null ? "écarté" : pct(r.p);
    if (r.w != null) {
      el("rect", { x: 150, y: y + 13, width: Math.max(1, 180 * r.w), height: 4, class: r.cls, opacity: 0.45 }, svg);
      el("text", { x: 335, y: y + 20, class: "chart-label" }, svg).textContent = `poids ${pct(r.w)}`;
    }
  });
  const eig = $("#eig-chart"); eig.innerHTML = "";
  el("text", { x: 0, y: 10, class: "chart-label" }, eig).textContent = "Gain d'information attendu (bits) des questions";
  const qs = v.questions.filter((q) => q.eig != null).slice(0, 5);
  const max = Math.max(...qs.map((q) => q.eig), 1e-9);
  qs.forEach((q, i) => {
    const y = 18 + i * 22, label = (factRows(v, q.fact)[0] || {}).label || q.question || "";
    el("text", { x: 0, y: y + 8, class: "chart-label" }, eig).textContent = label.length > 48 ? label.slice(0, 47) + "…" : label;
    el("rect", { x: 0, y: y + 11, width: Math.max(1, 300 * q.eig / max), height: 7, class: "bar-eig" }, eig);
    el("text", { x: 305, y: y + 18, class: "chart-label" }, eig).textContent = num(q.eig, 3);
  });
}

// ---------------------------------------------------------------- what-if sliders, ranked by sensitivity
// A prior slider moves a probability (0–100 %); an Alexy slider moves a magnitude on a log2 scale.
// Sensitivity = |P(target) with the slider at its maximum − P(target) at its minimum|, the other
// hypotheses as they are: two what-if calls per slider, made in the background after the case loads.
const sliderId = (name) => `slider-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
const toInput = (s, x) => (s.scale === "log2" ? Math.round(Math.log2(x) * 10) : Math.round(x * 100));
const fromInput = (s, n) => (s.scale === "log2" ? Math.round(2 ** (n / 10) * 1000) / 1000 : n / 100);
const shown = (s, x) => (s.scale === "log2" ? num(x, 2) : pct(x));
const TOP = 5;

function renderSliders(v) {
  const have = [...document.querySelectorAll("#sliders-box .slider")].map((d) => d.dataset.name).sort();
  const want = v.sliders.map((s) => s.name).sort();
  if (JSON.stringify(have) !== JSON.stringify(want)) buildSliders(v);
  for (const s of v.sliders) { // the values the verdict was computed with
    const row = document.querySelector(`#sliders-box .slider[data-name="${CSS.escape(s.name)}"]`);
    const input = row.querySelector("input");
    if (document.activeElement !== input) input.value = toInput(s, s.value);
    row.querySelector("output").textContent = shown(s, fromInput(s, Number(input.value)));
  }
}

function buildSliders(v) {
  $("#sliders").innerHTML = ""; $("#sliders-rest").innerHTML = "";
  if (!v.sliders.length) $("#sliders").textContent = "Aucune hypothèse incertaine dans cette affaire.";
  for (const s of v.sliders) {
    const out = h("output");
    const input = h("input", { type: "range", min: toInput(s, s.min), max: toInput(s, s.max), step: 1, value: toInput(s, s.value), id: sliderId(s.name),
      data: { name: s.name, group: s.group, ...(s.fact ? { fact: s.fact } : {}) } });
    input.setAttribute("aria-label", s.label);
    const row = h("div", { class: `slider ${s.kind}`, data: { name: s.name } },
      h("label", { htmlFor: input.id }, h("span", { class: "sens" }, ""), s.label, " ", out), input);
    if (s.kind === "ambiguity") {
      row.append(h("div", { class: "readings" }, s.readings.map((r) =>
        `${r.text ?? r.value} (${NARRATIVE[r.world] || r.world})${r.note ? " — " + r.note : ""}`).join(" | ")));
    }
    input.addEventListener("input", () => {
      const x = fromInput(s, Number(input.value));
      out.textContent = shown(s, x);
      state[s.group][s.name] = x;
      clearTimeout(state.timer);
      state.timer = setTimeout(whatIf, 120);
    });
    $("#sliders").append(row);
  }
  placeSliders(v);
}

function placeSliders(v) {
  const order = v.sliders.map((s, i) => ({ s, i, d: state.sens[s.name] })).sort((a, b) => (b.d ?? -1) - (a.d ?? -1) || a.i - b.i);
  order.forEach(({ s, d }, rank) => {
    const row = document.querySelector(`#sliders-box .slider[data-name="${CSS.escape(s.name)}"]`);
    if (!row) return;
    row.dataset.sensitivity = d == null ? "" : String(d);
    row.querySelector(".sens").textContent = d == null ? "" : `±${num(d * 100, 0)} pts `;
    row.querySelector(".sens").title = "variation de la probabilité quand l'hypothèse va de son minimum à son maximum";
    (rank < TOP ? $("#sliders") : $("#sliders-rest")).append(row);
  });
  $("#more-count").textContent = String(Math.max(0, order.length - TOP));
  $("#sliders-more").hidden = order.length <= TOP;
}

async function rankSliders(v) { // one request: the server ranks every slider (POST …/sensitivity, cached)
  const token = ++state.rankToken, id = state.caseId;
  state.sens = {}; delete document.body.dataset.ranked;
  $("#sens-note").textContent = "classement en cours…";
  try {
    const r = await api(`/v1/cases/${encodeURIComponent(id)}/sensitivity`, { method: "POST", body: JSON.stringify({ priors: state.priors, weights: state.weights }) });
    if (token !== state.rankToken || id !== state.caseId) return;
    for (const e of r.sliders) state.sens[e.name] = e.sensitivity;
  } catch (e) { if (token === state.rankToken) $("#sens-note").textContent = `classement indisponible (${e.message})`; return; }
  placeSliders(state.verdict);
  $("#sens-note").textContent = `Classées par influence : variation de P(${v.target_label}) entre le minimum et le maximum de chaque hypothèse ; les ${TOP} premières sont affichées.`;
  document.body.dataset.ranked = "1";
}

async function whatIf() {
  const seq = (state.whatIfSeq = (state.whatIfSeq || 0) + 1), id = state.caseId;
  try {
    setStatus("recalcul…");
    const v = await api(`/v1/cases/${encodeURIComponent(id)}/what-if`, { method: "POST",
      body: JSON.stringify({ priors: state.priors, weights: state.weights }) });
    if (seq !== state.whatIfSeq || id !== state.caseId) return; // a later move (or another case) wins
    render(v);
    setStatus("");
  } catch (e) { if (seq === state.whatIfSeq) setStatus(`erreur : ${e.message}`); }
}

// ---------------------------------------------------------------- argument graph: layered layout (left → right)
const NODE_W = 190, GAP_X = 56, GAP_Y = 10, LINE = 13, PAD = 6, FONT = "11px system-ui, sans-serif";
const ctx = document.createElement("canvas").getContext("2d");

function wrap(text, width) {
  ctx.font = FONT;
  const lines = []; let cur = "";
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    const next = cur ? cur + " " + word : word;
    if (ctx.measureText(next).width <= width || !cur) cur = next; else { lines.push(cur); cur = word; }
  }
  if (cur) lines.push(cur);
  return lines.length ? lines : [""];
}

function clip(text, width) { // a state line longer than the box ends with « … »
  ctx.font = "600 " + FONT;
  let t = text.textContent;
  if (ctx.measureText(t).width <= width) return;
  while (t.length > 1 && ctx.measureText(t + "…").width > width) t = t.slice(0, -1);
  text.textContent = t + "…";
}

function structure(g) {
  const premises = {}, conclusions = {};
  for (const e of g.edges) if (e.kind !== "contradiction") {
    (premises[e.target] ||= []).push(e.source); (conclusions[e.source] ||= []).push(e.target);
  }
  return { premises, conclusions };
}

function visibleNodes(g, premises) {
  const seen = new Set([g.verdict_node]), queue = [g.verdict_node];
  while (queue.length) {
    const n = queue.shift();
    if (state.collapsed.has(n)) continue;
    for (const c of premises[n] || []) if (!seen.has(c)) { seen.add(c); queue.push(c); }
  }
  return seen;
}

function hiddenBelow(id, premises, visible) {
  const seen = new Set(), stack = [...(premises[id] || [])];
  while (stack.length) { const n = stack.pop(); if (seen.has(n) || visible.has(n)) continue; seen.add(n); stack.push(...(premises[n] || [])); }
  return seen.size;
}

function layout(g) {
  const { premises, conclusions } = structure(g);
  const visible = visibleNodes(g, premises);
  const depth = { [g.verdict_node]: 0 };
  for (let pass = 0, changed = true; changed && pass < 60; pass++) { // longest path from the verdict
    changed = false;
    for (const t of Object.keys(depth)) {
      if (state.collapsed.has(t)) continue;
      for (const s of premises[t] || []) if (visible.has(s) && (depth[s] ?? -1) < depth[t] + 1) { depth[s] = depth[t] + 1; changed = true; }
    }
  }
  const cols = [];
  const order = {}; let k = 0;
  (function dfs(n) { if (n in order) return; order[n] = k++; if (!state.collapsed.has(n)) (premises[n] || []).forEach(dfs); })(g.verdict_node);
  for (const id of visible) (cols[depth[id]] ||= []).push(id);
  for (const col of cols) col.sort((a, b) => order[a] - order[b]);
  const size = {};
  for (const id of visible) {
    const n = state.byId[id];
    const text = n.kind === "evidence"
      ? `« ${(n.quote || n.label).replace(/\s+/g, " ")} » — ${n.document_id}${n.page != null ? ", p. " + n.page : ""}`
      : nodeLabel(n);
    const lines = wrap(text, NODE_W - 28);
    size[id] = { lines, h: PAD * 2 + LINE * (lines.length + 1) };
  }
  // barycentre sweeps: a node goes next to its neighbours of the previous column
  const idx = {};
  const index = () => cols.forEach((c) => c.forEach((id, i) => { idx[id] = i / Math.max(1, c.length - 1); }));
  index();
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    const range = down ? cols.map((_, i) => i).slice(1) : cols.map((_, i) => i).reverse().slice(1);
    for (const d of range) {
      const nb = (id) => (down ? conclusions[id] : premises[id]) || [];
      const key = (id) => { const xs = nb(id).filter((x) => x in idx && visible.has(x)).map((x) => idx[x]); return xs.length ? xs.reduce((a, b) => a + b) / xs.length : idx[id]; };
      const keys = Object.fromEntries(cols[d].map((id) => [id, key(id)]));
      cols[d].sort((a, b) => keys[a] - keys[b]);
      index();
    }
  }
  const heights = cols.map((c) => c.reduce((s, id) => s + size[id].h + GAP_Y, -GAP_Y));
  const H = Math.max(...heights);
  const pos = {};
  cols.forEach((c, d) => {
    let y = (H - heights[d]) / 2;
    for (const id of c) { pos[id] = { x: d * (NODE_W + GAP_X), y, w: NODE_W, h: size[id].h, lines: size[id].lines }; y += size[id].h + GAP_Y; }
  });
  return { pos, width: cols.length * (NODE_W + GAP_X) - GAP_X + 24, height: H, visible, premises };
}

// a node's words: its label; a bare rule name (an intermediate conclusion the pack does not label) is said
// through the verdict's labels of the outcome or fact it names, or through the rules it gathers
const IDENT = /^(not )?[a-z][a-z0-9_]*$/;
const lc = (s) => s.charAt(0).toLowerCase() + s.slice(1);
function nodeLabel(n) {
  const v = state.verdict, lab = n.label || n.atom || "";
  const known = (x) => v?.outcomes?.[x]?.label || (v ? factRows(v, x)[0]?.label : null);
  const m = lab.match(/^absence de : (.*)$/);
  if (m) {
    if (!IDENT.test(m[1])) return `Aucun élément n'établit : ${lc(m[1])}`;
    const k = known(m[1]);
    return k ? `Aucun élément n'établit : ${lc(k)}` : "Aucune des règles ci-contre ne s'applique";
  }
  if (n.kind !== "evidence" && IDENT.test(lab)) {
    const neg = lab.startsWith("not "), k = known(lab.replace(/^not /, ""));
    if (k) return neg ? `Aucun élément n'établit : ${lc(k)}` : k;
    return neg ? "Aucune des règles ci-contre ne s'applique" : "L'une des règles ci-contre s'applique";
  }
  return lab;
}

function drawGraph(g) {
  state.graph = g;
  state.byId = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
  const L = layout(g);
  state.pos = L.pos; state.extent = { w: L.width, h: L.height };
  const edges = $("#edges"), nodes = $("#nodes"); edges.innerHTML = ""; nodes.innerHTML = "";
  for (const e of g.edges) {
    const a = L.pos[e.source], b = L.pos[e.target]; if (!a || !b) continue;
    let d;
    if (e.kind === "contradiction") {
      const x1 = a.x + a.w, x2 = b.x + b.w, y1 = a.y + a.h / 2, y2 = b.y + b.h / 2, bend = Math.max(x1, x2) + 40;
      d = `M${x1},${y1} C${bend},${y1} ${bend},${y2} ${x2},${y2}`;
    } else { // premise (right) → conclusion (left)
      const x1 = a.x, y1 = a.y + a.h / 2, x2 = b.x + b.w + 12, y2 = b.y + b.h / 2, mid = (x1 + x2) / 2;
      d = `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
    }
    el("path", { d, class: `edge ${e.kind}${e.critical ? " critical" : ""}`, "data-id": e.id }, edges);
  }
  for (const n of g.nodes) {
    const p = L.pos[n.id]; if (!p) continue;
    const cls = `node ${n.kind} ${n.narrative}${n.critical ? " critical" : ""}`;
    const grp = el("g", { class: cls, transform: `translate(${p.x},${p.y})`, "data-id": n.id, "data-kind": n.kind }, nodes);
    el("rect", { class: "box", x: 0, y: 0, width: p.w, height: p.h, rx: 5 }, grp);
    const cy = PAD + 7, r = n.kind === "verdict" ? 7 : 5.5;
    if (n.shape === "circle") el("circle", { class: "shape", cx: 11, cy, r }, grp);
    else if (n.shape === "square") el("rect", { class: "shape", x: 11 - r, y: cy - r, width: 2 * r, height: 2 * r }, grp);
    else el("polygon", { class: "shape", points: `11,${cy - r - 1} ${12 + r},${cy} 11,${cy + r + 1} ${10 - r},${cy}` }, grp);
    const t = el("text", { class: "label", x: 22, y: PAD + 10 }, grp);
    p.lines.forEach((line, i) => { el("tspan", { x: 22, dy: i ? LINE : 0 }, t).textContent = line; });
    el("text", { class: "state", x: 22, y: PAD + 10 + LINE * p.lines.length }, grp);
    if (n.sources?.length) el("title", {}, grp).textContent = n.sources.join(" ; ");
    if ((L.premises[n.id] || []).length) { // collapse / expand the subtree of premises
      const hidden = state.collapsed.has(n.id) ? hiddenBelow(n.id, L.premises, L.visible) : 0;
      const tg = el("g", { class: "toggle", transform: `translate(${p.w + 6},${p.h / 2})`, "data-id": n.id }, grp);
      el("circle", { r: 6 }, tg);
      el("text", { x: 0, y: 3.5, "text-anchor": "middle" }, tg).textContent = state.collapsed.has(n.id) ? "+" : "−";
      el("title", {}, tg).textContent = state.collapsed.has(n.id) ? `déplier (${hidden} nœuds)` : "replier ce sous-arbre";
      tg.addEventListener("click", (ev) => { ev.stopPropagation(); toggleCollapse(n.id); });
    }
    grp.addEventListener("click", () => onNode(n));
  }
  if (state.verdict) renderNodeStates(state.verdict);
  $("#graph").classList.toggle("critical-on", state.criticalOn);
  $("#graph-count").textContent = `${L.visible.size} nœuds affichés sur ${g.nodes.length} (« + » déplie un sous-arbre)`;
  $("#graph").dataset.visible = String(L.visible.size);
}

function toggleCollapse(id) {
  const before = state.pos[id];
  if (state.collapsed.has(id)) state.collapsed.delete(id); else state.collapsed.add(id);
  drawGraph(state.graph);
  const after = state.pos[id], k = state.view.k;
  if (before && after) { // the node folded or unfolded stays where the lawyer clicked it
    state.view.x += (before.x - after.x) * k; state.view.y += (before.y - after.y) * k;
  }
  state.autoFit = false;
  applyView();
}

// ---------------------------------------------------------------- zoom, pan, fit
function applyView() {
  const { k, x, y } = state.view;
  $("#viewport").setAttribute("transform", `translate(${x},${y}) scale(${k})`);
  $("#graph").dataset.zoom = String(k);
}

function fit() {
  const r = $("#graph").getBoundingClientRect(), m = 12;
  if (r.width < 1 || r.height < 1) return; // hidden (the outline is shown)
  const { w, h } = state.extent || { w: 1, h: 1 };
  const k = Math.min((r.width - 2 * m) / w, (r.height - 2 * m) / h, 1.4);
  state.view = { k, x: (r.width - w * k) / 2, y: (r.height - h * k) / 2 };
  state.autoFit = true; // stays fitted when the panel changes size, until the lawyer zooms or pans
  applyView();
}

function zoomAt(factor, cx, cy) {
  const v = state.view, k = Math.min(4, Math.max(0.05, v.k * factor));
  state.view = { k, x: cx - (cx - v.x) * (k / v.k), y: cy - (cy - v.y) * (k / v.k) };
  state.autoFit = false;
  applyView();
}

(function interactions() {
  const svg = $("#graph");
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomAt(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.target.closest(".node")) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: state.view.x, vy: state.view.y };
    svg.setPointerCapture(ev.pointerId); svg.classList.add("panning");
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    state.view.x = drag.vx + ev.clientX - drag.x; state.view.y = drag.vy + ev.clientY - drag.y;
    state.autoFit = false; applyView();
  });
  const end = () => { drag = null; svg.classList.remove("panning"); };
  svg.addEventListener("pointerup", end); svg.addEventListener("pointercancel", end);
  $("#fit").addEventListener("click", fit);
  const center = () => { const r = svg.getBoundingClientRect(); return [r.width / 2, r.height / 2]; };
  $("#zoom-in").addEventListener("click", () => zoomAt(1.25, ...center()));
  $("#zoom-out").addEventListener("click", () => zoomAt(1 / 1.25, ...center()));
  $("#critical").addEventListener("click", () => toggleCritical());
  $("#expand-all").addEventListener("click", () => { state.collapsed.clear(); drawGraph(state.graph); fit(); });
  new ResizeObserver(() => { if (state.graph && state.autoFit) fit(); }).observe(svg);
})();

function toggleCritical(force) {
  state.criticalOn = force ?? !state.criticalOn;
  $("#graph").classList.toggle("critical-on", state.criticalOn);
  $("#verdict").classList.toggle("active", state.criticalOn);
  $("#critical").classList.toggle("active", state.criticalOn);
}
$("#verdict").addEventListener("click", () => toggleCritical());

// ---------------------------------------------------------------- side panel: the fact and its passages
function evidenceOf(n) {
  const ids = state.graph.edges.filter((e) => e.kind === "grounds" && e.target === n.id).map((e) => e.source);
  return state.graph.nodes.filter((x) => ids.includes(x.id)).map((x) => ({ document_id: x.document_id, page: x.page, char_start: x.char_start, char_end: x.char_end, quote: x.quote }));
}

function openSide(title, detail, passages, empty) {
  const side = $("#side"); side.hidden = false;
  $("#fact-title").textContent = title;
  $("#fact-detail").textContent = detail;
  const list = $("#fact-evidence"); list.innerHTML = "";
  passages.forEach((ev, i) => {
    const li = h("li", { class: i === 0 ? "current" : "" }, `${ev.document_id}${ev.page != null ? ", p. " + ev.page : ""} — « ${(ev.quote || "").replace(/\s+/g, " ")} »`);
    li.addEventListener("click", () => { list.querySelectorAll("li").forEach((x) => x.classList.remove("current")); li.classList.add("current"); openDocument(ev); });
    list.append(li);
  });
  $("#doc-title").textContent = ""; $("#doc-text").textContent = passages.length ? "" : empty;
  side.scrollTop = 0; // opens at the fact's title
  return passages.length ? openDocument(passages[0]) : Promise.resolve();
}

async function onNode(n) {
  document.querySelectorAll("#graph .node.selected").forEach((x) => x.classList.remove("selected"));
  const g = document.querySelector(`#graph .node[data-id="${CSS.escape(n.id)}"]`); if (g) g.classList.add("selected");
  if (n.kind === "verdict") { toggleCritical(); return; }
  const v = state.verdict, info = nodeInfo(n, v);
  let passages = n.kind === "evidence" ? [{ document_id: n.document_id, page: n.page, char_start: n.char_start, char_end: n.char_end, quote: n.quote }] : evidenceOf(n);
  if (!passages.length && info.row) passages = info.row.passages;
  const what = n.kind === "fact" ? "Fait" : n.kind === "evidence" ? "Pièce" : "Règle";
  const words = [what];
  if (info.state) words.push(info.state + (info.p == null ? "" : ` (P = ${pct(info.p)})`));
  if (info.value != null) words.push(`valeur : ${info.value}`, info.status);
  if (info.row?.by) words.push(`allégué par : ${info.row.by}`);
  const premises = state.graph.edges.filter((e) => e.kind === "inference" && e.target === n.id).map((e) => state.byId[e.source]).filter(Boolean);
  const empty = premises.length ? "" : "Aucune pièce ne fonde ce nœud.";
  const done = openSide(n.kind === "evidence" ? `Passage de ${n.document_id}` : nodeLabel(n), words.join(" · "), passages, empty);
  if (n.sources?.length) $("#fact-detail").append(" · source", sourceLinks(n.sources));
  if (!passages.length && premises.length) { // a rule: its premises, each opens in turn
    $("#doc-title").textContent = "Prémisses";
    const ul = h("ul", { class: "premises" });
    for (const m of premises) {
      const i = nodeInfo(m, v);
      const li = h("li", { class: `fact-link ${stateClass(i.state)}` }, nodeLabel(m), h("span", { class: "note" },
        i.state ? ` — ${i.state}${i.p == null ? "" : ` (P = ${pct(i.p)})`}` : i.value != null ? ` — ${i.value}` : ""));
      li.addEventListener("click", () => onNode(m));
      ul.append(li);
    }
    $("#doc-text").replaceChildren(ul);
  }
  await done;
}

async function openFact(fact, row = null) {
  const v = state.verdict, rows = row ? [row] : factRows(v, fact);
  if (!rows.length) return;
  const r = rows[0];
  const passages = rows.flatMap((x) => x.passages);
  const words = [`Fait`, `valeur : ${rows.map((x) => x.value).join(" / ")}`, r.status];
  if (r.by) words.push(`allégué par : ${rows.map((x) => x.by).join(" / ")}`);
  await openSide(r.label, words.join(" · "), passages, "Aucune pièce ne fonde ce fait.");
}

async function openDocument(ev) {
  try {
    const doc = await api(`/v1/cases/${encodeURIComponent(state.caseId)}/documents/${encodeURIComponent(ev.document_id)}/text`);
    $("#doc-title").textContent = `${doc.id}${ev.page != null ? ", page " + ev.page : ""} — caractères ${ev.char_start} à ${ev.char_end}`;
    const pre = $("#doc-text"); pre.innerHTML = "";
    const mark = h("mark", { id: "span" }, doc.text.slice(ev.char_start, ev.char_end));
    pre.append(doc.text.slice(0, ev.char_start), mark, doc.text.slice(ev.char_end));
    // scroll the document only (not the panel): the passage in the middle, the title still in view
    pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - pre.clientHeight / 3);
    $("#side").scrollTop = 0;
  } catch (e) {
    $("#doc-title").textContent = `${ev.document_id} : document indisponible (${e.message})`;
    $("#doc-text").textContent = ev.quote || "";
  }
}

$("#side-close").addEventListener("click", () => { $("#side").hidden = true; });

// ---------------------------------------------------------------- loading
async function loadCase(id) {
  if (id !== state.caseId) { state.priors = {}; state.weights = {}; state.collapsed.clear(); state.graphShaped = false; }
  state.caseId = id;
  setStatus("chargement…");
  const [v, g] = await Promise.all([api(`/v1/cases/${encodeURIComponent(id)}/verdict`), api(`/v1/cases/${encodeURIComponent(id)}/graph`)]);
  state.verdict = v;
  state.graph = g;
  state.byId = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
  buildOutline(g);
  if (!$("#graph-wrap").hidden) showGraph(); else { $("#nodes").innerHTML = ""; $("#edges").innerHTML = ""; }
  render(v);
  setStatus("");
  document.body.dataset.loaded = id;
  // the ranking: one request, once the verdict is on screen (an answer or another case cancels it)
  const token = state.rankToken;
  delete document.body.dataset.ranked;
  setTimeout(() => { if (token === state.rankToken && id === state.caseId) rankSliders(v); }, 0);
}

async function listCases() {
  const data = await api("/v1/cases?limit=200");
  const sel = $("#case-select");
  sel.innerHTML = '<option value="">—</option>';
  for (const c of data.items) sel.append(h("option", { value: c.id, textContent: c.name || c.id }));
  return data.items;
}

async function redeemLogin() { // local mode: a one-time token from `lexlogic serve` becomes the key, then leaves the URL
  const params = new URLSearchParams(location.search), token = params.get("login");
  if (!token) return;
  params.delete("login");
  history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : "") + location.hash);
  try {
    const r = await fetch("/v1/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token }) });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.detail || r.statusText);
    localStorage.setItem("lexlogic-key", body.key);
    setStatus("connecté (mode local)");
  } catch (e) { setStatus(`lien de connexion refusé : ${e.message}`); }
}

async function init() {
  // A key is never taken from the URL (a `#key=` link would plant the sender's key in this browser):
  // a fragment holding one is dropped from the address bar, unread (issue 32's login redeems a one-time token).
  if (new URLSearchParams(location.hash.slice(1)).has("key")) history.replaceState(null, "", location.pathname + location.search);
  await redeemLogin();
  state.key = localStorage.getItem("lexlogic-key") || "";
  $("#key").value = state.key;
  $("#key").addEventListener("change", async () => { state.key = $("#key").value.trim(); localStorage.setItem("lexlogic-key", state.key); await start(); });
  $("#case-select").addEventListener("change", async (e) => { if (e.target.value) { history.replaceState(null, "", `?case=${encodeURIComponent(e.target.value)}`); await loadCase(e.target.value).catch((x) => setStatus(`erreur : ${x.message}`)); } });
  if (new URLSearchParams(location.search).get("view") === "graph") { $("#outline-wrap").hidden = true; $("#graph-wrap").hidden = false; }
  await start();
}

async function start() {
  if (!state.key) { setStatus("saisissez une clé API"); return; }
  try {
    loadPacks().catch(() => {});
    const items = await listCases();
    const wanted = new URLSearchParams(location.search).get("case") || (items[0] && items[0].id);
    if (wanted) { $("#case-select").value = wanted; await loadCase(wanted); }
    else { setStatus("aucune affaire : créez-en une"); openNewCase(true); }
  } catch (e) { setStatus(`erreur : ${e.message}`); }
}


// ---------------------------------------------------------------- the outline: the reasons as a tree of details
// Built from the argument graph once per case: the verdict first, then its premises, critical path first and
// open; the rest folded (rendered when first opened). Each line says its status word (or a fact's value), its
// probability and its sources; a fact or a passage opens the side panel. States follow every render().
const OUTLINE_DEPTH_OPEN = 3;

function premisesOf(g) {
  const premises = {};
  for (const e of g.edges) if (e.kind !== "contradiction") (premises[e.target] ||= []).push(e.source);
  for (const k of Object.keys(premises)) {
    premises[k] = [...new Set(premises[k])].sort((a, b) => (state.byId[b]?.critical ? 1 : 0) - (state.byId[a]?.critical ? 1 : 0));
  }
  return premises;
}

function outlineLine(n) {
  const line = h("span", { class: "line" });
  const word = h("span", { class: "word" });
  const lab = h("span", { class: "lab" });
  if (n.kind === "evidence") {
    word.textContent = "pièce";
    const b = h("button", { type: "button", class: "open-fact" }, `${n.document_id}${n.page != null ? ", p. " + n.page : ""}`);
    b.addEventListener("click", (ev) => { ev.preventDefault(); onNode(n); });
    lab.append(h("span", { class: "quote" }, `« ${(n.quote || n.label || "").replace(/\s+/g, " ").slice(0, 160)} » — `), b);
  } else if (n.kind === "fact") {
    const b = h("button", { type: "button", class: "open-fact" }, nodeLabel(n));
    b.addEventListener("click", (ev) => { ev.preventDefault(); onNode(n); });
    lab.append(b);
  } else lab.textContent = nodeLabel(n);
  line.append(word, lab, h("span", { class: "p" }));
  if (n.sources?.length) line.append(sourceLinks(n.sources));
  return line;
}

function outlineItem(id, premises, seen, depth) {
  const n = state.byId[id];
  const li = h("li", { class: `${n.kind === "fact" ? "f" : n.kind === "evidence" ? "ev" : "r"}${n.critical ? " crit" : ""}`, data: { id } });
  const kids = premises[id] || [];
  if (!kids.length || seen.has(id)) {
    li.append(h("span", { class: "tw leaf", "aria-hidden": "true" }, "•"), outlineLine(n));
    if (kids.length) li.append(h("span", { class: "more" }, " (détaillé plus haut)"));
    return li;
  }
  seen.add(id);
  // a toggle button (not <details>: the line holds links and buttons, which a <summary> may not contain)
  const tw = h("button", { type: "button", class: "tw", textContent: "▸" });
  tw.setAttribute("aria-expanded", "false");
  tw.setAttribute("aria-label", `déplier (${kids.length})`);
  const ul = h("ul", { hidden: true });
  const fill = () => {
    if (li.dataset.filled) return;
    li.dataset.filled = "1";
    for (const k of kids) ul.append(outlineItem(k, premises, seen, depth + 1));
    if (state.verdict) renderOutlineStates(state.verdict, ul);
  };
  const set = (open) => {
    if (open) fill();
    ul.hidden = !open; tw.textContent = open ? "▾" : "▸";
    tw.setAttribute("aria-expanded", String(open));
    tw.setAttribute("aria-label", `${open ? "replier" : "déplier"} (${kids.length})`);
  };
  li.toggleOutline = set;
  tw.addEventListener("click", () => set(ul.hidden));
  li.append(tw, outlineLine(n), h("span", { class: "more" }, ` (${kids.length})`), ul);
  if (depth < OUTLINE_DEPTH_OPEN && (n.critical || n.kind === "verdict")) set(true);
  return li;
}

function buildOutline(g) {
  const ul = $("#outline"); ul.innerHTML = "";
  state.outlinePremises = premisesOf(g);
  ul.append(outlineItem(g.verdict_node, state.outlinePremises, new Set(), 0));
}

function renderOutlineStates(v, root = document) {
  for (const li of root.querySelectorAll("#outline li[data-id]")) {
    const n = state.byId?.[li.dataset.id]; if (!n || n.kind === "evidence") continue;
    const info = nodeInfo(n, v);
    const line = li.querySelector(".line"), word = line.querySelector(".word"), p = line.querySelector(".p");
    li.classList.remove("s-yes", "s-no", "s-unknown", "s-judge", "f-unknown");
    if (info.state) {
      li.classList.add(stateClass(info.state));
      word.textContent = info.state; li.dataset.state = info.state;
      p.textContent = info.p == null ? "" : ` · P = ${pct(info.p)}`;
    } else if (info.value != null) {
      if (info.status === "inconnu") li.classList.add("f-unknown");
      word.textContent = info.status || "fait"; li.dataset.state = info.status || "";
      p.textContent = ` = ${info.value}`;
    } else { word.textContent = n.kind === "fact" ? "fait" : "règle"; p.textContent = ""; }
  }
}

function setOutline(open) {
  const items = () => [...document.querySelectorAll("#outline li")].filter((li) => li.toggleOutline);
  if (!open) { items().forEach((li) => li.toggleOutline(false)); return; }
  for (let pass = 0; pass < 3; pass++) items().forEach((li) => li.toggleOutline(true)); // a few levels per click
}
$("#outline-open").addEventListener("click", () => setOutline(true));
$("#outline-close").addEventListener("click", () => setOutline(false));

// ---------------------------------------------------------------- the full graph, on demand, a few dozen nodes
const MAX_VISIBLE = 30;

function shapeGraph(g) { // fold at the deepest level that keeps at most MAX_VISIBLE nodes in view
  const premises = structure(g).premises, depth = { [g.verdict_node]: 0 }, queue = [g.verdict_node];
  while (queue.length) { const n = queue.shift(); for (const c of premises[n] || []) if (!(c in depth)) { depth[c] = depth[n] + 1; queue.push(c); } }
  const byDepth = [];
  for (const [id, d] of Object.entries(depth)) (byDepth[d] ||= []).push(id);
  let keep = 0, total = 0;
  for (let d = 0; d < byDepth.length; d++) { total += byDepth[d].length; if (total > MAX_VISIBLE && d > 0) break; keep = d; }
  state.collapsed.clear();
  for (const id of byDepth[keep] || []) if ((premises[id] || []).length) state.collapsed.add(id);
  state.graphShaped = true;
}

function showGraph() {
  $("#outline-wrap").hidden = true; $("#graph-wrap").hidden = false;
  if (!state.graph) return;
  if (!state.graphShaped) shapeGraph(state.graph);
  drawGraph(state.graph);
  fit();
}
$("#show-graph").addEventListener("click", () => { showGraph(); $("#show-outline").focus(); });
$("#show-outline").addEventListener("click", () => { $("#graph-wrap").hidden = true; $("#outline-wrap").hidden = false; $("#show-graph").focus(); });

// ---------------------------------------------------------------- a new case from the page
// Drop a dossier's files (or a folder), or a facts file; choose the pack among the server's; the case is
// created, its documents uploaded (one step per file), then run with live progress (server-sent events).
const PHASE_WORDS = { INIT: "lecture des pièces", PLANNING: "plan des vérifications", EXECUTING: "vérifications",
  EVALUATING: "verdict", INTERACTING: "question", VERDICT: "verdict rendu", INCONSISTENT: "faits incohérents" };
const nc = { files: new Map(), facts: null };

async function loadPacks() {
  const packs = await api("/v1/packs"), sel = $("#nc-pack");
  sel.innerHTML = "";
  for (const p of packs) sel.append(h("option", { value: p.name, textContent: p.title || p.name }));
}

function openNewCase(force) {
  const box = $("#new-case"), open = force ?? box.hidden;
  box.hidden = !open;
  $("#new-case-btn").setAttribute("aria-expanded", String(open));
  if (open) $("#nc-name").focus();
}
$("#new-case-btn").addEventListener("click", () => openNewCase());

async function addFiles(list) {
  for (const f of list) {
    if (/\.json$/i.test(f.name)) {
      try {
        const data = JSON.parse(await f.text());
        if (data && typeof data.facts === "object") { nc.facts = { name: f.name, data }; continue; }
      } catch (e) { setStatus(`${f.name} : JSON illisible (${e.message})`); continue; }
    }
    nc.files.set(f.webkitRelativePath || f.name, f);
  }
  showChosen();
}

function showChosen() {
  const ul = $("#nc-list"); ul.innerHTML = "";
  if (nc.facts) ul.append(h("li", {}, `fichier de faits : ${nc.facts.name}`));
  for (const [name, f] of nc.files) ul.append(h("li", {}, `${name} (${num(f.size / 1024, 0)} Ko)`));
  $("#nc-go").disabled = !(nc.facts || nc.files.size);
  if (nc.facts?.data.pack && [...$("#nc-pack").options].some((o) => o.value === nc.facts.data.pack)) $("#nc-pack").value = nc.facts.data.pack;
}

(function dropZone() {
  const zone = $("#drop");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", async (e) => {
    e.preventDefault(); zone.classList.remove("over");
    const items = [...(e.dataTransfer.items || [])].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
    if (items.some((x) => x.isDirectory)) { for (const x of items) await addFiles(await entryFiles(x)); }
    else await addFiles([...e.dataTransfer.files]);
  });
  zone.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("#nc-files").click(); } });
  zone.addEventListener("click", () => $("#nc-files").click());
  for (const id of ["#nc-files", "#nc-folder", "#nc-facts"]) $(id).addEventListener("change", (e) => addFiles([...e.target.files]));
  $("#nc-clear").addEventListener("click", () => { nc.files.clear(); nc.facts = null; showChosen(); });
})();

async function entryFiles(entry) { // a dropped folder, read recursively (hidden files skipped)
  if (entry.isFile) return entry.name.startsWith(".") ? [] : [await new Promise((ok, ko) => entry.file(ok, ko))];
  const reader = entry.createReader(), out = [];
  for (;;) {
    const batch = await new Promise((ok, ko) => reader.readEntries(ok, ko));
    if (!batch.length) break;
    for (const e of batch) out.push(...(await entryFiles(e)));
  }
  return out;
}

function ncStep(text, done, total) {
  $("#nc-step").textContent = text;
  const bar = $("#nc-bar");
  if (total) { bar.max = total; bar.value = done; } else bar.removeAttribute("value");
  $("#nc-log").append(h("li", {}, text));
}

async function upload(cid, name, file) {
  const form = new FormData(); form.append("file", file, name.split("/").pop());
  const r = await fetch(`/v1/cases/${encodeURIComponent(cid)}/documents`, { method: "POST", headers: { "X-API-Key": state.key }, body: form });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(`${name} : ${body.detail || r.statusText}`);
  return body;
}

async function runWithProgress(cid) { // POST …/run answers a stream of server-sent events
  const r = await fetch(`/v1/cases/${encodeURIComponent(cid)}/run`, { method: "POST", headers: { "X-API-Key": state.key, Accept: "text/event-stream" } });
  if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(b.detail || r.statusText); }
  const reader = r.body.getReader(), dec = new TextDecoder();
  let buf = "", last = null, n = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
      const ev = /^event: (.*)$/m.exec(block)?.[1], data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] || "{}");
      if (ev === "transition") { n += 1; ncStep(`${PHASE_WORDS[data.phase] || data.phase}${data.message ? " — " + data.message : ""}`, 0, 0); $("#nc-progress").dataset.transitions = String(n); }
      else if (ev === "error") throw new Error(data.detail);
      else if (ev === "done") last = data;
    }
  }
  return last;
}

$("#new-case-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const pack = $("#nc-pack").value, name = $("#nc-name").value.trim() || nc.facts?.name || [...nc.files.keys()][0]?.split("/")[0] || "affaire";
  $("#nc-go").disabled = true; $("#nc-progress").hidden = false; $("#nc-log").innerHTML = "";
  delete document.body.dataset.created;
  try {
    const body = nc.facts ? { name, pack, case_file: nc.facts.data } : { name, pack };
    const c = await api("/v1/cases", { method: "POST", body: JSON.stringify(body) });
    const files = nc.facts ? [] : [...nc.files];
    let i = 0;
    for (const [fname, f] of files) { ncStep(`pièce ${i + 1}/${files.length} : ${fname}`, i, files.length); await upload(c.id, fname, f); i += 1; }
    if (files.length) ncStep(`${files.length} pièce${files.length > 1 ? "s" : ""} lue${files.length > 1 ? "s" : ""}`, files.length, files.length);
    ncStep("analyse…", 0, 0);
    const done = await runWithProgress(c.id);
    ncStep(done?.status === "awaiting_answer" ? "analyse terminée : une question attend votre réponse" : "analyse terminée", 1, 1);
    nc.files.clear(); nc.facts = null; showChosen();
    await listCases();
    $("#case-select").value = c.id;
    history.replaceState(null, "", `?case=${c.id}`);
    await loadCase(c.id);
    openNewCase(false); // the verdict takes the room; « Nouvelle affaire » shows the log again
    $("#verdict").focus();
    document.body.dataset.created = c.id;
  } catch (err) { ncStep(`erreur : ${err.message}`, 0, 1); setStatus(`erreur : ${err.message}`); $("#nc-go").disabled = false; }
});

init();
